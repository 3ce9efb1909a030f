import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import type { Database } from "../client";
import { deals, inventoryUnits, stores } from "../schema";

const DAY_MS = 86_400_000;

/** Current inventory of one organization, oldest in stock first. */
export async function listInventory(db: Database, orgId: string, now: Date, limit: number) {
  const rows = await db
    .select({
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
    })
    .from(inventoryUnits)
    .innerJoin(stores, and(eq(stores.id, inventoryUnits.storeId), eq(stores.orgId, inventoryUnits.orgId)))
    .where(and(eq(inventoryUnits.orgId, orgId), eq(inventoryUnits.status, "in_stock")))
    .orderBy(asc(inventoryUnits.stockedOn), asc(inventoryUnits.stockNumber))
    .limit(limit);
  const today = Date.parse(now.toISOString().slice(0, 10));
  return rows.map(({ stockedOn, ...unit }) => ({
    ...unit,
    daysInStock: Math.max(0, Math.round((today - Date.parse(stockedOn)) / DAY_MS)),
  }));
}

/** Units and total gross (front + back) per store and month of sale; unwound deals are not sales. */
export async function salesSummary(db: Database, orgId: string, limit: number) {
  const saleMonth = sql<string>`substr(${deals.soldOn}, 1, 7)`;
  return db
    .select({
      store: stores.name,
      saleMonth,
      units: sql<number>`count(*)`,
      totalGross: sql<number>`round(sum(${deals.frontGross} + ${deals.backGross}), 2)`,
    })
    .from(deals)
    .innerJoin(stores, and(eq(stores.id, deals.storeId), eq(stores.orgId, deals.orgId)))
    .where(and(eq(deals.orgId, orgId), ne(deals.status, "unwound")))
    .groupBy(deals.storeId, saleMonth)
    .orderBy(desc(saleMonth), asc(stores.name))
    .limit(limit);
}
