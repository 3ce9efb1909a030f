import { getDb } from "../db/client";
import { purgeAttemptBodies } from "../db/queries/webhooks";
import { WEBHOOK_BODY_RETENTION_DAYS } from "../events/delivery";
import { logEvent } from "../lib/log";

/** Clears the bodies of attempts older than the retention; the attempts themselves (status, time, error) stay. */
export async function purgeWebhookBodies(env: Env, now: Date): Promise<void> {
  const before = new Date(now.getTime() - WEBHOOK_BODY_RETENTION_DAYS * 86_400_000).toISOString();
  const purged = await purgeAttemptBodies(getDb(env.DB), before);
  logEvent("info", { event: "webhook_bodies_purged", attempts: purged });
}
