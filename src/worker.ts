import { withQueryLog } from "./db/query-log";
import type { WebhookMessage } from "./events/messages";
import type { JobMessage } from "./jobs/queue";

/** The queue handler's code, loaded on its first batch (and by the test setup before any test runs). */
export const loadQueueConsumers = () => Promise.all([import("./jobs/queue"), import("./jobs/consumer"), import("./jobs/webhooks-consumer")]);

/**
 * The Worker's handlers around an app: the entry (src/index.ts) and the benchmark's entry share them.
 * The cron and queue code is imported on its first use (an initializer in the bundle), so it adds
 * nothing to the Worker's start-up, which every isolate pays before its first request.
 */
export function createWorker(app: { fetch: (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response> }) {
  return {
    fetch: (request, env, ctx) => app.fetch(request, withQueryLog(env), ctx),
    async scheduled(controller, env, ctx) {
      const { runScheduledJobs } = await import("./jobs");
      ctx.waitUntil(runScheduledJobs(controller.cron, withQueryLog(env), new Date(controller.scheduledTime)));
    },
    async queue(batch, env) {
      const bindings = withQueryLog(env);
      const [{ JOBS_QUEUE }, { consumeJobs }, { consumeDeadLetters, consumeWebhooks, WEBHOOKS_DLQ }] = await loadQueueConsumers();
      if (batch.queue === JOBS_QUEUE) await consumeJobs(batch as MessageBatch<JobMessage>, bindings);
      else if (batch.queue === WEBHOOKS_DLQ) await consumeDeadLetters(batch as MessageBatch<WebhookMessage>, bindings);
      else await consumeWebhooks(batch as MessageBatch<WebhookMessage>, bindings);
    },
  } satisfies ExportedHandler<Env, WebhookMessage | JobMessage>;
}
