import type { RouteHandler, z } from "@hono/zod-openapi";
import * as feeds from "../../db/queries/feeds";
import type { AppEnv } from "../../http/app-env";
import { cachedJson } from "../../http/cached-json";
import { TtlCache } from "../../lib/ttl-cache";
import type {
  getSalesSummary as getSalesSummaryRoute,
  InventoryFeedSchema,
  listInventory as listInventoryRoute,
  SalesSummaryFeedSchema,
} from "./feeds.routes";

const INVENTORY_LIMIT = 500;
const SALES_SUMMARY_LIMIT = 200;

/**
 * Dealer tools poll these feeds, and the data behind them changes a few times a day, so each
 * isolate answers an organization's repeat reads from memory for a few seconds instead of asking
 * D1 every time. Clients must not cache: the URL is the same for every key, and each response
 * carries that call's quota figures.
 */
export const FEED_MAX_AGE_SECONDS = 10;
const FEED_CACHE = { ttlMs: FEED_MAX_AGE_SECONDS * 1000, maxEntries: 256 };
const inventoryFeeds = new TtlCache<z.infer<typeof InventoryFeedSchema>>(FEED_CACHE);
const salesSummaryFeeds = new TtlCache<z.infer<typeof SalesSummaryFeedSchema>>(FEED_CACHE);

export const listInventory: RouteHandler<typeof listInventoryRoute, AppEnv> = async (c) => {
  const now = new Date();
  const feed = await inventoryFeeds.get(c.var.principal.orgId, now.getTime(), async () => {
    const units = await feeds.listInventory(c.var.db, c.var.principal.orgId, now, INVENTORY_LIMIT);
    return {
      count: units.length,
      inventory: units.map((u) => ({
        stock_number: u.stockNumber,
        vin: u.vin,
        year: u.year,
        make: u.make,
        model: u.model,
        trim: u.trim,
        condition: u.condition,
        days_in_stock: u.daysInStock,
        asking_price: u.askingPrice,
        store: u.store,
      })),
    };
  });
  return cachedJson(c, feed);
};

export const getSalesSummary: RouteHandler<typeof getSalesSummaryRoute, AppEnv> = async (c) => {
  const feed = await salesSummaryFeeds.get(c.var.principal.orgId, Date.now(), async () => {
    const rows = await feeds.salesSummary(c.var.db, c.var.principal.orgId, SALES_SUMMARY_LIMIT);
    return { count: rows.length, salesSummary: rows };
  });
  return cachedJson(c, feed);
};
