/**
 * EXPLAIN QUERY PLAN for the SQL the Worker really ran (logged by QUERY_LOG=1, src/db/query-log.ts),
 * on the benchmark's D1 file. A full scan of a tenant table (one with an org_id column; the rule is
 * src/db/query-plan.ts `tenantTableScans`, which the workerd plan test applies too) fails the run:
 * its cost grows with every organization's data, not the caller's.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { TENANT_TABLES, tableAliases, tenantTableScans } from "../../src/db/query-plan";

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

const normalized = (sql: string) => sql.replace(/\s+/g, " ").trim();

/** An organization has more than this many rows in a table that grows with its business (settings tables stay far below). */
const GROWING_ROWS_PER_ORG = 1000;

export function explainAll(db: DatabaseSync, statements: LoggedStatement[]): PlannedStatement[] {
  const tenants = TENANT_TABLES;
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
    const names = tableAliases(first.sql);
    const tenantScans = tenantTableScans(
      plan.map((detail) => ({ detail })),
      { sql: first.sql },
    );
    const orgWideReads = plan.flatMap((detail, i) => {
      const searched = /^SEARCH (\w+) USING (?:COVERING )?INDEX \S+ \(org_id=\?\)/.exec(detail)?.[1];
      const table = searched === undefined ? undefined : (names.get(searched) ?? searched);
      return table !== undefined && growing(table) ? [{ table, nested: i > 0 && /^(SEARCH|SCAN|CORRELATED)/.test(plan[i - 1]) }] : [];
    });
    return { sql, phases: [...phases], calls, plan, tenantScans, orgWideReads };
  });
}
