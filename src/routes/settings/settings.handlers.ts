import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { managerActor } from "../../http/staff-credentials";
import type * as routes from "./settings.routes";
import * as settings from "./settings.service";

export const listStoreSettings: RouteHandler<typeof routes.listStoreSettings, AppEnv> = async (c) => {
  return c.json(await settings.listStores(c.env, c.get("orgManager").orgId), 200);
};

export const getStoreSettings: RouteHandler<typeof routes.getStoreSettings, AppEnv> = async (c) => {
  const { body, etag } = await settings.getStoreWithTag(c.env, c.get("orgManager").orgId, c.req.valid("param").store_id);
  return c.json(body, 200, { ETag: etag });
};

export const updateStoreSettings: RouteHandler<typeof routes.updateStoreSettings, AppEnv> = async (c) => {
  const manager = c.get("orgManager");
  const { body, etag } = await settings.updateStoreSettings(
    c.env,
    manager.orgId,
    c.req.valid("param").store_id,
    c.req.valid("json"),
    managerActor(manager),
    new Date(),
    c.req.header("If-Match"),
  );
  return c.json(body, 200, { ETag: etag });
};

export const getLenderPanel: RouteHandler<typeof routes.getLenderPanel, AppEnv> = async (c) => {
  return c.json(await settings.getLenderPanel(c.env, c.get("db"), c.get("orgManager").orgId, c.req.valid("param").store_id), 200);
};

export const replaceLenderPanel: RouteHandler<typeof routes.replaceLenderPanel, AppEnv> = async (c) => {
  const manager = c.get("orgManager");
  const body = await settings.replaceLenderPanel(
    c.env,
    c.get("db"),
    manager.orgId,
    c.req.valid("param").store_id,
    c.req.valid("json"),
    managerActor(manager),
    new Date(),
  );
  return c.json(body, 200);
};

export const getComplianceSettings: RouteHandler<typeof routes.getComplianceSettings, AppEnv> = async (c) => {
  return c.json(await settings.getComplianceSettings(c.env, c.get("db"), c.get("orgManager").orgId), 200);
};

export const updateComplianceSettings: RouteHandler<typeof routes.updateComplianceSettings, AppEnv> = async (c) => {
  const manager = c.get("orgManager");
  const body = await settings.updateComplianceSettings(c.env, c.get("db"), manager.orgId, c.req.valid("json"), managerActor(manager), new Date());
  return c.json(body, 200);
};

export const listSettingsAudit: RouteHandler<typeof routes.listSettingsAudit, AppEnv> = async (c) => {
  return c.json(await settings.listAudit(c.env, c.get("orgManager").orgId, c.req.valid("query")), 200);
};
