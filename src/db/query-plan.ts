import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

/** One line of SQLite's `EXPLAIN QUERY PLAN` (e.g. "SCAN deals", "SEARCH deals USING INDEX …"). */
export interface PlanLine {
  id: number;
  parent: number;
  detail: string;
}

/**
 * Tables holding an organization's own rows (they have `org_id`): their size grows with the
 * customer, so a request that scans one gets slower as the organization (or every organization) grows.
 */
export const TENANT_TABLES: ReadonlySet<string> = new Set(
  (Object.values(schema) as unknown[])
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableConfig(table))
    .filter((config) => config.columns.some((column) => column.name === "org_id"))
    .map((config) => config.name),
);

export async function explainQueryPlan(db: D1Database, sql: string, params: readonly unknown[] = []): Promise<PlanLine[]> {
  const { results } = await db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<PlanLine>();
  return results;
}

/**
 * The plan lines that read a whole tenant table ("SCAN deals", "SCAN deals USING INDEX …": a full
 * pass over the index is a scan too). A SEARCH (a bounded range of an index) is what a request
 * path should do; a temporary B-tree for ORDER BY sorts only what the search found.
 */
export function tenantTableScans(plan: readonly PlanLine[], tenantTables: ReadonlySet<string> = TENANT_TABLES): string[] {
  return plan
    .map((line) => line.detail)
    .filter((detail) => {
      const scanned = /^SCAN (\w+)/.exec(detail)?.[1];
      return scanned !== undefined && tenantTables.has(scanned);
    });
}
