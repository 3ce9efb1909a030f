import { getDb } from "../db/client";
import { listOutboxNotFannedOut } from "../db/queries/events";
import { listUnsentRedeliveries, type WebhookStore } from "../db/queries/webhooks";
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
/** A redelivery whose re-send failed again is tried again this long after, by its object's alarm. */
const RESEND_RETRY_MS = 60_000;

/**
 * Re-sends D1's outbox events never fanned out (a failed send, a dead-lettered fan-out, or one still
 * queued past the grace). The redeliveries and samples the queue never accepted are an
 * organization's object's to re-send (`resendUnsent`), on its alarm.
 */
export async function sweepOutbox(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const notFannedOut = await listOutboxNotFannedOut(db, ago(EVENT_GRACE_MS), SWEEP_LIMIT);
  const sent = await enqueueEvents(env, notFannedOut);
  if (notFannedOut.length > 0) logEvent("info", { event: "outbox_swept", found: notFannedOut.length, sent });
}

/**
 * An organization's redeliveries and samples whose queue send failed, re-sent by its object's
 * alarm: those asked for before the grace, each marked sent once the queue takes it, so each is
 * sent once. Returns when the next re-send is due (`nextResend`).
 */
export async function resendUnsent(env: Pick<Env, "WEBHOOKS">, store: WebhookStore, now: Date): Promise<number | undefined> {
  const before = new Date(now.getTime() - REDELIVERY_GRACE_MS).toISOString();
  const redeliveries = await listUnsentRedeliveries(store.db, { before, limit: SWEEP_LIMIT });
  const sent = await enqueueRedeliveries(env, store, redeliveries);
  if (redeliveries.length > 0) logEvent("info", { event: "redeliveries_swept", found: redeliveries.length, sent });
  return nextResend(store, now);
}

/** When an organization's object next re-sends (epoch ms): its oldest unsent redelivery once past the grace, or a retry's delay from now; undefined, none waits. */
export async function nextResend(store: WebhookStore, now: Date): Promise<number | undefined> {
  const [oldest] = await listUnsentRedeliveries(store.db, { limit: 1 });
  return oldest && Math.max(Date.parse(oldest.requestedAt) + REDELIVERY_GRACE_MS, now.getTime() + RESEND_RETRY_MS);
}
