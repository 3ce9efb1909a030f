import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import type * as routes from "./operator.routes";
import * as operator from "./operator.service";

type Handler<R extends Parameters<typeof import("@hono/zod-openapi").createRoute>[0]> = RouteHandler<R, AppEnv>;

export const createOrganization: Handler<typeof routes.createOrganization> = async (c) =>
  c.json(await operator.createOrganization(c.env, c.get("db"), c.req.valid("json")), 201);

export const listOrganizations: Handler<typeof routes.listOrganizations> = async (c) => {
  const rows = await operator.listOrganizations(c.get("db"), { includeSandboxes: c.req.valid("query").include_sandboxes });
  return c.json({ count: rows.length, organizations: rows }, 200);
};

export const getOrganization: Handler<typeof routes.getOrganization> = async (c) =>
  c.json(operator.toOrganization(await operator.requireOrganization(c.get("db"), c.req.valid("param").org_id)), 200);

export const suspendOrganization: Handler<typeof routes.suspendOrganization> = async (c) =>
  c.json(await operator.setSuspended(c.env, c.get("db"), c.req.valid("param").org_id, true, Date.now()), 200);

export const reinstateOrganization: Handler<typeof routes.reinstateOrganization> = async (c) =>
  c.json(await operator.setSuspended(c.env, c.get("db"), c.req.valid("param").org_id, false, Date.now()), 200);

export const createStore: Handler<typeof routes.createStore> = async (c) =>
  c.json(await operator.createStore(c.env, c.get("db"), c.req.valid("param").org_id, c.req.valid("json")), 201);

export const listStores: Handler<typeof routes.listStores> = async (c) => {
  const stores = await operator.listStores(c.env, c.get("db"), c.req.valid("param").org_id);
  return c.json({ count: stores.length, stores }, 200);
};

export const createStaffUser: Handler<typeof routes.createStaffUser> = async (c) =>
  c.json(await operator.createStaffUser(c.get("db"), c.get("config").passwordPepper, c.req.valid("param").org_id, c.req.valid("json")), 201);

export const createBrokerToken: Handler<typeof routes.createBrokerToken> = async (c) =>
  c.json(await operator.issueBrokerToken(c.get("db"), c.req.valid("param").org_id, c.req.valid("json").label), 201);

export const listBrokerTokens: Handler<typeof routes.listBrokerTokens> = async (c) => {
  const tokens = await operator.listBrokerTokens(c.get("db"), c.req.valid("param").org_id);
  return c.json({ count: tokens.length, broker_tokens: tokens }, 200);
};

export const revokeBrokerToken: Handler<typeof routes.revokeBrokerToken> = async (c) => {
  const { org_id, token_id } = c.req.valid("param");
  await operator.revokeBrokerToken(c.get("db"), org_id, token_id, Date.now());
  return c.body(null, 204);
};
