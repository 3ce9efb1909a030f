import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { webhookStorage } from "../../jobs/webhook-storage";
import type * as routes from "./webhooks.routes";
import * as webhooks from "./webhooks.service";

/** The organization's webhooks group, in its object: one call per request. */
const storageOf = (c: Context<AppEnv>) => webhookStorage(c.env, c.get("principal").orgId);

export const createWebhookEndpoint: RouteHandler<typeof routes.createWebhookEndpoint, AppEnv> = async (c) => {
  const created = await webhooks.createEndpoint(storageOf(c), c.get("config"), c.req.valid("json"));
  return c.json(created, 201);
};

export const listWebhookEndpoints: RouteHandler<typeof routes.listWebhookEndpoints, AppEnv> = async (c) => {
  return c.json(await webhooks.listEndpoints(storageOf(c)), 200);
};

export const getWebhookEndpoint: RouteHandler<typeof routes.getWebhookEndpoint, AppEnv> = async (c) => {
  const row = await webhooks.getEndpoint(storageOf(c), c.req.valid("param").id);
  return c.json(webhooks.toEndpointFields(row), 200);
};

export const updateWebhookEndpoint: RouteHandler<typeof routes.updateWebhookEndpoint, AppEnv> = async (c) => {
  const row = await webhooks.updateEndpoint(storageOf(c), c.get("config"), c.req.valid("param").id, c.req.valid("json"), new Date());
  return c.json(webhooks.toEndpointFields(row), 200);
};

export const deleteWebhookEndpoint: RouteHandler<typeof routes.deleteWebhookEndpoint, AppEnv> = async (c) => {
  await webhooks.deleteEndpoint(storageOf(c), c.req.valid("param").id);
  return c.body(null, 204);
};

export const listWebhookDeliveries: RouteHandler<typeof routes.listWebhookDeliveries, AppEnv> = async (c) => {
  const { limit, starting_after } = c.req.valid("query");
  return c.json(await webhooks.listEndpointDeliveries(storageOf(c), c.req.valid("param").id, { limit, startingAfter: starting_after }), 200);
};

export const redeliverWebhookDelivery: RouteHandler<typeof routes.redeliverWebhookDelivery, AppEnv> = async (c) => {
  const { id, delivery_id } = c.req.valid("param");
  return c.json(await webhooks.redeliver(storageOf(c), id, delivery_id, new Date()), 202);
};

export const triggerWebhookEvent: RouteHandler<typeof routes.triggerWebhookEvent, AppEnv> = async (c) => {
  const delivery = await webhooks.triggerSample(storageOf(c), c.req.valid("param").id, c.req.valid("json").event, new Date());
  return c.json(delivery, 202);
};

export const testWebhookEndpoint: RouteHandler<typeof routes.testWebhookEndpoint, AppEnv> = async (c) => {
  const orgId = c.get("principal").orgId;
  return c.json(await webhooks.ping(storageOf(c), c.get("db"), c.get("config"), orgId, c.req.valid("param").id, new Date()), 200);
};

export const rotateWebhookSecret: RouteHandler<typeof routes.rotateWebhookSecret, AppEnv> = async (c) => {
  const { overlap_hours } = c.req.valid("json");
  return c.json(await webhooks.rotateSecret(storageOf(c), c.get("config"), c.req.valid("param").id, overlap_hours, new Date()), 200);
};
