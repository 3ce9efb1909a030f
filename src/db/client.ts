import { fillPlaceholders } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";

/**
 * Queries use the query builder with tables imported from ./schema, never the relational
 * `db.query` API, so clients are built without the schema: drizzle walks every table of a schema
 * it is given, a measurable share of every request once the tables grew (BENCHMARKS.md#figures-behind-choices-in-the-code).
 */
export type Database = DrizzleD1Database & { $client: D1Database };

/**
 * Any drizzle SQLite client: D1, or an organization's own SQLite in a Durable Object (the design
 * of docs/scaling.md). A read query typed with it runs unchanged on either.
 */
export type SqliteReader = BaseSQLiteDatabase<"sync" | "async", unknown>;

/**
 * Where a request's reads may start (D1 read replication, Sessions API). `nearest-replica` reads
 * from whichever copy is closest to the caller and may lag the primary by a few seconds;
 * `primary` sees every committed write. Writes always go to the primary, and the reads of one
 * session are sequentially consistent either way: a request sees its own writes.
 */
export type ReadConsistency = "nearest-replica" | "primary";

const SESSION_CONSTRAINT: Record<ReadConsistency, D1SessionConstraint> = {
  "nearest-replica": "first-unconstrained",
  primary: "first-primary",
};

const clients = new WeakMap<D1Database, Database>();

/** A client on the binding itself, for jobs and background work outside a request's session. */
export function getDb(d1: D1Database): Database {
  let db = clients.get(d1);
  if (!db) {
    db = drizzle(d1);
    clients.set(d1, db);
  }
  return db;
}

/** One request's session, opened on its first use (see `getSessionDb`). */
interface LazySession {
  d1: D1Database;
  consistency: ReadConsistency;
  client: Database | undefined;
}

/** Shared by every request's session, so a request that never reads allocates only its session's two objects. */
const openOnFirstUse: ProxyHandler<LazySession> = {
  get(session, property) {
    // drizzle's D1 driver only calls prepare() and batch(), which a session has as well.
    session.client ??= drizzle(session.d1.withSession(SESSION_CONSTRAINT[session.consistency]) as unknown as D1Database) as Database;
    const client = session.client;
    const value = Reflect.get(client, property, client);
    return typeof value === "function" ? value.bind(client) : value;
  },
};

/**
 * A client bound to one D1 session, for one request. The session and its client are opened on the
 * first use: most requests (cached feeds and credentials, public answers) never reach D1, and
 * opening a session and a client for them was a measurable share of a cached request.
 */
export function getSessionDb(d1: D1Database, consistency: ReadConsistency): Database {
  return new Proxy<LazySession>({ d1, consistency, client: undefined }, openOnFirstUse) as unknown as Database;
}

/** SQL built once with drizzle (`toSQL()`, its values as `sql.placeholder`s) and run many times. */
export interface SqlTemplate {
  sql: string;
  params: unknown[];
}

/**
 * A built statement (SqlTemplate) with one call's values, unexecuted, and how to read its rows
 * (as objects: a D1 batch gives no arrays). `runBatch` runs it, alone or in a batch with drizzle's
 * statements, so a hot write can skip drizzle's per-call query building and still share a batch.
 */
export interface TemplateCall<Result> {
  sql: string;
  params: unknown[];
  read(rows: Record<string, unknown>[]): Result;
}

/** `statement` with `values` for its placeholders (drizzle refuses a placeholder without one). */
export function callTemplate<Result>(
  statement: SqlTemplate,
  values: Record<string, unknown>,
  read: (rows: Record<string, unknown>[]) => Result,
): TemplateCall<Result> {
  return { sql: statement.sql, params: fillPlaceholders(statement.params, values), read };
}

/**
 * Runs a built statement and returns its rows as arrays in select order: the prepared statement's
 * `raw()` on D1, the cursor's `raw()` in a Durable Object's SQLite. Hot reads use it to skip
 * drizzle's per-call query building and row mapping (BENCHMARKS.md, "Profiles").
 */
export async function readRowArrays<Row extends unknown[]>(
  db: SqliteReader,
  statement: SqlTemplate,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const params = fillPlaceholders(statement.params, values);
  const client = (db as unknown as { $client: D1Database | DurableObjectStorage }).$client;
  if ("prepare" in client)
    return client
      .prepare(statement.sql)
      .bind(...params)
      .raw<Row>();
  return Array.from(client.sql.exec(statement.sql, ...(params as SqlStorageValue[])).raw()) as Row[];
}
