import { chunk } from "../db/batch";
import type { Database } from "../db/client";
import { markOutboxEnqueued } from "../db/queries/events";
import { describeError, logEvent } from "../lib/log";

/**
 * What travels on the WEBHOOKS queue. An `event` message fans one outbox event out to the
 * subscribed endpoints (creating their deliveries); a `delivery` message is one delivery, retried
 * on its own, so one failing receiver never delays another.
 */
export type WebhookMessage = { kind: "event"; orgId: string; eventId: string } | { kind: "delivery"; orgId: string; deliveryId: string };

/** sendBatch takes at most 100 messages. */
const SEND_BATCH_MAX = 100;

export async function sendMessages(queue: Queue<WebhookMessage>, messages: WebhookMessage[]): Promise<void> {
  for (const part of chunk(messages, SEND_BATCH_MAX)) await queue.sendBatch(part.map((body) => ({ body, contentType: "json" })));
}

/**
 * Hands recorded events to the queue and marks them sent. A failure is logged, not thrown: the
 * change is already committed, and the sweeper re-sends what the queue never accepted.
 */
export async function enqueueEvents(env: Pick<Env, "WEBHOOKS">, db: Database, events: { id: string; orgId: string }[], now: Date): Promise<number> {
  if (events.length === 0) return 0;
  try {
    await sendMessages(
      env.WEBHOOKS,
      events.map((e) => ({ kind: "event", orgId: e.orgId, eventId: e.id })),
    );
  } catch (error) {
    logEvent("error", { event: "webhook_enqueue_failed", events: events.length, ...describeError(error) });
    return 0;
  }
  try {
    await markOutboxEnqueued(
      db,
      events.map((e) => e.id),
      now.toISOString(),
    );
  } catch (error) {
    // Sent but not marked: the sweeper sends it again, and the fan-out ignores the duplicate.
    logEvent("warn", { event: "webhook_outbox_mark_failed", events: events.length, ...describeError(error) });
  }
  return events.length;
}
