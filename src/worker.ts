import { consumeDeadLetters, consumeWebhooks, WEBHOOKS_DLQ } from "./events/consumer";
import type { WebhookMessage } from "./events/messages";
import type { AppRouter } from "./http/router";
import { runScheduledJobs } from "./jobs";

/** The Worker's handlers around an app: the entry (src/index.ts) and the benchmark's entry share them. */
export function createWorker(app: AppRouter) {
  return {
    fetch: app.fetch,
    async scheduled(controller, env, ctx) {
      ctx.waitUntil(runScheduledJobs(controller.cron, env, new Date(controller.scheduledTime)));
    },
    async queue(batch, env) {
      if (batch.queue === WEBHOOKS_DLQ) await consumeDeadLetters(batch, env);
      else await consumeWebhooks(batch, env);
    },
  } satisfies ExportedHandler<Env, WebhookMessage>;
}
