import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { cachedJson } from "../../http/cached-json";
import type { getSalesSummary as getSalesSummaryRoute, listInventory as listInventoryRoute } from "./feeds.routes";
import { inventoryFeed, salesSummaryFeed, salesWhereStored, unitsWhereStored } from "./feeds.service";

export const listInventory: RouteHandler<typeof listInventoryRoute, AppEnv> = async (c) => {
  const db = c.get("db");
  const orgId = c.get("principal").orgId;
  const feed = await inventoryFeed(db, orgId, new Date(), c.req.valid("query"), unitsWhereStored(c.env, db, orgId, c.get("storage")));
  return feed.cached ? cachedJson<typeof feed.cached>(c, feed.cached) : c.json(feed.page, 200);
};

export const getSalesSummary: RouteHandler<typeof getSalesSummaryRoute, AppEnv> = async (c) => {
  const db = c.get("db");
  const orgId = c.get("principal").orgId;
  const feed = await salesSummaryFeed(db, orgId, new Date(), c.req.valid("query"), salesWhereStored(c.env, db, orgId, c.get("storage")));
  return feed.cached ? cachedJson<typeof feed.cached>(c, feed.cached) : c.json(feed.page, 200);
};
