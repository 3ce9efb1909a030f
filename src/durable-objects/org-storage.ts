import { DurableObject } from "cloudflare:workers";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { FeedQuery, InventoryAfter } from "../db/queries/feeds";

/** One unit as the D1 feed reads it: the columns `listInventory` selects, plus what keys and filters it. */
export interface OrgStorageUnit {
  id: string;
  storeId: string;
  stockNumber: string;
  vin: string;
  year: number;
  make: string;
  model: string;
  trim: string;
  condition: string;
  stockedOn: string;
  askingPrice: number;
  status: string;
  updatedAt: string;
}

export interface OrgStorageSnapshot {
  stores: { id: string; name: string }[];
  units: OrgStorageUnit[];
}

/**
 * The tables `listInventory` reads, with the columns it selects and D1's feed indexes (migrations
 * 0000 and 0020), so the same query finds the same plans here. Prototype only: units arrive whole
 * through `load`, so the D1 triggers that keep updated_at are not needed.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS stores (id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inventory_units (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, store_id TEXT NOT NULL REFERENCES stores(id), stock_number TEXT NOT NULL,
  vin TEXT NOT NULL, year INTEGER NOT NULL, make TEXT NOT NULL, model TEXT NOT NULL, trim TEXT NOT NULL,
  condition TEXT NOT NULL, stocked_on TEXT NOT NULL, asking_price REAL NOT NULL, status TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS inventory_org_stock_idx ON inventory_units (org_id, stock_number);
CREATE INDEX IF NOT EXISTS inventory_org_status_stocked_stock_idx ON inventory_units (org_id, status, stocked_on, stock_number);
CREATE INDEX IF NOT EXISTS inventory_org_store_status_stocked_idx ON inventory_units (org_id, store_id, status, stocked_on, stock_number);
CREATE INDEX IF NOT EXISTS inventory_org_updated_idx ON inventory_units (org_id, updated_at, stock_number);
CREATE TABLE IF NOT EXISTS owner (org_id TEXT NOT NULL);
`;

export class OrgStorageMismatchError extends Error {
  constructor() {
    super("This storage object holds another organization's data.");
    this.name = "OrgStorageMismatchError";
  }
}

/**
 * Prototype of per-organization storage (docs/scaling.md): one SQLite-backed object per
 * organization (`idFromName(orgId)`) holding its inventory, read by the same query module as D1.
 * The object remembers whose it is at its first load and refuses every call for another
 * organization, so a routing mistake fails instead of answering with the wrong data.
 */
export class OrgStorage extends DurableObject<Env> {
  private db?: DrizzleSqliteDODatabase;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ctx.storage.sql.exec(SCHEMA);
  }

  /** Replaces this organization's stores and units with `snapshot` (one implicit transaction). */
  load(orgId: string, snapshot: OrgStorageSnapshot): { units: number } {
    this.claim(orgId);
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      sql.exec("DELETE FROM inventory_units");
      sql.exec("DELETE FROM stores");
      for (const store of snapshot.stores) sql.exec("INSERT INTO stores (id, org_id, name) VALUES (?, ?, ?)", store.id, orgId, store.name);
      for (const u of snapshot.units) {
        sql.exec(
          `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, stocked_on, asking_price, status, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          u.id,
          orgId,
          u.storeId,
          u.stockNumber,
          u.vin,
          u.year,
          u.make,
          u.model,
          u.trim,
          u.condition,
          u.stockedOn,
          u.askingPrice,
          u.status,
          u.updatedAt,
        );
      }
    });
    return { units: snapshot.units.length };
  }

  /**
   * One page of the inventory feed: `listInventory`, the D1 feed's own query, on this object's SQLite.
   * drizzle and the query module are imported on first use: the Worker exports this class, so
   * importing them at the top would be paid at every isolate's start-up for a prototype few reach.
   * The claim stays synchronous, so a wrong organization is refused before anything is awaited.
   */
  inventory(orgId: string, query: FeedQuery, after?: InventoryAfter) {
    this.claim(orgId);
    return Promise.all([import("drizzle-orm/durable-sqlite"), import("../db/queries/feeds")]).then(([{ drizzle }, { listInventory }]) => {
      this.db ??= drizzle(this.ctx.storage);
      return listInventory(this.db, orgId, query, after);
    });
  }

  /** The first caller's organization owns the object; any other is refused. */
  private claim(orgId: string): void {
    const owner = this.ctx.storage.sql.exec<{ org_id: string }>("SELECT org_id FROM owner").toArray()[0]?.org_id;
    if (owner === undefined) this.ctx.storage.sql.exec("INSERT INTO owner (org_id) VALUES (?)", orgId);
    else if (owner !== orgId) throw new OrgStorageMismatchError();
  }
}
