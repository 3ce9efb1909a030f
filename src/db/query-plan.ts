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

/** The names a statement gives its tables (`FROM "deals" "c"`, `JOIN stores s`): plans name the alias. */
function tableAliases(sql: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of sql.matchAll(/\b(?:from|join)\s+"?(\w+)"?(?:\s+(?:as\s+)?"?(\w+)"?)?/gi)) {
    names.set(m[1], m[1]);
    if (m[2] && !/^(where|on|inner|left|cross|join|group|order|limit|using|natural|set|values)$/i.test(m[2])) names.set(m[2], m[1]);
  }
  return names;
}

/**
 * The tenant tables a plan reads whole ("SCAN deals", "SCAN deals USING INDEX …": a full pass over
 * an index is a scan too), by table name: with the statement's `sql`, a scan of an alias counts as
 * its table's. A SEARCH (a bounded range of an index) is what a request path should do; a
 * temporary B-tree for ORDER BY sorts only what the search found.
 */
export function tenantTableScans(
  plan: readonly Pick<PlanLine, "detail">[],
  options: { sql?: string; tenantTables?: ReadonlySet<string> } = {},
): string[] {
  const names = options.sql === undefined ? new Map<string, string>() : tableAliases(options.sql);
  const tenants = options.tenantTables ?? TENANT_TABLES;
  return plan.flatMap(({ detail }) => {
    const scanned = /^SCAN (\w+)/.exec(detail)?.[1];
    const table = scanned === undefined ? undefined : (names.get(scanned) ?? scanned);
    return table !== undefined && tenants.has(table) ? [table] : [];
  });
}
