import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import type { appraiseTrade as appraiseTradeRoute } from "./appraisal.routes";
import * as appraisal from "./appraisal.service";
import { visionAnalyzerFrom } from "./appraisal.vision";

export const appraiseTrade: RouteHandler<typeof appraiseTradeRoute, AppEnv> = async (c) => {
  const { appraisalVisionModel, appraisalVisionTimeoutMs } = c.get("config");
  const deps = { vision: visionAnalyzerFrom(c.env, appraisalVisionModel), visionTimeoutMs: appraisalVisionTimeoutMs };
  const result = await appraisal.appraiseTrade(c.env, c.get("db"), c.get("principal").orgId, c.req.valid("json"), deps, new Date());
  return c.json(result, 200);
};
