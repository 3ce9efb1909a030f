/**
 * The move's copy while writes go on, and its catch-up (docs/scaling.md#how-an-organization-moves-d1--its-object):
 * D1's side. While an organization has a row in `org_storage_moves`, a trigger on each caught-up
 * table records every change of its rows (table and primary key) in `org_storage_changes`; the
 * catch-up reads those rows again from D1, for the object to write (or delete), then forgets the
 * entries. Generic over MOVED_D1_TABLES: each table's key comes from its schema, so a group that
 * moves is caught up by adding its tables to that list.
 */
import { and, asc, count, eq, exists, getTableName, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../client";
import { organizations, orgStorageChanges, orgStorageMoves, stores } from "../schema";
import { MOVED_D1_TABLES } from "./org-storage";

/** The move under way: its step and cursor, its rounds, when its write pause began. */
export type MoveRow = typeof orgStorageMoves.$inferSelect;

interface CaughtUpTable {
  name: string;
  /** The primary key's columns, in the schema's order. */
  key: string[];
  only?: SQL;
  carries?: { name: string; by: string };
}

function caughtUp(table: SQLiteTable, only?: SQL, carries?: { table: SQLiteTable; by: string }): CaughtUpTable {
  const config = getTableConfig(table);
  const composite = config.primaryKeys[0]?.columns.map((column) => column.name);
  const key = composite ?? config.columns.filter((column) => column.primary).map((column) => column.name);
  return { name: config.name, key, only, ...(carries && { carries: { name: getTableName(carries.table), by: carries.by } }) };
}

/**
 * The tables a catch-up brings up to date, in the order the object writes them: the reverse of
 * MOVED_D1_TABLES (a referenced row before the rows that refer to it; the sales rollup after its
 * deals), with the directory's `stores` first, whose names and settings the object keeps (its rows
 * are D1's directory, never purged, so not in MOVED_D1_TABLES).
 */
const CAUGHT_UP_TABLES: readonly CaughtUpTable[] = [
  caughtUp(stores),
  ...[...MOVED_D1_TABLES].reverse().map(({ table, only, carries }) => caughtUp(table, only, carries)),
];

export const CAUGHT_UP_TABLE_NAMES = CAUGHT_UP_TABLES.map((table) => table.name);

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The capture triggers, one per table and write: each records the row's key while the row's
 * organization has a move under way (the WHEN clause: one primary-key probe of `org_storage_moves`,
 * true for no organization that is not moving). An update records the old key too if it changed.
 * Created by the move itself (IF NOT EXISTS), from the list, so a table added to it is captured.
 */
function captureTriggers(): string[] {
  return CAUGHT_UP_TABLES.flatMap(({ name, key }) => {
    const keyOf = (row: "NEW" | "OLD") => `json_array(${key.map((column) => `${row}.${ident(column)}`).join(", ")})`;
    const moving = (row: "NEW" | "OLD") => `EXISTS (SELECT 1 FROM org_storage_moves WHERE org_id = ${row}.org_id)`;
    const record = (row: "NEW" | "OLD") =>
      `INSERT INTO org_storage_changes (org_id, table_name, row_key) VALUES (${row}.org_id, '${name}', ${keyOf(row)});`;
    const trigger = (op: string) => ident(`${name}_move_capture_${op}`);
    return [
      `CREATE TRIGGER IF NOT EXISTS ${trigger("insert")} AFTER INSERT ON ${ident(name)} FOR EACH ROW WHEN ${moving("NEW")} BEGIN ${record("NEW")} END`,
      `CREATE TRIGGER IF NOT EXISTS ${trigger("update")} AFTER UPDATE ON ${ident(name)} FOR EACH ROW WHEN ${moving("NEW")} BEGIN ${record("NEW")} ` +
        `INSERT INTO org_storage_changes (org_id, table_name, row_key) SELECT OLD.org_id, '${name}', ${keyOf("OLD")} WHERE ${keyOf("OLD")} IS NOT ${keyOf("NEW")}; END`,
      `CREATE TRIGGER IF NOT EXISTS ${trigger("delete")} AFTER DELETE ON ${ident(name)} FOR EACH ROW WHEN ${moving("OLD")} BEGIN ${record("OLD")} END`,
    ];
  });
}

/**
 * Starts capturing the organization's changes (the triggers laid if missing, then its move row),
 * before the copy reads its first page: every change from then on is in the log. A move already
 * under way is kept as it is (run again, it goes on). The move as it stands.
 */
export async function startMove(db: Database, orgId: string, firstStep: string, at: string): Promise<MoveRow> {
  const statements = captureTriggers().map((ddl) => db.run(sql.raw(ddl)));
  await db.batch([
    ...(statements as [ReturnType<Database["run"]>, ...ReturnType<Database["run"]>[]]),
    db.insert(orgStorageMoves).values({ orgId, startedAt: at, step: firstStep }).onConflictDoNothing(),
  ]);
  return (await readMove(db, orgId)) as MoveRow;
}

export async function readMove(db: Database, orgId: string): Promise<MoveRow | undefined> {
  const [row] = await db.select().from(orgStorageMoves).where(eq(orgStorageMoves.orgId, orgId)).limit(1);
  return row;
}

/**
 * The move's lease for one request, until `until` (ms), if no request holds it (none did, or its
 * lease ended by `now`): one conditional UPDATE, so of two requests at once one gets it. The move
 * as it stands, or undefined while another request works on it (or there is no move).
 */
export async function leaseMove(db: Database, orgId: string, now: number, until: number): Promise<MoveRow | undefined> {
  const [row] = await db
    .update(orgStorageMoves)
    .set({ workedUntil: until })
    .where(and(eq(orgStorageMoves.orgId, orgId), or(isNull(orgStorageMoves.workedUntil), lte(orgStorageMoves.workedUntil, now))))
    .returning();
  return row;
}

const leaseHeld = (orgId: string, held: number) => and(eq(orgStorageMoves.orgId, orgId), eq(orgStorageMoves.workedUntil, held));

/**
 * Keeps the move's progress (the step under way and its cursor, the rounds, the pause's start) and
 * renews the lease to `until`, only while the lease is still `held`: false once it is not (the move
 * was cancelled, or its lease ended and another request took it), and nothing is written.
 */
export async function saveMove(
  db: Database,
  orgId: string,
  held: number,
  until: number,
  progress: Partial<Pick<MoveRow, "step" | "after" | "rounds" | "pausedAt">> = {},
): Promise<boolean> {
  const rows = await db
    .update(orgStorageMoves)
    .set({ ...progress, workedUntil: until })
    .where(leaseHeld(orgId, held))
    .returning({ orgId: orgStorageMoves.orgId });
  return rows.length === 1;
}

/** The request is done with the move (it answered its progress, or failed): another may take the lease at once. */
export async function releaseMove(db: Database, orgId: string, held: number): Promise<void> {
  await db.update(orgStorageMoves).set({ workedUntil: null }).where(leaseHeld(orgId, held));
}

/**
 * The flag from `from` to `to` only while the move's lease is `held`, in one statement: a cancel
 * (which deletes the move's row) or a request that took over the lease keeps a request that lost
 * it from pausing the organization's writes or flipping it.
 */
export async function switchWithLease(
  db: Database,
  orgId: string,
  held: number,
  from: "d1" | "moving",
  to: "moving" | "object",
  movedAt?: { storageMovedAt: string },
): Promise<boolean> {
  const rows = await db
    .update(organizations)
    .set({ storage: to, ...movedAt })
    .where(
      and(
        eq(organizations.id, orgId),
        eq(organizations.storage, from),
        exists(db.select({ one: sql`1` }).from(orgStorageMoves).where(leaseHeld(orgId, held))),
      ),
    )
    .returning({ id: organizations.id });
  return rows.length === 1;
}

/**
 * The move is over (flipped, cancelled, or failed its check): capture stops and the log is emptied.
 * A cancel also gives a paused organization's writes back to D1 (`moving` → `d1`) in the same
 * batch, so a request still working on the move finds neither its lease nor a pause to flip.
 */
export async function endMove(db: Database, orgId: string, cancel = false): Promise<void> {
  const forget = [
    db.delete(orgStorageMoves).where(eq(orgStorageMoves.orgId, orgId)),
    db.delete(orgStorageChanges).where(eq(orgStorageChanges.orgId, orgId)),
  ] as const;
  const unpause = db
    .update(organizations)
    .set({ storage: "d1" })
    .where(and(eq(organizations.id, orgId), eq(organizations.storage, "moving")));
  await (cancel ? db.batch([unpause, ...forget]) : db.batch(forget));
}

/** How many changes wait in the organization's log. */
export async function pendingChanges(db: Database, orgId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(orgStorageChanges).where(eq(orgStorageChanges.orgId, orgId));
  return row?.n ?? 0;
}

/** One table's part of a catch-up round: D1's rows of the changed keys as they are now (raw columns), and the keys D1 no longer holds. */
export interface TableChanges {
  table: string;
  key: string[];
  rows: Record<string, unknown>[];
  gone: unknown[][];
  /** Rows of another table these rows name, which the object keeps beside them (`carries`). */
  carried?: { table: string; rows: Record<string, unknown>[] };
}

/**
 * The oldest `limit` entries of the organization's log, read as a round: per table (in the
 * object's write order), D1's rows of the changed keys now, and the keys gone. `through` is the
 * last entry's seq (0: the log is empty), for `forgetChanges` once the object holds the round.
 */
export async function readChangeRound(
  db: Database,
  orgId: string,
  limit: number,
): Promise<{ through: number; entries: number; tables: TableChanges[] }> {
  const c = orgStorageChanges;
  const entries = await db
    .select({ seq: c.seq, tableName: c.tableName, rowKey: c.rowKey })
    .from(c)
    .where(eq(c.orgId, orgId))
    .orderBy(asc(c.seq))
    .limit(limit);
  const keys = new Map<string, Set<string>>();
  for (const entry of entries) keys.set(entry.tableName, (keys.get(entry.tableName) ?? new Set()).add(entry.rowKey));
  const tables: TableChanges[] = [];
  for (const table of CAUGHT_UP_TABLES) {
    const changed = keys.get(table.name);
    if (changed === undefined) continue;
    tables.push(await readChangedRows(db, orgId, table, [...changed]));
  }
  return { through: entries.at(-1)?.seq ?? 0, entries: entries.length, tables };
}

async function readChangedRows(db: Database, orgId: string, table: CaughtUpTable, rowKeys: string[]): Promise<TableChanges> {
  // One JSON array of the keys, not a parameter per key: D1 binds at most 100. A one-column key is looked up by its index.
  const wanted =
    table.key.length === 1
      ? sql`${sql.raw(ident(table.key[0] as string))} IN (SELECT json_extract(value, '$[0]') FROM json_each(${`[${rowKeys.join(",")}]`}))`
      : sql`json_array(${sql.raw(table.key.map(ident).join(", "))}) IN (SELECT value FROM json_each(${`[${rowKeys.join(",")}]`}))`;
  const rows = await db.all<Record<string, unknown>>(
    sql`SELECT * FROM ${sql.raw(ident(table.name))} WHERE org_id = ${orgId} AND ${wanted}${table.only ? sql` AND ${table.only}` : sql``} ORDER BY rowid`,
  );
  const held = new Set(rows.map((row) => JSON.stringify(table.key.map((column) => row[column]))));
  const gone = rowKeys.filter((rowKey) => !held.has(JSON.stringify(JSON.parse(rowKey)))).map((rowKey) => JSON.parse(rowKey) as unknown[]);
  const changes: TableChanges = { table: table.name, key: table.key, rows, gone };
  if (table.carries && rows.length > 0) {
    const named = JSON.stringify([...new Set(rows.map((row) => row[table.carries?.by as string]))]);
    changes.carried = {
      table: table.carries.name,
      rows: await db.all<Record<string, unknown>>(
        sql`SELECT * FROM ${sql.raw(ident(table.carries.name))} WHERE org_id = ${orgId} AND id IN (SELECT value FROM json_each(${named}))`,
      ),
    };
  }
  return changes;
}

/** The round's entries are in the object: forgotten (a change logged meanwhile has a later seq and stays). */
export async function forgetChanges(db: Database, orgId: string, through: number): Promise<void> {
  await db.delete(orgStorageChanges).where(and(eq(orgStorageChanges.orgId, orgId), lte(orgStorageChanges.seq, through)));
}

/** The organization's rows per caught-up table in D1: what the pause checks of its last round on both sides. */
export async function rowCounts(db: Database, orgId: string): Promise<Record<string, number>> {
  // One row of one count per table (D1 caps a compound SELECT's terms).
  const counts = CAUGHT_UP_TABLES.map(
    ({ name, only }) =>
      sql`(SELECT count(*) FROM ${sql.raw(ident(name))} WHERE org_id = ${orgId}${only ? sql` AND ${only}` : sql``}) AS ${sql.raw(ident(name))}`,
  );
  const [row] = await db.all<Record<string, number>>(sql`SELECT ${sql.join(counts, sql`, `)}`);
  return row ?? {};
}
