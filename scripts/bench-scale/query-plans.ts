/**
 * EXPLAIN QUERY PLAN for the SQL the Worker really ran (logged by QUERY_LOG=1, src/db/query-log.ts),
 * on the benchmark's D1 file. A full `SCAN` of a tenant table (one with an org_id column) fails
 * the run: its cost grows with every organization's data, not the caller's. `SCAN … USING
 * (COVERING) INDEX` reads an index in order, and `SEARCH` seeks: both are fine.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

export interface LoggedStatement {
  sql: string;
  params: SQLInputValue[];
  /** What the benchmark was calling when the Worker logged it. */
  phase: string;
}

/** The `{"query_log":…}` object of one line of wrangler's output, if it is one. */
export function parseQueryLog(line: string): { sql: string; params: SQLInputValue[] } | undefined {
  const start = line.indexOf('{"query_log":');
  if (start < 0) return undefined;
  try {
    return (JSON.parse(line.slice(start)) as { query_log: { sql: string; params: SQLInputValue[] } }).query_log;
  } catch {
    return undefined;
  }
}

export interface PlannedStatement {
  sql: string;
  phases: string[];
  calls: number;
  plan: string[];
  /** The tenant tables this statement reads whole. */
  tenantScans: string[];
  /**
   * Tenant tables it reads by `org_id` alone, among those where an organization has over 1,000
   * rows: every row the organization has there, so its cost grows with the organization (reported,
   * not failed: flat in total data, linear in the organization). `nested`: inside a join, so once
   * per row of the outer loop.
   */
  orgWideReads: { table: string; nested: boolean }[];
}

export function tenantTables(db: DatabaseSync): Set<string> {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[];
  return new Set(
    tables
      .map((t) => t.name)
      .filter((name) => (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as { name: string }[]).some((c) => c.name === "org_id")),
  );
}

/** The names a statement gives its tables (`FROM "deals" "c"`, `JOIN stores s`): plans name the alias. */
function aliases(sql: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const m of sql.matchAll(/\b(?:from|join)\s+"?(\w+)"?(?:\s+(?:as\s+)?"?(\w+)"?)?/gi)) {
    map.set(m[1], m[1]);
    if (m[2] && !/^(where|on|inner|left|cross|join|group|order|limit|using|natural|set|values)$/i.test(m[2])) map.set(m[2], m[1]);
  }
  return map;
}

const normalized = (sql: string) => sql.replace(/\s+/g, " ").trim();

/** An organization has more than this many rows in a table that grows with its business (settings tables stay far below). */
const GROWING_ROWS_PER_ORG = 1000;

export function explainAll(db: DatabaseSync, statements: LoggedStatement[]): PlannedStatement[] {
  const tenants = tenantTables(db);
  const largest = new Map<string, number>();
  const growing = (table: string) => {
    if (!tenants.has(table)) return false;
    if (!largest.has(table)) {
      const row = db.prepare(`SELECT max(n) AS n FROM (SELECT count(*) AS n FROM "${table}" GROUP BY org_id)`).get() as { n: number | null };
      largest.set(table, row.n ?? 0);
    }
    return (largest.get(table) ?? 0) > GROWING_ROWS_PER_ORG;
  };
  const distinct = new Map<string, { first: LoggedStatement; phases: Set<string>; calls: number }>();
  for (const s of statements) {
    const key = normalized(s.sql);
    const entry = distinct.get(key) ?? { first: s, phases: new Set<string>(), calls: 0 };
    entry.phases.add(s.phase.replace(/#first$/, ""));
    entry.calls += 1;
    distinct.set(key, entry);
  }
  return [...distinct.entries()].map(([sql, { first, phases, calls }]) => {
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${first.sql}`).all(...first.params) as { detail: string }[]).map((r) => r.detail);
    const names = aliases(first.sql);
    const tenantScans = plan.flatMap((detail) => {
      const scanned = /^SCAN (\w+)$/.exec(detail)?.[1];
      const table = scanned === undefined ? undefined : (names.get(scanned) ?? scanned);
      return table !== undefined && tenants.has(table) ? [table] : [];
    });
    const orgWideReads = plan.flatMap((detail, i) => {
      const searched = /^SEARCH (\w+) USING (?:COVERING )?INDEX \S+ \(org_id=\?\)/.exec(detail)?.[1];
      const table = searched === undefined ? undefined : (names.get(searched) ?? searched);
      return table !== undefined && growing(table) ? [{ table, nested: i > 0 && /^(SEARCH|SCAN|CORRELATED)/.test(plan[i - 1]) }] : [];
    });
    return { sql, phases: [...phases], calls, plan, tenantScans, orgWideReads };
  });
}
