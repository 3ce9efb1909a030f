import { and, asc, desc, eq, gte, ne, type SQL, sql } from "drizzle-orm";
import { daysSince } from "../../engines/dates";
import type { Database, SqliteReader } from "../client";
import { deals, inventoryUnits, stores } from "../schema";

/** Where a page starts and what it is filtered by; every query is also scoped to one organization. */
export interface FeedQuery {
  storeId?: string;
  /** ISO-8601 UTC (as stored): rows whose updated_at is at or after it. */
  updatedSince?: string;
  limit: number;
}

/** The last unit of the previous page, in the page order of the query (see `listInventory`). */
export type InventoryAfter = { stockedOn: string; stockNumber: string } | { updatedAt: string; stockNumber: string };

const unitColumns = {
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
 * One page of the organization's inventory. Without `updatedSince`: units in stock, oldest in stock
 * first, then by stock number (unique in an organization), so the order is total and a page starts
 * right after the last unit of the one before. With `updatedSince`: every unit changed since then,
 * sold ones included, by (updated_at, stock number), so a unit changed during a walk shows again
 * at the end with its new values instead of being missed. Both orders end an index.
 */
export async function listInventory(db: SqliteReader, orgId: string, now: Date, query: FeedQuery, after?: InventoryAfter) {
  const u = inventoryUnits;
  const conditions: (SQL | undefined)[] = [eq(u.orgId, orgId), query.storeId === undefined ? undefined : eq(u.storeId, query.storeId)];
  let order: SQL[];
  if (query.updatedSince === undefined) {
    conditions.push(eq(u.status, "in_stock"));
    if (after && "stockedOn" in after) conditions.push(sql`(${u.stockedOn}, ${u.stockNumber}) > (${after.stockedOn}, ${after.stockNumber})`);
    order = [asc(u.stockedOn), asc(u.stockNumber)];
  } else {
    conditions.push(gte(u.updatedAt, query.updatedSince));
    if (after && "updatedAt" in after) conditions.push(sql`(${u.updatedAt}, ${u.stockNumber}) > (${after.updatedAt}, ${after.stockNumber})`);
    order = [asc(u.updatedAt), asc(u.stockNumber)];
  }
  const rows = await db
    .select(unitColumns)
    .from(u)
    .innerJoin(stores, and(eq(stores.id, u.storeId), eq(stores.orgId, u.orgId)))
    .where(and(...conditions))
    .orderBy(...order)
    .limit(query.limit);
  return rows.map((unit) => ({ ...unit, daysInStock: daysSince(unit.stockedOn, now) }));
}

/** The last row of the previous sales-summary page. */
export interface SalesSummaryAfter {
  saleMonth: string;
  store: string;
  storeId: string;
}

const saleMonth = sql<string>`substr(${deals.soldOn}, 1, 7)`;

/**
 * Units and total gross (front + back) per store and month of sale; unwound deals are not sales.
 * Most recent month first, then by store name and id, which no two rows share.
 *
 * With `updatedSince`, only the (store, month) rows holding a deal changed since then, each
 * recomputed whole; a row whose deals were all unwound meanwhile comes back with 0 units, so a
 * client holding it learns it is gone. The changed deals are found by index first; then only the
 * deals of their stores from the earliest changed month on are read.
 */
export async function salesSummary(db: Database, orgId: string, query: FeedQuery, after?: SalesSummaryAfter) {
  const counted = sql`${deals.status} <> 'unwound'`;
  const conditions: (SQL | undefined)[] = [
    eq(deals.orgId, orgId),
    query.storeId === undefined ? undefined : eq(deals.storeId, query.storeId),
    query.updatedSince === undefined ? ne(deals.status, "unwound") : undefined,
  ];
  if (query.updatedSince !== undefined) {
    const changedDeals = sql`FROM ${deals} c WHERE c.org_id = ${orgId} AND c.updated_at >= ${query.updatedSince}${
      query.storeId === undefined ? sql`` : sql` AND c.store_id = ${query.storeId}`
    }`;
    conditions.push(sql`(${deals.storeId}, ${saleMonth}) IN (SELECT DISTINCT c.store_id, substr(c.sold_on, 1, 7) ${changedDeals})`);
    // Changes are mostly in recent months: starting at the earliest changed month ('YYYY-MM' sorts
    // before its first day) keeps the read to those months' deals of the changed stores.
    conditions.push(sql`${deals.soldOn} >= (SELECT substr(min(c.sold_on), 1, 7) ${changedDeals})`);
  }
  if (after) {
    // The range lets the (org, sold_on) index skip the months already paged.
    conditions.push(sql`${deals.soldOn} < ${`${after.saleMonth}-99`}`);
    conditions.push(
      sql`(${saleMonth} < ${after.saleMonth} OR (${saleMonth} = ${after.saleMonth} AND (${stores.name}, ${deals.storeId}) > (${after.store}, ${after.storeId})))`,
    );
  }
  return db
    .select({
      store: stores.name,
      storeId: deals.storeId,
      saleMonth,
      units: sql<number>`coalesce(sum(${counted}), 0)`,
      totalGross: sql<number>`round(total(CASE WHEN ${counted} THEN ${deals.frontGross} + ${deals.backGross} END), 2)`,
      updatedAt: sql<string>`max(${deals.updatedAt})`,
    })
    .from(deals)
    .innerJoin(stores, and(eq(stores.id, deals.storeId), eq(stores.orgId, deals.orgId)))
    .where(and(...conditions))
    .groupBy(deals.storeId, saleMonth)
    .orderBy(desc(saleMonth), asc(stores.name), asc(deals.storeId))
    .limit(query.limit);
}
