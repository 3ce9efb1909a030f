/**
 * An organization's own SQLite, inside its storage object (src/durable-objects/org-storage.ts,
 * docs/scaling.md): opened and migrated when the object starts, then read and written by the same
 * query modules as D1. Everything here is synchronous SQLite under the hood, so an operation runs
 * whole before the object takes its next call.
 */
import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations-org/migrations";
import type { SnapshotSafety } from "../engines/ingest";
import { inventoryUnits, storageOwner, stores, unitMarketValues } from "./org-schema";
import { markAbsentUnitsSold, planSnapshot, type SnapshotUnit, upsertUnits } from "./queries/ingest";

export { comparableUnits } from "./queries/appraisal";
// The object loads this one module when it starts: what it runs, on its own SQLite.
export { listInventory } from "./queries/feeds";
export { groupDigest, readStoreNames, readUnitPage } from "./queries/org-storage";
export { alertUnitPage, unitsInStock } from "./queries/reports";

export type OrgStoreDb = DrizzleSqliteDODatabase;

/** Rows as a move's copy carries them (every column) or a seed makes them (columns with defaults may be left out). */
export type UnitToLoad = typeof inventoryUnits.$inferInsert;
export type MarketValueToLoad = typeof unitMarketValues.$inferInsert;

/** The client on the object's storage, its schema brought to the bundled version (migrations-org/). */
export async function openOrgStore(storage: DurableObjectStorage, journal = migrations): Promise<OrgStoreDb> {
  const db = drizzle(storage);
  await migrate(db, journal);
  return db;
}

/** Whose object this is and whether it serves; undefined before its first call. */
export function readOwner(db: OrgStoreDb): { orgId: string; active: boolean } | undefined {
  return db.select().from(storageOwner).get();
}

export function claimOwner(db: OrgStoreDb, orgId: string): void {
  db.insert(storageOwner).values({ orgId, active: false }).run();
}

export function setActive(db: OrgStoreDb, active: boolean): void {
  db.update(storageOwner).set({ active }).run();
}

/** The object's copy of the directory's store names, replaced whole (the feed joins them). */
function replaceStores(db: OrgStoreDb, orgId: string, names: readonly { id: string; name: string }[]): void {
  db.delete(stores).run();
  for (const store of names) db.insert(stores).values({ id: store.id, orgId, name: store.name }).run();
}

/**
 * A snapshot of one store applied here, as D1's ingestion applies it (src/db/queries/ingest.ts):
 * refused with the same counts, or written in one transaction with the directory's store names.
 */
export async function applySnapshot(
  db: OrgStoreDb,
  orgId: string,
  names: readonly { id: string; name: string }[],
  storeId: string,
  units: SnapshotUnit[],
  safety: SnapshotSafety,
) {
  const plan = await planSnapshot(db, orgId, storeId, units, safety);
  if (plan.refusal) return plan;
  const removed = db.transaction(() => {
    replaceStores(db, orgId, names);
    const sold = (markAbsentUnitsSold(db, orgId, storeId, plan.listed) as unknown as { all(): unknown[] }).all();
    for (const statement of upsertUnits(db, orgId, storeId, plan.changed)) (statement as unknown as { run(): void }).run();
    return sold.length;
  });
  return { refusal: null, created: plan.created, updated: plan.updated, removed };
}

/** The first page of a move (or a sandbox's seed) empties the group's tables, so a move run again after a failure starts clean. */
export function loadPage(
  db: OrgStoreDb,
  orgId: string,
  names: readonly { id: string; name: string }[],
  units: readonly UnitToLoad[],
  values: readonly MarketValueToLoad[],
  first: boolean,
): void {
  db.transaction(() => {
    if (first) {
      db.delete(unitMarketValues).run();
      db.delete(inventoryUnits).run();
      replaceStores(db, orgId, names);
    }
    // Every column as D1 holds it, updated_at included, so the insert trigger leaves it be.
    for (const unit of units) db.insert(inventoryUnits).values(unit).run();
    for (const value of values) db.insert(unitMarketValues).values(value).run();
  });
}
