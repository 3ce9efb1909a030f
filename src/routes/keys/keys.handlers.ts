import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { ApiError } from "../../http/errors";
import type { createKey as createRoute, listKeys as listRoute, revokeKey as revokeRoute } from "./keys.routes";
import { createKey, listKeysWithUsage, revokeKey } from "./keys.service";

export const create: RouteHandler<typeof createRoute, AppEnv> = async (c) => {
  const created = await createKey(c.var.db, c.var.keyManager, c.req.valid("json"));
  c.header("Cache-Control", "no-store");
  return c.json(created, 201);
};

export const list: RouteHandler<typeof listRoute, AppEnv> = async (c) => {
  const keys = await listKeysWithUsage(c.env, c.var.db, c.var.keyManager.orgId, Date.now());
  c.header("Cache-Control", "no-store");
  return c.json({ count: keys.length, keys }, 200);
};

export const revoke: RouteHandler<typeof revokeRoute, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  if (!(await revokeKey(c.var.db, c.var.keyManager.orgId, id, Date.now()))) {
    throw new ApiError("not_found", "This organization has no key with that id.");
  }
  return c.body(null, 204);
};
