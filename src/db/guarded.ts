import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client";

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
