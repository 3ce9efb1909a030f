import { z } from "zod";
import { chunk } from "../db/batch";
import { markRedeliveriesSent, type WebhookStore } from "../db/queries/webhooks";
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

/** Sends the messages in batches of 100 (webhooks' and the crons' fan-outs alike): N messages cost N / 100 subrequests. */
export async function sendMessages<T>(queue: Queue<T>, messages: readonly T[]): Promise<void> {
  for (const part of chunk(messages, SEND_BATCH_MAX)) await queue.sendBatch(part.map((body) => ({ body, contentType: "json" })));
}

/**
 * Sends messages the database says are owed. A failure is logged, not thrown: what is owed is
 * already committed, and the outbox sweeper re-sends it. Returns how many were sent.
 */
async function sendOwed(queue: Queue<WebhookMessage>, messages: WebhookMessage[]): Promise<number> {
  if (messages.length === 0) return 0;
  try {
    await sendMessages(queue, messages);
    return messages.length;
  } catch (error) {
    logEvent("error", { event: "webhook_enqueue_failed", kind: messages[0].kind, messages: messages.length, ...describeError(error) });
    return 0;
  }
}

/**
 * Hands recorded events to the queue. Nothing is marked here: the fan-out marks its event
 * (`event_outbox.fanned_out_at`) in the batch that creates the deliveries, so raising an event
 * costs its request no second D1 round trip.
 */
export async function enqueueEvents(env: Pick<Env, "WEBHOOKS">, events: { id: string; orgId: string }[]): Promise<number> {
  return sendOwed(
    env.WEBHOOKS,
    events.map((e) => ({ kind: "event", orgId: e.orgId, eventId: e.id })),
  );
}

/** Hands reopened deliveries to the queue and marks them sent (`webhook_deliveries.redeliver_requested_at` cleared) where they are. */
export async function enqueueRedeliveries(
  env: Pick<Env, "WEBHOOKS">,
  store: WebhookStore,
  deliveries: { id: string; orgId: string }[],
): Promise<number> {
  const sent = await sendOwed(
    env.WEBHOOKS,
    deliveries.map((d) => ({ kind: "delivery", orgId: d.orgId, deliveryId: d.id })),
  );
  if (sent === 0) return 0;
  try {
    await markRedeliveriesSent(
      store,
      deliveries.map((d) => d.id),
    );
  } catch (error) {
    // Sent but not marked: the sweeper sends it again, and the consumer skips a delivery already delivered.
    logEvent("warn", { event: "webhook_outbox_mark_failed", kind: "delivery", messages: sent, ...describeError(error) });
  }
  return sent;
}
