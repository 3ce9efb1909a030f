import { getDb } from "../db/client";
import { listUnsentOutbox } from "../db/queries/events";
import { listUnsentRedeliveries } from "../db/queries/webhooks";
import { enqueueEvents, enqueueRedeliveries } from "../events/messages";
import { logEvent } from "../lib/log";

/** Rows younger than this may still be on their way to the queue from the request that wrote them. */
const GRACE_MS = 2 * 60_000;
const SWEEP_LIMIT = 1000;

/**
 * Re-sends what the queue never accepted: outbox events (a failed send, or a dead-lettered
 * fan-out) and manual redeliveries (a failed send).
 */
export async function sweepOutbox(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const before = new Date(now.getTime() - GRACE_MS).toISOString();
  const unsent = await listUnsentOutbox(db, before, SWEEP_LIMIT);
  const sent = await enqueueEvents(env, db, unsent, now);
  if (unsent.length > 0) logEvent("info", { event: "outbox_swept", found: unsent.length, sent });
  const redeliveries = await listUnsentRedeliveries(db, before, SWEEP_LIMIT);
  const redelivered = await enqueueRedeliveries(env, db, redeliveries);
  if (redeliveries.length > 0) logEvent("info", { event: "redeliveries_swept", found: redeliveries.length, sent: redelivered });
}
