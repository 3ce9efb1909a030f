import type { Database } from "../../db/client";
import type * as feeds from "../../db/queries/feeds";
import { findOrgStore } from "../../db/queries/reports";
import type { FeedReceipts } from "../../db/queries/signals";
import { orgStore } from "../../durable-objects/org-storage-routing";
import { daysSince } from "../../engines/dates";
import { decodeCursor, encodeCursor, type FeedCursor } from "../../http/cursor";
import { dataAsOfOf } from "../../http/data-as-of";
import { DomainError } from "../../lib/domain-error";
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
const isPlainCall = (params: FeedParams) => Object.values(params).every((value) => value === undefined);

interface Page<T> extends Read<T> {
  nextCursor: string | null;
}

/** A page's rows with the receipts of its stores' feeds (its `data_as_of`), read together in the organization's object. */
interface Read<T> {
  rows: T[];
  receipts: FeedReceipts;
}

/**
 * The shared part of a paged read: normalizes `updated_since`, reads the cursor, then asks for one
 * row more than the page to learn whether another page follows. Rows come only from the
 * organization's own stores (both queries join them), so the store is looked up only when there
 * are none: an unknown store is then a 404, as it is before a cursor is judged.
 */
async function readPage<T>(
  db: Database,
  orgId: string,
  feed: FeedCursor["feed"],
  params: FeedParams,
  pageMax: number,
  read: (query: feeds.FeedQuery, after: string[] | undefined) => Promise<Read<T>>,
  sortKey: (row: T) => string[],
): Promise<Page<T>> {
  const requireStore = async () => {
    if (params.store_id !== undefined && !(await findOrgStore(db, orgId, params.store_id))) {
      throw new DomainError("not_found", "This organization has no store with that id.");
    }
  };
  const since = params.updated_since === undefined ? undefined : new Date(params.updated_since).toISOString();
  const scope = { feed, org: orgId, store: params.store_id ?? null, since: since ?? null };
  let after: string[] | undefined;
  try {
    after = params.cursor === undefined ? undefined : decodeCursor(params.cursor, scope);
  } catch (error) {
    await requireStore();
    throw error;
  }
  const limit = params.limit ?? pageMax;
  const { rows, receipts } = await read({ storeId: params.store_id, updatedSince: since, limit: limit + 1 }, after);
  if (rows.length === 0) await requireStore();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ ...scope, after: sortKey(last) }) : null;
  return { rows: page, nextCursor, receipts };
}

/**
 * One page of the organization's units with the receipts of their stores' feeds, from its storage
 * object: one call per page (docs/scaling.md).
 */
export function inventoryPage(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, params: FeedParams) {
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
      // The cast: RPC's types widen the row tuple to an array.
      return orgStore(env, orgId).inventoryPage(orgId, query, position) as unknown as Promise<Read<feeds.UnitRow>>;
    },
    ([stockNumber, , , , , , , stockedOn, , , , , updatedAt]) => [changes ? updatedAt : stockedOn, stockNumber],
  );
}

/** One page of the organization's sales rollup with its feeds' receipts, as `inventoryPage` reads its units. */
function salesSummaryPage(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, params: FeedParams) {
  return readPage(
    db,
    orgId,
    "sales-summary",
    params,
    SALES_SUMMARY_PAGE_MAX,
    (query, after) =>
      orgStore(env, orgId).salesSummaryPage(
        orgId,
        query,
        after === undefined ? undefined : { saleMonth: after[0], store: after[1], storeId: after[2] ?? "" },
      ) as Promise<Read<feeds.SalesSummaryRow>>,
    (row) => [row.saleMonth, row.store, row.storeId],
  );
}

/**
 * Dealer tools poll these feeds, and the data behind them changes a few times a day, so each
 * isolate answers an organization's repeat reads from memory for a few seconds instead of asking
 * its storage object every time. Clients must not cache: the URL is the same for every key, and
 * each response carries that call's quota figures. Only the call without parameters is cached: a sync that
 * pages or asks for changes must see the database as it is, page after page (docs/feeds.md).
 */
export const FEED_MAX_AGE_SECONDS = 10;
const FEED_CACHE = { ttlMs: FEED_MAX_AGE_SECONDS * 1000, maxEntries: 256 };

/** A unit as the contract's call answers it, straight from its row (the fields in the answer's order). */
const contractUnit = ([stock_number, vin, year, make, model, trim, condition, stockedOn, asking_price, store]: feeds.UnitRow, now: Date) => ({
  stock_number,
  vin,
  year,
  make,
  model,
  trim,
  condition,
  days_in_stock: daysSince(stockedOn, now),
  asking_price,
  store,
});

/** A unit as a call with parameters answers it: the contract's fields, then its store's id and change time. */
const pagedUnit = (
  [stock_number, vin, year, make, model, trim, condition, stockedOn, asking_price, store, store_id, , updated_at]: feeds.UnitRow,
  now: Date,
) => ({ stock_number, vin, year, make, model, trim, condition, days_in_stock: daysSince(stockedOn, now), asking_price, store, store_id, updated_at });

/** A plain call's answer is capped like a page: past the cap it says so, and hands on the cursor of the next page. */
type CapSign = { has_more?: true; next_cursor?: string };
const capSign = ({ nextCursor }: Page<unknown>): CapSign => (nextCursor === null ? {} : { has_more: true, next_cursor: nextCursor });

type Ages = ReturnType<typeof dataAsOfOf>;
const inventoryFeeds = new TtlCache<{ count: number; inventory: ReturnType<typeof contractUnit>[] } & CapSign & Ages>(FEED_CACHE);
const salesSummaryFeeds = new TtlCache<
  { count: number; salesSummary: Pick<feeds.SalesSummaryRow, "store" | "saleMonth" | "units" | "totalGross">[] } & CapSign & Ages
>(FEED_CACHE);

/** The inventory feed: for a plain call the cached contract answer (`cached`), else one page read now. */
export async function inventoryFeed(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, now: Date, params: FeedParams) {
  if (isPlainCall(params)) {
    const feed = await inventoryFeeds.get(orgId, now.getTime(), async () => {
      const page = await inventoryPage(env, db, orgId, params);
      const inventory = page.rows.map((unit) => contractUnit(unit, now));
      return { count: page.rows.length, inventory, ...capSign(page), ...dataAsOfOf(page.receipts, ["inventory"], now) };
    });
    return { cached: feed };
  }
  return { page: await inventoryPageAnswer(env, db, orgId, now, params) };
}

/** One page of the inventory feed as the paged call answers it. */
async function inventoryPageAnswer(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, now: Date, params: FeedParams) {
  // The page and the feed's age are read together (`Read`): one object call.
  const page = await inventoryPage(env, db, orgId, params);
  const inventory: ReturnType<typeof pagedUnit>[] = [];
  const removed: { stock_number: string; store: string; store_id: string; updated_at: string }[] = [];
  for (const row of page.rows) {
    const [stock_number, , , , , , , , , store, store_id, status, updated_at] = row;
    if (status === "in_stock") inventory.push(pagedUnit(row, now));
    else removed.push({ stock_number, store, store_id, updated_at });
  }
  return {
    count: inventory.length,
    inventory,
    ...(params.updated_since === undefined ? {} : { removed }),
    has_more: page.nextCursor !== null,
    next_cursor: page.nextCursor,
    ...dataAsOfOf(page.receipts, ["inventory"], now),
  };
}

/** The sales summary: for a plain call the cached contract answer (`cached`), else one page read now. */
export async function salesSummaryFeed(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, now: Date, params: FeedParams) {
  if (isPlainCall(params)) {
    const feed = await salesSummaryFeeds.get(orgId, now.getTime(), async () => {
      const page = await salesSummaryPage(env, db, orgId, params);
      const salesSummary = page.rows.map(({ store, saleMonth, units, totalGross }) => ({ store, saleMonth, units, totalGross }));
      return { count: page.rows.length, salesSummary, ...capSign(page), ...dataAsOfOf(page.receipts, ["deals"], now) };
    });
    return { cached: feed };
  }
  const page = await salesSummaryPage(env, db, orgId, params);
  return {
    page: {
      count: page.rows.length,
      salesSummary: page.rows.map(({ storeId, updatedAt, ...row }) => ({ ...row, store_id: storeId, updated_at: updatedAt })),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
      ...dataAsOfOf(page.receipts, ["deals"], now),
    },
  };
}
