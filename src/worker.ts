import { consumeDeadLetters, consumeWebhooks, WEBHOOKS_DLQ } from "./events/consumer";
import type { WebhookMessage } from "./events/messages";
import type { AppRouter } from "./http/router";
import { runScheduledJobs } from "./jobs";
import { consumeJobs } from "./jobs/consumer";
import { JOBS_QUEUE, type JobMessage } from "./jobs/queue";

/** The Worker's handlers around an app: the entry (src/index.ts) and the benchmark's entry share them. */
export function createWorker(app: AppRouter) {
  return {
    fetch: app.fetch,
    async scheduled(controller, env, ctx) {
      ctx.waitUntil(runScheduledJobs(controller.cron, env, new Date(controller.scheduledTime)));
    },
    async queue(batch, env) {
      if (batch.queue === JOBS_QUEUE) await consumeJobs(batch as MessageBatch<JobMessage>, env);
      else if (batch.queue === WEBHOOKS_DLQ) await consumeDeadLetters(batch as MessageBatch<WebhookMessage>, env);
      else await consumeWebhooks(batch as MessageBatch<WebhookMessage>, env);
    },
  } satisfies ExportedHandler<Env, WebhookMessage | JobMessage>;
}
