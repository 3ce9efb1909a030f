import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import type { appraiseTrade as appraiseTradeRoute } from "./appraisal.routes";
import * as appraisal from "./appraisal.service";
import { visionAnalyzerFrom } from "./appraisal.vision";

export const appraiseTrade: RouteHandler<typeof appraiseTradeRoute, AppEnv> = async (c) => {
  const { appraisalVisionModel, appraisalVisionTimeoutMs } = c.get("config");
  const db = c.get("db");
  const orgId = c.get("principal").orgId;
  const deps = {
    vision: visionAnalyzerFrom(c.env, appraisalVisionModel),
    visionTimeoutMs: appraisalVisionTimeoutMs,
    units: appraisal.comparablesElsewhere(c.env, db, orgId, c.get("storage")),
  };
  const result = await appraisal.appraiseTrade(db, orgId, c.req.valid("json"), deps, new Date());
  return c.json(result, 200);
};
