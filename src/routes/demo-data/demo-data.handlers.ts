import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import type { openDemoData as openDemoDataRoute } from "./demo-data.routes";
import * as demoData from "./demo-data.service";

export const openDemoData: RouteHandler<typeof openDemoDataRoute, AppEnv> = async (c) =>
  c.json(await demoData.openDemoData(c.env, c.get("db"), c.req.valid("param").org_id, new Date()), 200);
