import { getDb } from "../db/client";
import { purgeAttemptBodies } from "../db/queries/webhooks";
import { daysBefore } from "../engines/dates";
import { WEBHOOK_BODY_RETENTION_DAYS } from "../events/delivery";
import { logEvent } from "../lib/log";

/** The first attempt time whose bodies are kept at `now`: D1's cron and a moved organization's alarm (src/jobs/org-nightly.ts) alike. */
export const attemptBodiesKeptFrom = (now: Date) => daysBefore(now, WEBHOOK_BODY_RETENTION_DAYS).toISOString();

/** Clears the bodies of attempts older than the retention; the attempts themselves (status, time, error) stay. */
export async function purgeWebhookBodies(env: Env, now: Date): Promise<void> {
  const purged = await purgeAttemptBodies(getDb(env.DB), attemptBodiesKeptFrom(now));
  logEvent("info", { event: "webhook_bodies_purged", attempts: purged });
}
