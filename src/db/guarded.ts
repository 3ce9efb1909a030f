import { eq, getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client";
import { organizations } from "./schema";

/** How often a guarded write reads again and retries after another change came first, before it gives up. */
const GUARDED_WRITE_ATTEMPTS = 8;

/**
 * A batch's head that fails the batch unless `stillAsRead` holds when it runs: `json('…')` of a
 * sentence that is not JSON raises "malformed JSON" inside the transaction. A select, because a raw
 * statement cannot join drizzle's D1 batch; one row, the organization's.
 */
export function unlessStillAsRead(db: Database, orgId: string, stillAsRead: SQL, what: string) {
  return db
    .select({ guard: sql<number>`case when ${stillAsRead} then 1 else json(${`${what} changed since they were read`}) end` })
    .from(organizations)
    .where(eq(organizations.id, orgId));
}

/** A batch a guard failed (unlessStillAsRead: a read another request has since changed). */
const isStaleReadError = (error: unknown) => error instanceof Error && /malformed JSON/.test(`${error.message} ${error.cause ?? ""}`);

/** Runs a read-then-guarded-write again while its guard finds the read overtaken, up to GUARDED_WRITE_ATTEMPTS times. */
export async function retryingStaleReads<T>(readAndWrite: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readAndWrite();
    } catch (error) {
      if (!isStaleReadError(error) || attempt === GUARDED_WRITE_ATTEMPTS) throw error;
    }
  }
}

/**
 * An INSERT of one row that happens only if `condition` holds when the statement runs:
 * `INSERT … SELECT <the row's values> WHERE <condition>`. The check and the write are one
 * statement, so a concurrent request cannot slip between them. Every column is written in table
 * order, as drizzle's own VALUES would be: the given value, else the column's default.
 */
export function insertRowWhere<Table extends SQLiteTable>(db: Database, table: Table, row: Table["$inferInsert"], condition: SQL) {
  const values = row as Record<string, unknown>;
  const selected = Object.entries(getTableColumns(table)).map(([key, column]) => {
    if (values[key] !== undefined) return sql.param(values[key], column);
    return is(column.default, SQL) ? column.default : sql.param(column.default ?? null, column);
  });
  return db.insert(table).select(sql`select ${sql.join(selected, sql`, `)} where ${condition}`);
}
