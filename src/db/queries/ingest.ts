import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { PIPELINE_STATUSES } from "../../engines/deal-math/vocabulary";
import { type RowProblem, type SnapshotSafety, snapshotRefusal } from "../../engines/ingest";
import type { SnakeKeys } from "../../lib/case";
import { newId } from "../../lib/ids";
import { chunk } from "../batch";
import type { Database, SqliteReader } from "../client";
import { dealStips, deals, inventoryUnits } from "../org-schema";
import { stores } from "../schema";

/**
 * Bulk writes bind each chunk of rows as ONE JSON parameter read back with json_each, so a
 * statement binds a handful of parameters whatever its row count (the object's SQLite allows 100,
 * as D1 does), and 5,000 rows are about ten statements in one transaction.
 */
const ROWS_PER_STATEMENT = 500;

const inList = (values: string[]) => sql`(select value from json_each(${JSON.stringify(values)}))`;

/** The organization's stores in the directory, name by id. */
export async function listStores(db: Database, orgId: string): Promise<Map<string, string>> {
  const rows = await db.select({ id: stores.id, name: stores.name }).from(stores).where(eq(stores.orgId, orgId));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The organization's units with these stock numbers, whatever their store or status. */
async function findUnitsByStockNumber(db: SqliteReader, orgId: string, stockNumbers: string[]) {
  const found = await Promise.all(
    chunk(stockNumbers, ROWS_PER_STATEMENT * 2).map((part) =>
      db
        .select()
        .from(inventoryUnits)
        .where(and(eq(inventoryUnits.orgId, orgId), sql`${inventoryUnits.stockNumber} in ${inList(part)}`)),
    ),
  );
  return found.flat();
}

/**
 * A unit as a snapshot carries it: every column of `inventory_units` by its column name, less the
 * ones the service sets (the organization, the store, the status and the timestamps). The ingest
 * route's schema is checked against it, and the upsert's select list and conflict set are built
 * from the table, so a new column is declared once, in src/db/schema/platform.ts.
 */
const UNIT_SERVICE_COLUMNS = ["orgId", "storeId", "status", "createdAt", "updatedAt"] as const;
export type UnitRow = SnakeKeys<Omit<typeof inventoryUnits.$inferInsert, (typeof UNIT_SERVICE_COLUMNS)[number]>>;
/** The fields a snapshot sends: the unit without the id the service gives it. */
export type UnitFields = Omit<UnitRow, "id">;

/** A deal as a push carries it: every column of `deals` but the organization and the timestamps. */
const DEAL_SERVICE_COLUMNS = ["orgId", "createdAt", "updatedAt"] as const;
export type DealRow = SnakeKeys<Omit<typeof deals.$inferInsert, (typeof DEAL_SERVICE_COLUMNS)[number]>>;
export type DealFields = Omit<DealRow, "id">;

type ColumnsOf<T extends SQLiteTable> = [keyof T["_"]["columns"] & string, SQLiteColumn][];
const columnsOf = <T extends SQLiteTable>(table: T) => Object.entries(getTableColumns(table)) as ColumnsOf<T>;

/** `json_extract(value, '$.<name>')` of the json_each row being inserted. */
const fromJson = (name: string) => sql.raw(`json_extract(value, '$.${name}')`);
const NOW = sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ','now')`);

/**
 * insert…select of rows bound as one JSON parameter: every column of the table in order, each the
 * value the service sets (`set`) or else the row's field of the column's name.
 */
function selectFromJson<T extends SQLiteTable>(table: T, rows: unknown[], set: Partial<Record<keyof T["_"]["columns"], SQL>>) {
  const values = columnsOf(table).map(([key, column]) => set[key] ?? fromJson(column.name));
  return sql`SELECT ${sql.join(values, sql`, `)} FROM json_each(${JSON.stringify(rows)}) WHERE true`;
}

/** On conflict, the columns an upsert sets from the incoming row: all but the key, the organization and the timestamps. */
const updatedColumns = <T extends SQLiteTable>(table: T, kept: readonly string[]) =>
  columnsOf(table).filter(([key]) => !kept.includes(key) && key !== "orgId" && key !== "createdAt" && key !== "updatedAt");

const UNIT_UPDATED = updatedColumns(inventoryUnits, ["id", "stockNumber"]);
const DEAL_UPDATED = updatedColumns(deals, ["id", "dealNumber"]);

/** Every updated column takes the inserted row's value on conflict. */
const fromExcluded = (columns: [string, SQLiteColumn][]) =>
  Object.fromEntries(columns.map(([key, column]) => [key, sql.raw(`excluded.${column.name}`)]));

/** Whether an upsert would change the stored row: a column it sets holds another value (`incoming` by column name). */
const changes = (columns: [string, SQLiteColumn][], stored: Record<string, unknown>, incoming: Record<string, unknown>) =>
  columns.some(([key, column]) => (stored[key] ?? null) !== (incoming[column.name] ?? null));

type StoredUnit = typeof inventoryUnits.$inferSelect;
/** A snapshot's unit changes the stored one (a unit listed is back in stock at the snapshot's store). */
const unitChanges = (stored: StoredUnit, unit: UnitFields, storeId: string) =>
  changes(UNIT_UPDATED, stored, { ...unit, store_id: storeId, status: "in_stock" });

/** A pushed deal changes the stored one. */
const dealChanges = (stored: typeof deals.$inferSelect, deal: DealFields) => changes(DEAL_UPDATED, stored, deal);

/**
 * Inserts or updates (by stock number) units of one store, back in stock. For the caller's transaction.
 * A new row's created_at and updated_at are now; on an update, a trigger (migrations-org/0001) moves
 * updated_at only when a value changed, so re-sending a snapshot leaves `updated_since` quiet.
 * (`WHERE true` keeps SQLite from reading ON CONFLICT as a join constraint.)
 */
export function upsertUnits(db: SqliteReader, orgId: string, storeId: string, units: UnitRow[]): BatchItem<"sqlite">[] {
  const u = inventoryUnits;
  const set = { orgId: sql`${orgId}`, storeId: sql`${storeId}`, status: sql.raw("'in_stock'"), createdAt: NOW, updatedAt: NOW };
  return chunk(units, ROWS_PER_STATEMENT).map((part) =>
    db
      .insert(u)
      .select(selectFromJson(u, part, set))
      .onConflictDoUpdate({ target: [u.orgId, u.stockNumber], set: { ...fromExcluded(UNIT_UPDATED), status: "in_stock" } }),
  );
}

/** The units in stock at the store, and how many of them the snapshot does not list: what applying it would remove. */
async function countSnapshotRemovals(db: SqliteReader, orgId: string, storeId: string, listed: string[]) {
  const [counts] = await db
    .select({
      inStock: sql<number>`count(*)`,
      absent: sql<number>`coalesce(sum(${inventoryUnits.stockNumber} not in ${inList(listed)}), 0)`,
    })
    .from(inventoryUnits)
    .where(and(eq(inventoryUnits.orgId, orgId), eq(inventoryUnits.storeId, storeId), eq(inventoryUnits.status, "in_stock")));
  return counts;
}

/** Units in stock at the store that the snapshot does not list leave inventory. For the caller's transaction. */
export function markAbsentUnitsSold(db: SqliteReader, orgId: string, storeId: string, listed: string[]): BatchItem<"sqlite"> {
  return db
    .update(inventoryUnits)
    .set({ status: "sold" })
    .where(
      and(
        eq(inventoryUnits.orgId, orgId),
        eq(inventoryUnits.storeId, storeId),
        eq(inventoryUnits.status, "in_stock"),
        sql`${inventoryUnits.stockNumber} not in ${inList(listed)}`,
      ),
    )
    .returning({ stockNumber: inventoryUnits.stockNumber });
}

/** A snapshot's unit as the ingest route validated it. */
export type SnapshotUnit = UnitFields & { stock_number: string };

/** What a snapshot of one store would do: refused (with the counts that refused it), or its writes and counts. */
export type SnapshotPlan =
  | { refusal: RowProblem; counts: { inStock: number; absent: number } }
  | { refusal: null; created: number; updated: number; changed: UnitRow[]; listed: string[] };

/**
 * Reads what a snapshot of one store changes, in the organization's storage object: the safety
 * check on what it would remove, then each unit new, changed or as stored. The caller writes
 * `changed` with `upsertUnits` and `markAbsentUnitsSold(listed)`.
 */
export async function planSnapshot(
  db: SqliteReader,
  orgId: string,
  storeId: string,
  units: SnapshotUnit[],
  safety: SnapshotSafety,
): Promise<SnapshotPlan> {
  const listed = units.map((u) => u.stock_number);
  const counts = await countSnapshotRemovals(db, orgId, storeId, listed);
  const refusal = snapshotRefusal(storeId, units.length, counts, safety);
  if (refusal) return { refusal, counts };
  const existing = new Map((await findUnitsByStockNumber(db, orgId, listed)).map((u) => [u.stockNumber, u]));
  let created = 0;
  let updated = 0;
  const changed: UnitRow[] = [];
  for (const unit of units) {
    const stored = existing.get(unit.stock_number);
    if (!stored) created++;
    else if (unitChanges(stored, unit, storeId)) updated++;
    else continue;
    changed.push({ ...unit, id: stored?.id ?? newId("unit") });
  }
  return { refusal: null, created, updated, changed, listed };
}

/** The organization's deals with these numbers, with their stips. */
async function findDealsByNumber(db: SqliteReader, orgId: string, dealNumbers: string[]) {
  const parts = await Promise.all(
    chunk(dealNumbers, ROWS_PER_STATEMENT * 2).map(async (part) => {
      const found = await db
        .select()
        .from(deals)
        .where(and(eq(deals.orgId, orgId), sql`${deals.dealNumber} in ${inList(part)}`));
      const stips =
        found.length === 0
          ? []
          : await db
              .select()
              .from(dealStips)
              .where(and(eq(dealStips.orgId, orgId), sql`${dealStips.dealId} in ${inList(found.map((d) => d.id))}`));
      return found.map((deal) => ({ ...deal, stips: stips.filter((s) => s.dealId === deal.id) }));
    }),
  );
  return parts.flat();
}

export function upsertDeals(db: SqliteReader, orgId: string, rows: DealRow[]): BatchItem<"sqlite">[] {
  const d = deals;
  const set = { orgId: sql`${orgId}`, createdAt: NOW, updatedAt: NOW };
  return chunk(rows, ROWS_PER_STATEMENT).map((part) =>
    db
      .insert(d)
      .select(selectFromJson(d, part, set))
      .onConflictDoUpdate({ target: [d.orgId, d.dealNumber], set: fromExcluded(DEAL_UPDATED) }),
  );
}

export interface StipRow {
  id: string;
  deal_number: string;
  stip: string;
  state: string;
  requested_on: string;
  cleared_on: string | null;
}

/** Stips are attached by deal number, so they follow the deal row this same transaction wrote. */
export function upsertStips(db: SqliteReader, orgId: string, rows: StipRow[]): BatchItem<"sqlite">[] {
  return chunk(rows, ROWS_PER_STATEMENT).map((part) =>
    db
      .insert(dealStips)
      .select(
        sql`SELECT ${fromJson("id")}, ${orgId}, (SELECT d.id FROM deals d WHERE d.org_id = ${orgId} AND d.deal_number = ${fromJson("deal_number")}),
                   ${fromJson("stip")}, ${fromJson("state")}, ${fromJson("requested_on")}, ${fromJson("cleared_on")}
            FROM json_each(${JSON.stringify(part)}) WHERE true`,
      )
      .onConflictDoUpdate({
        target: dealStips.id,
        set: fromExcluded([
          ["state", dealStips.state],
          ["requestedOn", dealStips.requestedOn],
          ["clearedOn", dealStips.clearedOn],
        ]),
      }),
  );
}

/** A pushed deal as the ingest route validated it: its fields and, optionally, its stips as the DMS has them now. */
export type PushedDeal = DealFields & {
  stips?: { stip: string; state: StipRow["state"]; requested_on?: string; cleared_on?: string }[];
};
/** A deal's stips as stored. */
type StoredStip = { id: string; stip: string; state: string; requestedOn: string; clearedOn: string | null };

/** `deal.stip_alert` as the push raises it (an event of src/events/emit.ts, recorded by the caller). */
interface StipAlert {
  event: "deal.stip_alert";
  orgId: string;
  storeId: string;
  data: { deal_number: string; deal_status: string; lender: string | null; stip: string; change: "added" | "cleared"; state: string };
}

/** The stip writes and `deal.stip_alert` events of one deal: new stips, and stips newly cleared. */
function stipChanges(orgId: string, deal: PushedDeal, stored: readonly StoredStip[], today: string) {
  const rows: StipRow[] = [];
  const alerts: StipAlert[] = [];
  const inPipeline = (PIPELINE_STATUSES as readonly string[]).includes(deal.status);
  for (const stip of deal.stips ?? []) {
    const previous = stored.find((s) => s.stip === stip.stip);
    const clearedOn = stip.state === "cleared" ? (stip.cleared_on ?? previous?.clearedOn ?? today) : null;
    const row = {
      id: previous?.id ?? newId("stp"),
      deal_number: deal.deal_number,
      stip: stip.stip,
      state: stip.state,
      requested_on: stip.requested_on ?? previous?.requestedOn ?? today,
      cleared_on: clearedOn,
    };
    if (previous && previous.state === row.state && previous.requestedOn === row.requested_on && previous.clearedOn === row.cleared_on) continue;
    rows.push(row);
    const change = !previous ? "added" : stip.state === "cleared" && previous.state !== "cleared" ? "cleared" : null;
    if (inPipeline && change) {
      alerts.push({
        event: "deal.stip_alert",
        orgId,
        storeId: deal.store_id,
        data: { deal_number: deal.deal_number, deal_status: deal.status, lender: deal.lender ?? null, stip: stip.stip, change, state: stip.state },
      });
    }
  }
  return { rows, alerts };
}

/** What a push of deals did: its counts, and the stip alerts to record with its delivery. */
export interface AppliedDeals {
  created: number;
  updated: number;
  alerts: StipAlert[];
}

/**
 * Reads what a push of deals changes, in the organization's storage object: each deal new, changed
 * or as stored, and its stips' writes and alerts. The caller writes `dealRows` with `upsertDeals`,
 * then `stipRows` with `upsertStips`.
 */
export async function planDeals(db: SqliteReader, orgId: string, pushed: PushedDeal[], today: string) {
  const dealNumbers = pushed.map((d) => d.deal_number);
  const read = await findDealsByNumber(db, orgId, dealNumbers);
  const existing = new Map(read.map((d) => [d.dealNumber, d]));
  let created = 0;
  let updated = 0;
  const dealRows: DealRow[] = [];
  const stipRows: StipRow[] = [];
  const alerts: StipAlert[] = [];
  for (const deal of pushed) {
    const { stips: _stips, ...fields } = deal;
    const stored = existing.get(deal.deal_number);
    const stips = stipChanges(orgId, deal, stored?.stips ?? [], today);
    const dealChanged = !stored || dealChanges(stored, fields);
    if (!stored) created++;
    else if (dealChanged || stips.rows.length > 0) updated++;
    if (dealChanged) dealRows.push({ ...fields, id: stored?.id ?? newId("deal") });
    stipRows.push(...stips.rows);
    alerts.push(...stips.alerts);
  }
  return { created, updated, dealRows, stipRows, alerts };
}
