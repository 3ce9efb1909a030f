import { eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { inventoryUnits, stores } from "../schema";

/** The organization's stores and every unit, with the columns the inventory feed reads: what its storage object is loaded with. */
export async function orgInventorySnapshot(db: Database, orgId: string) {
  const u = inventoryUnits;
  const [storeRows, units] = await db.batch([
    db.select({ id: stores.id, name: stores.name }).from(stores).where(eq(stores.orgId, orgId)),
    db
      .select({
        id: u.id,
        storeId: u.storeId,
        stockNumber: u.stockNumber,
        vin: u.vin,
        year: u.year,
        make: u.make,
        model: u.model,
        trim: u.trim,
        condition: u.condition,
        stockedOn: u.stockedOn,
        askingPrice: u.askingPrice,
        status: u.status,
        // Never null: migration 0020's insert trigger fills it.
        updatedAt: sql<string>`${u.updatedAt}`,
      })
      .from(u)
      .where(eq(u.orgId, orgId)),
  ]);
  return { stores: storeRows, units };
}
