import { createApp } from "./app";

export { QuotaCounter } from "./durable-objects/quota-counter";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
