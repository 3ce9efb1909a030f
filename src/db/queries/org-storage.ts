import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { and, asc, eq, getTableColumns, gt, lte, sql } from "drizzle-orm";
import type { Database, SqliteReader } from "../client";
import { inventoryUnits, type OrgStoragePlace, organizations, stores, unitMarketValues } from "../schema";

/**
 * The inventory group's tables as a move copies and checks them (docs/scaling.md#how-an-organization-moves-d1--its-object):
 * the same query runs on D1 and on the organization's object, whose tables carry the same names.
 */

/** Where the organization's data lives now, read at the primary: the flag a move flips. */
export async function readOrgStorage(db: Database, orgId: string): Promise<OrgStoragePlace | undefined> {
  const [row] = await db.select({ storage: organizations.storage }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row?.storage;
}

/** Moves the flag from `from` to `to`, only if it still says `from`: whether it did. */
export async function switchOrgStorage(db: Database, orgId: string, from: OrgStoragePlace, to: OrgStoragePlace): Promise<boolean> {
  const rows = await db
    .update(organizations)
    .set({ storage: to })
    .where(and(eq(organizations.id, orgId), eq(organizations.storage, from)))
    .returning({ id: organizations.id });
  return rows.length === 1;
}

/** A unit with every column, as a move carries it. */
export type StoredUnit = typeof inventoryUnits.$inferSelect;
const UNIT_COLUMNS = getTableColumns(inventoryUnits);

/** The organization's units after `afterId` (by id), at most `limit`: one page of a copy. */
export function readUnitPage(db: SqliteReader, orgId: string, afterId: string | undefined, limit: number): Promise<StoredUnit[]> {
  return db
    .select(UNIT_COLUMNS)
    .from(inventoryUnits)
    .where(and(eq(inventoryUnits.orgId, orgId), afterId === undefined ? undefined : gt(inventoryUnits.id, afterId)))
    .orderBy(asc(inventoryUnits.id))
    .limit(limit);
}

/** A market value with every column, as a move carries it. */
export type StoredMarketValue = typeof unitMarketValues.$inferSelect;
const MARKET_VALUE_COLUMNS = getTableColumns(unitMarketValues);

/** The market values of the units with ids after `afterId` up to `throughId` (the range of one page of units; open-ended without it). */
export function readMarketValuePage(
  db: SqliteReader,
  orgId: string,
  afterId: string | undefined,
  throughId: string | undefined,
): Promise<StoredMarketValue[]> {
  const v = unitMarketValues;
  return db
    .select(MARKET_VALUE_COLUMNS)
    .from(v)
    .where(
      and(
        eq(v.orgId, orgId),
        afterId === undefined ? undefined : gt(v.unitId, afterId),
        throughId === undefined ? undefined : lte(v.unitId, throughId),
      ),
    )
    .orderBy(asc(v.unitId));
}

/** The organization's stores as the object holds them: id and name (the directory keeps the rest). */
export function readStoreNames(db: SqliteReader, orgId: string): Promise<{ id: string; name: string }[]> {
  return db.select({ id: stores.id, name: stores.name }).from(stores).where(eq(stores.orgId, orgId)).orderBy(asc(stores.id));
}

/** Rows and a SHA-256 of them in order: what a move compares per table. */
export interface TableDigest {
  rows: number;
  sha256: string;
}

function digest(rows: readonly object[]): TableDigest {
  const hash = sha256.create();
  for (const row of rows) hash.update(utf8ToBytes(`${JSON.stringify(Object.values(row))}\n`));
  return { rows: rows.length, sha256: bytesToHex(hash.digest()) };
}

/** The group's digest on either side: every unit and market value (every column, by unit id) and the stores the feed names. */
export async function groupDigest(
  db: SqliteReader,
  orgId: string,
): Promise<Record<"inventory_units" | "unit_market_values" | "stores", TableDigest>> {
  const units = await db.select(UNIT_COLUMNS).from(inventoryUnits).where(eq(inventoryUnits.orgId, orgId)).orderBy(asc(inventoryUnits.id));
  return {
    inventory_units: digest(units),
    unit_market_values: digest(await readMarketValuePage(db, orgId, undefined, undefined)),
    stores: digest(await readStoreNames(db, orgId)),
  };
}

/** Writes a page of units back into D1 (the undo of a move): each as the object holds it, by id. */
export function restoreUnits(db: Database, units: readonly StoredUnit[]) {
  const { id: _id, ...rest } = UNIT_COLUMNS;
  const set = Object.fromEntries(Object.entries(rest).map(([key, column]) => [key, sql.raw(`excluded.${column.name}`)]));
  return units.map((unit) => db.insert(inventoryUnits).values(unit).onConflictDoUpdate({ target: inventoryUnits.id, set }));
}

/**
 * The head of a D1 write of the group's tables: it fails the batch unless the organization's data
 * still lives in D1, so a request that read the flag before a move (credentials are cached for up
 * to 60 s) never writes to a copy the move has left. The error names the fence
 * (`isStorageMovedError`); a bad JSON path is a failure no other statement raises.
 */
export function unlessStorageInD1(db: Database, orgId: string) {
  return db
    .select({ fence: sql<number>`case when ${organizations.storage} = 'd1' then 1 else json_extract('{}', '$storage moved') end` })
    .from(organizations)
    .where(eq(organizations.id, orgId));
}

export const isStorageMovedError = (error: unknown) => error instanceof Error && /storage moved/.test(`${error.message} ${error.cause ?? ""}`);
