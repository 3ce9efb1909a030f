import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { WEBHOOKS_DLQ } from "../../src/events/consumer";
import type { WebhookMessage } from "../../src/events/messages";
import worker from "../../src/index";

/** A stand-in WEBHOOKS queue that keeps what is sent, so a test can run the consumer step by step. */
export function capturingQueue(options: { failSends?: boolean } = {}) {
  const sent: WebhookMessage[] = [];
  const queue = {
    async send(body: WebhookMessage) {
      if (options.failSends) throw new Error("queue unavailable");
      sent.push(body);
    },
    async sendBatch(messages: Iterable<MessageSendRequest<WebhookMessage>>) {
      if (options.failSends) throw new Error("queue unavailable");
      for (const m of messages) sent.push(m.body);
    },
  } as unknown as Queue<WebhookMessage>;
  return { sent, env: { ...env, WEBHOOKS: queue } as Env };
}

let counter = 0;

/**
 * Runs the Worker's queue() on one message as the queue would deliver it on its `attempts`-th
 * try, and returns whether it was acked or retried (with the delay asked for).
 */
export async function consumeOne(bindings: Env, body: WebhookMessage, attempts: number, queue = "webhooks") {
  const batch = createMessageBatch<WebhookMessage>(queue, [{ id: `msg-${++counter}`, timestamp: new Date(), attempts, body }]);
  // getQueueResult does not report the delay a retry asked for, so the call itself is watched.
  const retry = vi.spyOn(batch.messages[0], "retry");
  const ctx = createExecutionContext();
  await (worker.queue as ExportedHandlerQueueHandler<Env, WebhookMessage>)(batch, bindings, ctx);
  const result = await getQueueResult(batch, ctx);
  const retried = result.retryMessages.length === 1;
  return { acked: result.explicitAcks.length === 1, retry: retried ? { delaySeconds: retry.mock.calls[0]?.[0]?.delaySeconds ?? 0 } : null };
}

export const consumeDeadLetter = (bindings: Env, body: WebhookMessage) => consumeOne(bindings, body, 1, WEBHOOKS_DLQ);
