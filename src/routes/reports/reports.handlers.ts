import type { RouteHandler } from "@hono/zod-openapi";
import { pulseBody } from "../../engines/reports/bodies";
import { DEFAULT_ROLE } from "../../engines/reports/briefings";
import type { AppEnv } from "../../http/app-env";
import { cachedJson } from "../../http/cached-json";
import { inBackground } from "../../lib/background";
import type {
  createMorningBriefing as createMorningBriefingRoute,
  getInventoryAlerts as getInventoryAlertsRoute,
  getMarketPulse as getMarketPulseRoute,
} from "./reports.routes";
import * as reports from "./reports.service";

export const getInventoryAlerts: RouteHandler<typeof getInventoryAlertsRoute, AppEnv> = async (c) => {
  const [db, orgId] = [c.get("db"), c.get("principal").orgId];
  const elsewhere = reports.unitsElsewhere(c.env, db, orgId, c.get("storage"));
  return cachedJson(
    c,
    await reports.inventoryAlerts(db, orgId, c.req.valid("query"), new Date(), inBackground(c.executionCtx, "alert_totals_not_stored"), elsewhere),
  );
};

export const createMorningBriefing: RouteHandler<typeof createMorningBriefingRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const [db, orgId] = [c.get("db"), c.get("principal").orgId];
  const briefing = await reports.morningBriefing(
    c.env,
    db,
    {
      orgId,
      role: body.role ?? DEFAULT_ROLE,
      storeId: body.store_id,
      lenderThresholdPts: c.get("config").lenderEnvironmentChangePts,
      storage: c.get("storage"),
    },
    new Date(),
  );
  return cachedJson(c, briefing);
};

export const getMarketPulse: RouteHandler<typeof getMarketPulseRoute, AppEnv> = async (c) => {
  const pulse = await reports.marketPulse(c.get("db"), c.get("config").lenderEnvironmentChangePts, new Date());
  return cachedJson(c, pulse, { project: pulseBody });
};
