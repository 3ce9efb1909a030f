import { createApp } from "./app";
import { runScheduledJobs } from "./jobs";

export { QuotaCounter } from "./durable-objects/quota-counter";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(controller.cron, env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
