import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { ApiError } from "../../http/errors";
import type {
  createApiKey as createApiKeyRoute,
  listApiKeys as listApiKeysRoute,
  revokeApiKey as revokeApiKeyRoute,
  rotateApiKey as rotateApiKeyRoute,
} from "./keys.routes";
import * as keys from "./keys.service";

export const createApiKey: RouteHandler<typeof createApiKeyRoute, AppEnv> = async (c) => {
  const created = await keys.createKey(c.get("db"), c.get("orgManager"), c.req.valid("json"));
  return c.json(created, 201);
};

export const listApiKeys: RouteHandler<typeof listApiKeysRoute, AppEnv> = async (c) => {
  const list = await keys.listKeysWithUsage(c.env, c.get("db"), c.get("orgManager").orgId, Date.now());
  return c.json({ count: list.length, keys: list }, 200);
};

export const revokeApiKey: RouteHandler<typeof revokeApiKeyRoute, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  if (!(await keys.revokeKey(c.env, c.get("db"), c.get("orgManager").orgId, id, Date.now()))) {
    throw new ApiError("not_found", "This organization has no key with that id.");
  }
  return c.body(null, 204);
};

export const rotateApiKey: RouteHandler<typeof rotateApiKeyRoute, AppEnv> = async (c) => {
  const rotated = await keys.rotateKey(
    c.env,
    c.get("db"),
    c.get("orgManager"),
    c.req.valid("param").id,
    c.req.valid("json").overlap_hours,
    Date.now(),
  );
  return c.json(rotated, 201);
};
