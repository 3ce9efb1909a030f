import type { Database } from "../../db/client";
import * as feeds from "../../db/queries/feeds";
import { findOrgStore } from "../../db/queries/reports";
import { decodeCursor, encodeCursor, type FeedCursor } from "../../http/cursor";
import { ApiError } from "../../http/errors";
import { TtlCache } from "../../lib/ttl-cache";

/** The most rows one answer holds: the contract's caps (docs/feeds.md), with or without paging. */
export const INVENTORY_PAGE_MAX = 500;
export const SALES_SUMMARY_PAGE_MAX = 200;

/** The query parameters of either feed, as validated by the route. */
export interface FeedParams {
  store_id?: string;
  updated_since?: string;
  limit?: number;
  cursor?: string;
}

/** A call with none of the parameters is the contract's call: the cached, unpaged answer. */
export const isPlainCall = (params: FeedParams) => Object.values(params).every((value) => value === undefined);

interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

/**
 * The shared part of a paged read: checks the store, normalizes `updated_since`, reads the
 * cursor, then asks for one row more than the page to learn whether another page follows.
 */
async function readPage<T>(
  db: Database,
  orgId: string,
  feed: FeedCursor["feed"],
  params: FeedParams,
  pageMax: number,
  read: (query: feeds.FeedQuery, after: string[] | undefined) => Promise<T[]>,
  sortKey: (row: T) => string[],
): Promise<Page<T>> {
  if (params.store_id !== undefined && !(await findOrgStore(db, orgId, params.store_id))) {
    throw new ApiError("not_found", "This organization has no store with that id.");
  }
  const since = params.updated_since === undefined ? undefined : new Date(params.updated_since).toISOString();
  const scope = { feed, org: orgId, store: params.store_id ?? null, since: since ?? null };
  const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor, scope);
  const limit = params.limit ?? pageMax;
  const rows = await read({ storeId: params.store_id, updatedSince: since, limit: limit + 1 }, after);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ ...scope, after: sortKey(last) }) : null;
  return { rows: page, nextCursor };
}

/** Reads one page of units; D1's query by default, an organization's storage object in the prototype (docs/scaling.md). */
export type InventoryReader = (
  orgId: string,
  now: Date,
  query: feeds.FeedQuery,
  after?: feeds.InventoryAfter,
) => ReturnType<typeof feeds.listInventory>;

export function inventoryPage(db: Database, orgId: string, now: Date, params: FeedParams, read?: InventoryReader) {
  const changes = params.updated_since !== undefined;
  return readPage(
    db,
    orgId,
    "inventory",
    params,
    INVENTORY_PAGE_MAX,
    (query, after) => {
      const [key, stockNumber] = after ?? [];
      const position = after === undefined ? undefined : changes ? { updatedAt: key, stockNumber } : { stockedOn: key, stockNumber };
      return read ? read(orgId, now, query, position) : feeds.listInventory(db, orgId, now, query, position);
    },
    (unit) => [changes ? unit.updatedAt : unit.stockedOn, unit.stockNumber],
  );
}

export function salesSummaryPage(db: Database, orgId: string, params: FeedParams) {
  return readPage(
    db,
    orgId,
    "sales-summary",
    params,
    SALES_SUMMARY_PAGE_MAX,
    (query, after) => {
      const position = after === undefined ? undefined : { saleMonth: after[0], store: after[1], storeId: after[2] ?? "" };
      return feeds.salesSummary(db, orgId, query, position);
    },
    (row) => [row.saleMonth, row.store, row.storeId],
  );
}

/**
 * Dealer tools poll these feeds, and the data behind them changes a few times a day, so each
 * isolate answers an organization's repeat reads from memory for a few seconds instead of asking
 * D1 every time. Clients must not cache: the URL is the same for every key, and each response
 * carries that call's quota figures. Only the call without parameters is cached: a sync that
 * pages or asks for changes must see the database as it is, page after page (docs/feeds.md).
 */
export const FEED_MAX_AGE_SECONDS = 10;
const FEED_CACHE = { ttlMs: FEED_MAX_AGE_SECONDS * 1000, maxEntries: 256 };

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

const inventoryFeeds = new TtlCache<{ count: number; inventory: ReturnType<typeof contractUnit>[] }>(FEED_CACHE);
type SalesSummaryRow = Awaited<ReturnType<typeof feeds.salesSummary>>[number];
const salesSummaryFeeds = new TtlCache<{ count: number; salesSummary: Pick<SalesSummaryRow, "store" | "saleMonth" | "units" | "totalGross">[] }>(
  FEED_CACHE,
);

/** The inventory feed: for a plain call the cached contract answer (`cached`), else one page read now. */
export async function inventoryFeed(db: Database, orgId: string, now: Date, params: FeedParams) {
  if (isPlainCall(params)) {
    const feed = await inventoryFeeds.get(orgId, now.getTime(), async () => {
      const units = await feeds.listInventory(db, orgId, now, { limit: INVENTORY_PAGE_MAX });
      return { count: units.length, inventory: units.map(contractUnit) };
    });
    return { cached: feed };
  }
  return { page: await inventoryPageAnswer(db, orgId, now, params) };
}

/** One page of the inventory feed as the paged call answers it. */
export async function inventoryPageAnswer(db: Database, orgId: string, now: Date, params: FeedParams, read?: InventoryReader) {
  const page = await inventoryPage(db, orgId, now, params, read);
  const inStock = page.rows.filter((u) => u.status === "in_stock");
  const removed = page.rows.filter((u) => u.status !== "in_stock");
  return {
    count: inStock.length,
    inventory: inStock.map((u) => ({ ...contractUnit(u), store_id: u.storeId, updated_at: u.updatedAt })),
    ...(params.updated_since === undefined
      ? {}
      : { removed: removed.map((u) => ({ stock_number: u.stockNumber, store: u.store, store_id: u.storeId, updated_at: u.updatedAt })) }),
    has_more: page.nextCursor !== null,
    next_cursor: page.nextCursor,
  };
}

/** The sales summary: for a plain call the cached contract answer (`cached`), else one page read now. */
export async function salesSummaryFeed(db: Database, orgId: string, now: Date, params: FeedParams) {
  if (isPlainCall(params)) {
    const feed = await salesSummaryFeeds.get(orgId, now.getTime(), async () => {
      const rows = await feeds.salesSummary(db, orgId, { limit: SALES_SUMMARY_PAGE_MAX });
      return { count: rows.length, salesSummary: rows.map(({ store, saleMonth, units, totalGross }) => ({ store, saleMonth, units, totalGross })) };
    });
    return { cached: feed };
  }
  const page = await salesSummaryPage(db, orgId, params);
  return {
    page: {
      count: page.rows.length,
      salesSummary: page.rows.map(({ storeId, updatedAt, ...row }) => ({ ...row, store_id: storeId, updated_at: updatedAt })),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
    },
  };
}
