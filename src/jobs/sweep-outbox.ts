import { getDb } from "../db/client";
import { listOutboxNotFannedOut } from "../db/queries/events";
import { d1WebhookStore, listUnsentRedeliveries } from "../db/queries/webhooks";
import { enqueueEvents, enqueueRedeliveries } from "../events/messages";
import { logEvent } from "../lib/log";

/**
 * An event is marked only once the consumer fans it out, so a young unmarked row is usually still
 * waiting in the queue. Re-sending it costs only a duplicate fan-out (no second delivery), but a
 * backlog would be re-sent on every 5-minute run; 15 minutes covers a normal backlog, and an event
 * whose send was lost still reaches its receiver within 20 minutes (grace + one cron interval), no
 * later than a failed delivery's first retry (+20 min, RETRY_DELAYS_SECONDS).
 */
const EVENT_GRACE_MS = 15 * 60_000;
/** A redelivery is marked when its send is accepted: younger than this, its request may still be sending it. */
const REDELIVERY_GRACE_MS = 2 * 60_000;
const SWEEP_LIMIT = 1000;

/**
 * Re-sends what was never acted on: outbox events not fanned out (a failed send, a dead-lettered
 * fan-out, or one still queued past the grace) and manual redeliveries the queue never accepted.
 */
export async function sweepOutbox(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const notFannedOut = await listOutboxNotFannedOut(db, ago(EVENT_GRACE_MS), SWEEP_LIMIT);
  const sent = await enqueueEvents(env, notFannedOut);
  if (notFannedOut.length > 0) logEvent("info", { event: "outbox_swept", found: notFannedOut.length, sent });
  const redeliveries = await listUnsentRedeliveries(db, ago(REDELIVERY_GRACE_MS), SWEEP_LIMIT);
  const store = d1WebhookStore(db, [...new Set(redeliveries.map((d) => d.orgId))]);
  const redelivered = await enqueueRedeliveries(env, store, redeliveries);
  if (redeliveries.length > 0) logEvent("info", { event: "redeliveries_swept", found: redeliveries.length, sent: redelivered });
}
