import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import type {
  calculateGross as calculateGrossRoute,
  checkStips as checkStipsRoute,
  coachDeal as coachDealRoute,
  routeLender as routeLenderRoute,
} from "./deal-desk.routes";
import * as deskService from "./deal-desk.service";

/** Where the organization's lender decisions are read, when not in D1 (its storage object). */
const historyOf = (c: Context<AppEnv>) => deskService.lenderHistoryElsewhere(c.env, c.get("db"), c.get("principal").orgId, c.get("storage"));

export const routeLender: RouteHandler<typeof routeLenderRoute, AppEnv> = async (c) =>
  c.json(await deskService.routeLender(c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date(), historyOf(c)), 200);

export const checkStips: RouteHandler<typeof checkStipsRoute, AppEnv> = async (c) =>
  c.json(await deskService.checkStips(c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date(), historyOf(c)), 200);

export const calculateGross: RouteHandler<typeof calculateGrossRoute, AppEnv> = async (c) =>
  c.json(await deskService.calculateGross(c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date(), historyOf(c)), 200);

export const coachDeal: RouteHandler<typeof coachDealRoute, AppEnv> = async (c) =>
  c.json(await deskService.coachDeal(c.get("db"), c.get("principal").orgId, c.req.valid("json"), new Date(), historyOf(c)), 200);
