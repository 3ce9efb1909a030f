import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { cachedJson } from "../../http/cached-json";
import type { getSalesSummary as getSalesSummaryRoute, listInventory as listInventoryRoute } from "./feeds.routes";
import { inventoryFeed, salesSummaryFeed } from "./feeds.service";

export const listInventory: RouteHandler<typeof listInventoryRoute, AppEnv> = async (c) => {
  const feed = await inventoryFeed(c.env, c.get("db"), c.get("principal").orgId, new Date(), c.req.valid("query"));
  return feed.cached ? cachedJson<typeof feed.cached>(c, feed.cached) : c.json(feed.page, 200);
};

export const getSalesSummary: RouteHandler<typeof getSalesSummaryRoute, AppEnv> = async (c) => {
  const feed = await salesSummaryFeed(c.env, c.get("db"), c.get("principal").orgId, new Date(), c.req.valid("query"));
  return feed.cached ? cachedJson<typeof feed.cached>(c, feed.cached) : c.json(feed.page, 200);
};
