import type { Database } from "../../db/client";
import * as feeds from "../../db/queries/feeds";
import { findOrgStore } from "../../db/queries/reports";
import { ApiError } from "../../http/errors";
import { decodeCursor, encodeCursor, type FeedCursor } from "./feed-cursor";

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

export function inventoryPage(db: Database, orgId: string, now: Date, params: FeedParams) {
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
      return feeds.listInventory(db, orgId, now, query, position);
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
