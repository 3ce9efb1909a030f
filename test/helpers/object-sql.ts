import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/durable-sqlite";
import type { OrgStoreDb } from "../../src/db/org-store";
import { orgStore } from "../../src/durable-objects/org-storage-routing";

/**
 * A write in the organization's object made to fail from inside its transaction: an insert into
 * `table` (where `when`, an SQL condition on NEW, holds) aborts, as a failing statement of D1's
 * batch did. Returns the undo. A trigger, so the object's own code runs unchanged up to the fault.
 */
export async function failingObjectInserts(orgId: string, table: string, when = "1"): Promise<() => Promise<void>> {
  const name = `test_fail_${table}`;
  await runInDurableObject(orgStore(env, orgId), (_, state) => {
    state.storage.sql.exec(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
  });
  return () => runInDurableObject(orgStore(env, orgId), (_, state) => void state.storage.sql.exec(`DROP TRIGGER ${name}`));
}

/** Every statement the organization's object runs from now on, with its bound-parameter count; `stop` ends the recording. */
export async function recordingObjectSql(orgId: string) {
  const boundCounts: number[] = [];
  const stop = await runInDurableObject(orgStore(env, orgId), (_, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec;
    sql.exec = <T extends Record<string, SqlStorageValue>>(query: string, ...binds: SqlStorageValue[]) => {
      boundCounts.push(binds.length);
      return exec.call<SqlStorage, [string, ...SqlStorageValue[]], SqlStorageCursor<T>>(sql, query, ...binds);
    };
    return () => {
      sql.exec = exec;
    };
  });
  return { boundCounts, stop: () => runInDurableObject(orgStore(env, orgId), () => stop()) };
}

/**
 * Runs statements that D1's query modules build (e.g. `upsertUnits`) in the organization's object,
 * in one transaction, as the object's own writes run them: a test's bulk setup where the data is.
 */
export async function writeInObject(orgId: string, statements: (db: OrgStoreDb) => BatchItem<"sqlite">[]): Promise<void> {
  await runInDurableObject(orgStore(env, orgId), (_, state) => {
    const db = drizzle(state.storage);
    db.transaction(() => {
      for (const statement of statements(db)) (statement as unknown as { run(): void }).run();
    });
  });
}
