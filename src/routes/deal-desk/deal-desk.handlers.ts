import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import type {
  calculateGross as calculateGrossRoute,
  checkStips as checkStipsRoute,
  coachDeal as coachDealRoute,
  routeLender as routeLenderRoute,
} from "./deal-desk.routes";
import * as deskService from "./deal-desk.service";

export const routeLender: RouteHandler<typeof routeLenderRoute, AppEnv> = async (c) =>
  c.json(await deskService.routeLender(c.env, c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date()), 200);

export const checkStips: RouteHandler<typeof checkStipsRoute, AppEnv> = async (c) =>
  c.json(await deskService.checkStips(c.env, c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date()), 200);

export const calculateGross: RouteHandler<typeof calculateGrossRoute, AppEnv> = async (c) =>
  c.json(await deskService.calculateGross(c.env, c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date()), 200);

export const coachDeal: RouteHandler<typeof coachDealRoute, AppEnv> = async (c) =>
  c.json(await deskService.coachDeal(c.env, c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date()), 200);
