import { createRouter } from "../../http/router";
import * as handlers from "./webhooks.handlers";
import * as routes from "./webhooks.routes";

export const webhooksRouter = createRouter()
  .openapi(routes.createWebhookEndpoint, handlers.createWebhookEndpoint)
  .openapi(routes.listWebhookEndpoints, handlers.listWebhookEndpoints)
  .openapi(routes.getWebhookEndpoint, handlers.getWebhookEndpoint)
  .openapi(routes.updateWebhookEndpoint, handlers.updateWebhookEndpoint)
  .openapi(routes.deleteWebhookEndpoint, handlers.deleteWebhookEndpoint)
  .openapi(routes.listWebhookDeliveries, handlers.listWebhookDeliveries)
  .openapi(routes.redeliverWebhookDelivery, handlers.redeliverWebhookDelivery)
  .openapi(routes.triggerWebhookEvent, handlers.triggerWebhookEvent)
  .openapi(routes.testWebhookEndpoint, handlers.testWebhookEndpoint)
  .openapi(routes.rotateWebhookSecret, handlers.rotateWebhookSecret);

/** Registered on the app itself: a sub-router's webhooks would be merged under a "/" path prefix. */
export { documentWebhookEvents } from "./webhooks.events";
