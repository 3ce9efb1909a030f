import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import type { WebhookMessage } from "../../src/events/messages";
import worker from "../../src/index";
import { JOBS_QUEUE, type JobMessage } from "../../src/jobs/queue";
import { WEBHOOKS_DLQ } from "../../src/jobs/webhooks-consumer";

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

/** Runs one jobs-queue message through the Worker's queue(), as the queue delivers it; whether it was acked. */
export async function consumeJob(bindings: Env, body: JobMessage, attempts = 1) {
  const batch = createMessageBatch<JobMessage>(JOBS_QUEUE, [{ id: `job-${++counter}`, timestamp: new Date(), attempts, body }]);
  const ctx = createExecutionContext();
  await (worker.queue as ExportedHandlerQueueHandler<Env, JobMessage>)(batch, bindings, ctx);
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.length === 1 };
}

/**
 * Runs a cron as production does, with the jobs queue driven here: the scheduled handler's
 * messages, and every message those send in turn, each through the Worker's queue() until none is
 * left (a message that is not acked fails the run). `bindings` defaults to a capturing WEBHOOKS
 * queue. Returns every job message, in the order consumed.
 */
export async function runCron(cron: string, at: Date | number, bindings: Env = capturingQueue().env): Promise<JobMessage[]> {
  const pending: JobMessage[] = [];
  const jobs = {
    async send(body: JobMessage) {
      pending.push(body);
    },
    async sendBatch(messages: Iterable<MessageSendRequest<JobMessage>>) {
      for (const m of messages) pending.push(m.body);
    },
  } as unknown as Queue<JobMessage>;
  const withJobs = { ...bindings, JOBS: jobs } as Env;
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(at), cron }), withJobs, ctx);
  await waitOnExecutionContext(ctx);
  const consumed: JobMessage[] = [];
  for (let body = pending.shift(); body !== undefined; body = pending.shift()) {
    consumed.push(body);
    if (!(await consumeJob(withJobs, body)).acked) throw new Error(`job message not acked: ${JSON.stringify(body)}`);
  }
  return consumed;
}
