import { createApp } from "./app";
import { withQueryLog } from "./db/query-log";
import { consumeDeadLetters, consumeWebhooks, WEBHOOKS_DLQ } from "./events/consumer";
import type { WebhookMessage } from "./events/messages";
import { runScheduledJobs } from "./jobs";

export { OrgStorage } from "./durable-objects/org-storage";
export { QuotaCounter } from "./durable-objects/quota-counter";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, withQueryLog(env), ctx),
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(controller.cron, withQueryLog(env), new Date(controller.scheduledTime)));
  },
  async queue(batch, env) {
    if (batch.queue === WEBHOOKS_DLQ) await consumeDeadLetters(batch, withQueryLog(env));
    else await consumeWebhooks(batch, withQueryLog(env));
  },
} satisfies ExportedHandler<Env, WebhookMessage>;
