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
import { INVENTORY_PAGE_MAX, inventoryPage, isPlainCall, SALES_SUMMARY_PAGE_MAX, salesSummaryPage } from "./feeds.service";

/**
 * Dealer tools poll these feeds, and the data behind them changes a few times a day, so each
 * isolate answers an organization's repeat reads from memory for a few seconds instead of asking
 * D1 every time. Clients must not cache: the URL is the same for every key, and each response
 * carries that call's quota figures. Only the call without parameters is cached: a sync that
 * pages or asks for changes must see the database as it is, page after page (docs/feeds.md).
 */
export const FEED_MAX_AGE_SECONDS = 10;
const FEED_CACHE = { ttlMs: FEED_MAX_AGE_SECONDS * 1000, maxEntries: 256 };
const inventoryFeeds = new TtlCache<z.infer<typeof InventoryFeedSchema>>(FEED_CACHE);
const salesSummaryFeeds = new TtlCache<z.infer<typeof SalesSummaryFeedSchema>>(FEED_CACHE);

type UnitRow = Awaited<ReturnType<typeof feeds.listInventory>>[number];

const contractUnit = (u: UnitRow) => ({
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
});

export const listInventory: RouteHandler<typeof listInventoryRoute, AppEnv> = async (c) => {
  const now = new Date();
  const { db, principal } = c.var;
  const params = c.req.valid("query");
  if (isPlainCall(params)) {
    const feed = await inventoryFeeds.get(principal.orgId, now.getTime(), async () => {
      const units = await feeds.listInventory(db, principal.orgId, now, { limit: INVENTORY_PAGE_MAX });
      return { count: units.length, inventory: units.map(contractUnit) };
    });
    return cachedJson<typeof feed>(c, feed);
  }
  const page = await inventoryPage(db, principal.orgId, now, params);
  const inStock = page.rows.filter((u) => u.status === "in_stock");
  const removed = page.rows.filter((u) => u.status !== "in_stock");
  const body: z.infer<typeof InventoryFeedSchema> = {
    count: inStock.length,
    inventory: inStock.map((u) => ({ ...contractUnit(u), store_id: u.storeId, updated_at: u.updatedAt })),
    ...(params.updated_since === undefined
      ? {}
      : { removed: removed.map((u) => ({ stock_number: u.stockNumber, store: u.store, store_id: u.storeId, updated_at: u.updatedAt })) }),
    has_more: page.nextCursor !== null,
    next_cursor: page.nextCursor,
  };
  return c.json(body, 200);
};

export const getSalesSummary: RouteHandler<typeof getSalesSummaryRoute, AppEnv> = async (c) => {
  const { db, principal } = c.var;
  const params = c.req.valid("query");
  if (isPlainCall(params)) {
    const feed = await salesSummaryFeeds.get(principal.orgId, Date.now(), async () => {
      const rows = await feeds.salesSummary(db, principal.orgId, { limit: SALES_SUMMARY_PAGE_MAX });
      return { count: rows.length, salesSummary: rows.map(({ store, saleMonth, units, totalGross }) => ({ store, saleMonth, units, totalGross })) };
    });
    return cachedJson<typeof feed>(c, feed);
  }
  const page = await salesSummaryPage(db, principal.orgId, params);
  const body: z.infer<typeof SalesSummaryFeedSchema> = {
    count: page.rows.length,
    salesSummary: page.rows.map(({ storeId, updatedAt, ...row }) => ({ ...row, store_id: storeId, updated_at: updatedAt })),
    has_more: page.nextCursor !== null,
    next_cursor: page.nextCursor,
  };
  return c.json(body, 200);
};
