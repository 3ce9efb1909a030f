import { getDb } from "../db/client";
import { listUnsentOutbox } from "../db/queries/events";
import { enqueueEvents } from "../events/messages";
import { logEvent } from "../lib/log";

/** Rows younger than this may still be on their way to the queue from the request that wrote them. */
const GRACE_MS = 2 * 60_000;
const SWEEP_LIMIT = 1000;

/** Re-sends outbox events the queue never accepted (a failed send, or a dead-lettered fan-out). */
export async function sweepOutbox(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const unsent = await listUnsentOutbox(db, new Date(now.getTime() - GRACE_MS).toISOString(), SWEEP_LIMIT);
  const sent = await enqueueEvents(env, db, unsent, now);
  if (unsent.length > 0) logEvent("info", { event: "outbox_swept", found: unsent.length, sent });
}
