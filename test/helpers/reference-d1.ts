import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { type Database, getDb } from "../../src/db/client";

/**
 * For engine tests in the Node project (no workerd, no D1): the reference rows the migrations ship,
 * in an in-memory SQLite with every migration applied in name order (as wrangler and
 * test/setup/apply-migrations.ts do), behind as much of D1's interface as drizzle's D1 driver uses.
 * The queries are the service's own (src/db/queries), so the engine sees what it sees in production.
 */
class NodeD1Statement {
  constructor(
    private readonly statement: StatementSync,
    private readonly params: SQLInputValue[] = [],
  ) {}
  bind(...params: unknown[]) {
    return new NodeD1Statement(this.statement, params as SQLInputValue[]);
  }
  async all() {
    this.statement.setReturnArrays(false);
    return { results: this.statement.all(...this.params), success: true, meta: {} };
  }
  async first(column?: string) {
    const row = (await this.all()).results[0] as Record<string, unknown> | undefined;
    return column === undefined ? (row ?? null) : (row?.[column] ?? null);
  }
  async raw() {
    this.statement.setReturnArrays(true);
    return this.statement.all(...this.params);
  }
  async run() {
    this.statement.run(...this.params);
    return { results: [], success: true, meta: {} };
  }
}

function migratedDatabase() {
  const sqlite = new DatabaseSync(":memory:");
  const migrations = path.join(import.meta.dirname, "../../migrations");
  for (const file of readdirSync(migrations)
    .filter((name) => name.endsWith(".sql"))
    .sort()) {
    sqlite.exec(readFileSync(path.join(migrations, file), "utf8"));
  }
  return {
    prepare: (sql: string) => new NodeD1Statement(sqlite.prepare(sql)),
    batch: (statements: NodeD1Statement[]) => Promise.all(statements.map((statement) => statement.all())),
  };
}

let reference: ReturnType<typeof migratedDatabase> | null = null;

/** The migrated reference database (built once per test file), as a D1 binding. */
export function referenceD1(): D1Database {
  reference ??= migratedDatabase();
  return reference as unknown as D1Database;
}

/** A drizzle client on it, for the src/db/queries loaders. */
export const referenceDb = (): Database => getDb(referenceD1());

/** An organization id with no rows of its own: its loaders return the shipped defaults. */
export const ORG_WITHOUT_OWN_ROWS = "org_reference_defaults";
