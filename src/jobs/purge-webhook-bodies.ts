import { getDb } from "../db/client";
import { purgeAttemptBodies } from "../db/queries/webhooks";
import { daysBefore } from "../engines/dates";
import { WEBHOOK_BODY_RETENTION_DAYS } from "../events/delivery";
import { logEvent } from "../lib/log";

/** Clears the bodies of attempts older than the retention; the attempts themselves (status, time, error) stay. */
export async function purgeWebhookBodies(env: Env, now: Date): Promise<void> {
  const before = daysBefore(now, WEBHOOK_BODY_RETENTION_DAYS).toISOString();
  const purged = await purgeAttemptBodies(getDb(env.DB), before);
  logEvent("info", { event: "webhook_bodies_purged", attempts: purged });
}
