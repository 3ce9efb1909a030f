import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/durable-sqlite";
import type { OrgStoreDb } from "../../src/db/org-store";
import { orgStore } from "../../src/durable-objects/org-storage-routing";

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

/**
 * The organization's object refuses every `statement` on `table` where `when` (an SQL condition on
 * NEW) holds: a trigger that aborts it, as D1 refusing a write would for an organization there, so
 * the transaction it is part of rolls back and the object's own code runs unchanged up to the
 * fault. Returns the undo.
 */
export async function objectRefuses(orgId: string, table: string, statement: "INSERT" | "UPDATE", when = "1"): Promise<() => Promise<void>> {
  const trigger = `test_refuses_${statement.toLowerCase()}_${table}`;
  const sql = (query: string) => runInDurableObject(orgStore(env, orgId), (_, state) => void state.storage.sql.exec(query));
  await sql(`CREATE TRIGGER ${trigger} BEFORE ${statement} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
  return () => sql(`DROP TRIGGER ${trigger}`);
}

/**
 * The organization's object queues its redeliveries and samples on `queue` (a capturing one, or one
 * that refuses) instead of its WEBHOOKS binding: they are sent from the object, never through the
 * Worker's env a test passes. Returns the undo.
 */
export async function objectSendsTo(orgId: string, queue: Env["WEBHOOKS"]): Promise<() => Promise<void>> {
  const swap = (to: (real: Env) => Env) =>
    runInDurableObject(orgStore(env, orgId), (instance) => {
      const object = instance as unknown as { env: Env };
      object.env = to(object.env);
    });
  let real: Env | undefined;
  await swap((current) => {
    real = current;
    return { ...current, WEBHOOKS: queue };
  });
  return () => swap((current) => real ?? current);
}

/** Fires the organization's object's alarm until it is set past `until` (epoch ms): each timer due by then runs, in order. */
export async function runAlarmsThrough(orgId: string, until: number): Promise<void> {
  const stub = orgStore(env, orgId);
  for (;;) {
    const next = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
    if (next === null || next > until) return;
    if (!(await runDurableObjectAlarm(stub))) throw new Error(`the alarm of ${orgId} did not run`);
  }
}

/**
 * The object sets its feeds' check again from its rows, as it does after a delivery: for a test that
 * moved a delivery back in time, so the alarm is due for that check (and not, earlier than its time, for the nightly run).
 */
export const rearmFeedCheck = (orgId: string) =>
  runInDurableObject(orgStore(env, orgId), (instance) => (instance as unknown as { armFeedCheck(orgId: string): Promise<void> }).armFeedCheck(orgId));

/**
 * The object's nightly run of `at` once more, as its retry would run it (each run is idempotent),
 * then every timer due by `until`.
 */
export async function rerunNight(orgId: string, at: number, until = at): Promise<void> {
  await runInDurableObject(orgStore(env, orgId), async (_, state) => {
    await state.storage.put("nightly_at", at);
    await state.storage.setAlarm(at);
  });
  await runAlarmsThrough(orgId, until);
}
