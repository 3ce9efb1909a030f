import { and, asc, desc, eq, gt, gte, lte, type SQL, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import { readRowArrays, type SqliteReader, type SqlTemplate } from "../client";
import { inventoryUnits, salesMonthly } from "../org-schema";
import { stores } from "../schema";

/** Where a page starts and what it is filtered by; every query is also scoped to one organization. */
export interface FeedQuery {
  storeId?: string;
  /** ISO-8601 UTC (as stored): rows whose updated_at is at or after it. */
  updatedSince?: string;
  limit: number;
}

/** The last unit of the previous page, in the page order of the query (see `listInventory`). */
export type InventoryAfter = { stockedOn: string; stockNumber: string } | { updatedAt: string; stockNumber: string };

/** The columns of an inventory page, in its rows' order (the bench's `metered_page` floor selects the same). */
const inventoryPageColumns = {
  stockNumber: inventoryUnits.stockNumber,
  vin: inventoryUnits.vin,
  year: inventoryUnits.year,
  make: inventoryUnits.make,
  model: inventoryUnits.model,
  trim: inventoryUnits.trim,
  condition: inventoryUnits.condition,
  stockedOn: inventoryUnits.stockedOn,
  askingPrice: inventoryUnits.askingPrice,
  store: stores.name,
  storeId: inventoryUnits.storeId,
  status: inventoryUnits.status,
  // Never null: migration 0020's insert trigger fills it.
  updatedAt: sql<string>`${inventoryUnits.updatedAt}`,
};

/**
 * A unit as `listInventory` reads it: one array in `inventoryPageColumns`' order. The feeds answer pages of
 * 100 to 500 units, so rows stay arrays until the answer is built from them, once (BENCHMARKS.md, "Profiles").
 */
export type UnitRow = [
  stockNumber: string,
  vin: string,
  year: number,
  make: string,
  model: string,
  trim: string,
  condition: (typeof inventoryUnits.condition.enumValues)[number],
  stockedOn: string,
  askingPrice: number,
  store: string,
  storeId: string,
  status: (typeof inventoryUnits.status.enumValues)[number],
  updatedAt: string,
];

const queryBuilder = new QueryBuilder();
const value = (name: string) => sql.placeholder(name);
const inventoryStatements = new Map<string, SqlTemplate>();

/** The statement of one kind of page (by store or not, by change or not, first page or not), built on its first use. */
function inventoryStatement(byStore: boolean, byChange: boolean, afterRow: boolean): SqlTemplate {
  const shape = `${byStore} ${byChange} ${afterRow}`;
  let statement = inventoryStatements.get(shape);
  if (statement) return statement;
  const u = inventoryUnits;
  const conditions: (SQL | undefined)[] = [eq(u.orgId, value("orgId")), byStore ? eq(u.storeId, value("storeId")) : undefined];
  let order: SQL[];
  if (!byChange) {
    conditions.push(eq(u.status, "in_stock"));
    if (afterRow) conditions.push(sql`(${u.stockedOn}, ${u.stockNumber}) > (${value("afterKey")}, ${value("afterStockNumber")})`);
    order = [asc(u.stockedOn), asc(u.stockNumber)];
  } else {
    conditions.push(gte(u.updatedAt, value("updatedSince")));
    if (afterRow) conditions.push(sql`(${u.updatedAt}, ${u.stockNumber}) > (${value("afterKey")}, ${value("afterStockNumber")})`);
    order = [asc(u.updatedAt), asc(u.stockNumber)];
  }
  statement = queryBuilder
    .select(inventoryPageColumns)
    .from(u)
    .innerJoin(stores, and(eq(stores.id, u.storeId), eq(stores.orgId, u.orgId)))
    .where(and(...conditions))
    .orderBy(...order)
    .limit(value("limit"))
    .toSQL();
  inventoryStatements.set(shape, statement);
  return statement;
}

/** The ordering key the page starts after: the last row's change time or stocking date, whichever the page is ordered by. */
function pageStartKey(after: InventoryAfter | undefined, byChange: boolean): string | undefined {
  if (after === undefined) return undefined;
  if (byChange) return "updatedAt" in after ? after.updatedAt : undefined;
  return "stockedOn" in after ? after.stockedOn : undefined;
}

/**
 * One page of the organization's inventory. Without `updatedSince`: units in stock, oldest in stock
 * first, then by stock number (unique in an organization), so the order is total and a page starts
 * right after the last unit of the one before. With `updatedSince`: every unit changed since then,
 * sold ones included, by (updated_at, stock number), so a unit changed during a walk shows again
 * at the end with its new values instead of being missed. Both orders end an index.
 */
export function listInventory(db: SqliteReader, orgId: string, query: FeedQuery, after?: InventoryAfter): Promise<UnitRow[]> {
  const byChange = query.updatedSince !== undefined;
  const afterKey = pageStartKey(after, byChange);
  const statement = inventoryStatement(query.storeId !== undefined, byChange, afterKey !== undefined);
  return readRowArrays<UnitRow>(db, statement, {
    orgId,
    storeId: query.storeId,
    updatedSince: query.updatedSince,
    afterKey,
    afterStockNumber: after?.stockNumber,
    limit: query.limit,
  });
}

/** The last row of the previous sales-summary page. */
export interface SalesSummaryAfter {
  saleMonth: string;
  store: string;
  storeId: string;
}

/** A row of the sales summary: a store's month. */
export interface SalesSummaryRow {
  store: string;
  storeId: string;
  saleMonth: string;
  units: number;
  totalGross: number;
  updatedAt: string;
}

/**
 * Units and total gross (front + back) per store and month of sale; unwound deals are not sales.
 * Most recent month first, then by store name and id, which no two rows share.
 *
 * With `updatedSince`, only the (store, month) rows holding a deal changed since then, each
 * recomputed whole; a row whose deals were all unwound meanwhile comes back with 0 units, so a
 * client holding it learns it is gone. Both read `sales_monthly` (one row per store and month,
 * kept by triggers on `deals`) by index in the page order: a page reads the rows it returns.
 */
export async function salesSummary(db: SqliteReader, orgId: string, query: FeedQuery, after?: SalesSummaryAfter): Promise<SalesSummaryRow[]> {
  const m = salesMonthly;
  const conditions: (SQL | undefined)[] = [
    eq(m.orgId, orgId),
    query.storeId === undefined ? undefined : eq(m.storeId, query.storeId),
    query.updatedSince === undefined ? gt(m.units, 0) : gte(m.updatedAt, query.updatedSince),
  ];
  if (after) {
    conditions.push(lte(m.saleMonth, after.saleMonth));
    conditions.push(
      sql`(${m.saleMonth} < ${after.saleMonth} OR (${m.saleMonth} = ${after.saleMonth} AND (${stores.name}, ${m.storeId}) > (${after.store}, ${after.storeId})))`,
    );
  }
  return db
    .select({
      store: stores.name,
      storeId: m.storeId,
      saleMonth: m.saleMonth,
      units: m.units,
      totalGross: m.totalGross,
      // Unpaged, a row's time is its sales' latest change; with updatedSince, any deal's (an unwind too).
      updatedAt: query.updatedSince === undefined ? sql<string>`${m.soldUpdatedAt}` : m.updatedAt,
    })
    .from(m)
    .innerJoin(stores, and(eq(stores.id, m.storeId), eq(stores.orgId, m.orgId)))
    .where(and(...conditions))
    .orderBy(desc(m.saleMonth), asc(stores.name), asc(m.storeId))
    .limit(query.limit);
}
