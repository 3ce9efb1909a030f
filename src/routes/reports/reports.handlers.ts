import type { RouteHandler } from "@hono/zod-openapi";
import { pulseBody } from "../../engines/reports/bodies";
import { DEFAULT_ROLE } from "../../engines/reports/briefings";
import type { AppEnv } from "../../http/app-env";
import { cachedJson } from "../../http/cached-json";
import type {
  createMorningBriefing as createMorningBriefingRoute,
  getInventoryAlerts as getInventoryAlertsRoute,
  getMarketPulse as getMarketPulseRoute,
} from "./reports.routes";
import * as reports from "./reports.service";

export const getInventoryAlerts: RouteHandler<typeof getInventoryAlertsRoute, AppEnv> = async (c) => {
  return cachedJson(c, await reports.inventoryAlerts(c.env, c.get("db"), c.get("principal").orgId, c.req.valid("query"), new Date()));
};

export const createMorningBriefing: RouteHandler<typeof createMorningBriefingRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const briefing = await reports.morningBriefing(
    c.env,
    c.get("db"),
    {
      orgId: c.get("principal").orgId,
      role: body.role ?? DEFAULT_ROLE,
      storeId: body.store_id,
      lenderThresholdPts: c.get("config").lenderEnvironmentChangePts,
    },
    new Date(),
  );
  return cachedJson(c, briefing);
};

export const getMarketPulse: RouteHandler<typeof getMarketPulseRoute, AppEnv> = async (c) => {
  const pulse = await reports.marketPulse(c.get("db"), c.get("config").lenderEnvironmentChangePts, new Date());
  return cachedJson(c, pulse, { project: pulseBody });
};
