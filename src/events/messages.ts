import { z } from "zod";
import { chunk } from "../db/batch";
import type { Database } from "../db/client";
import { markOutboxEnqueued } from "../db/queries/events";
import { markRedeliveriesSent } from "../db/queries/webhooks";
import { describeError, logEvent } from "../lib/log";

/**
 * What travels on the WEBHOOKS queue. An `event` message fans one outbox event out to the
 * subscribed endpoints (creating their deliveries); a `delivery` message is one delivery, retried
 * on its own, so one failing receiver never delays another.
 */
export const WebhookMessageSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("event"), orgId: z.string().min(1), eventId: z.string().min(1) }),
  z.object({ kind: z.literal("delivery"), orgId: z.string().min(1), deliveryId: z.string().min(1) }),
]);

export type WebhookMessage = z.infer<typeof WebhookMessageSchema>;

/** sendBatch takes at most 100 messages. */
const SEND_BATCH_MAX = 100;

export async function sendMessages(queue: Queue<WebhookMessage>, messages: WebhookMessage[]): Promise<void> {
  for (const part of chunk(messages, SEND_BATCH_MAX)) await queue.sendBatch(part.map((body) => ({ body, contentType: "json" })));
}

/**
 * Sends messages the database says are owed, then marks them sent. A failure is logged, not
 * thrown: what is owed is already committed, and the outbox sweeper re-sends what the queue never
 * accepted. Returns how many were sent.
 */
async function sendOwed(queue: Queue<WebhookMessage>, messages: WebhookMessage[], markSent: () => Promise<void>): Promise<number> {
  if (messages.length === 0) return 0;
  const kind = messages[0].kind;
  try {
    await sendMessages(queue, messages);
  } catch (error) {
    logEvent("error", { event: "webhook_enqueue_failed", kind, messages: messages.length, ...describeError(error) });
    return 0;
  }
  try {
    await markSent();
  } catch (error) {
    // Sent but not marked: the sweeper sends it again; the fan-out ignores a duplicate event, the consumer a delivered delivery.
    logEvent("warn", { event: "webhook_outbox_mark_failed", kind, messages: messages.length, ...describeError(error) });
  }
  return messages.length;
}

/** Hands recorded events to the queue and marks them sent (`event_outbox.enqueued_at`). */
export async function enqueueEvents(env: Pick<Env, "WEBHOOKS">, db: Database, events: { id: string; orgId: string }[], now: Date): Promise<number> {
  return sendOwed(
    env.WEBHOOKS,
    events.map((e) => ({ kind: "event", orgId: e.orgId, eventId: e.id })),
    () =>
      markOutboxEnqueued(
        db,
        events.map((e) => e.id),
        now.toISOString(),
      ),
  );
}

/** Hands reopened deliveries to the queue and marks them sent (`webhook_deliveries.redeliver_requested_at` cleared). */
export async function enqueueRedeliveries(env: Pick<Env, "WEBHOOKS">, db: Database, deliveries: { id: string; orgId: string }[]): Promise<number> {
  return sendOwed(
    env.WEBHOOKS,
    deliveries.map((d) => ({ kind: "delivery", orgId: d.orgId, deliveryId: d.id })),
    () =>
      markRedeliveriesSent(
        db,
        deliveries.map((d) => d.id),
      ),
  );
}
