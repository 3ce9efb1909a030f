import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { orgStore } from "../../src/durable-objects/org-storage-routing";

/**
 * The organization's object refuses every `statement` on `table` (a trigger that aborts it), as D1
 * refusing a write would for an organization there; the transaction it is part of rolls back.
 * Returns the undo.
 */
export async function objectRefuses(orgId: string, table: string, statement: "INSERT" | "UPDATE"): Promise<() => Promise<void>> {
  const trigger = `test_refuses_${statement.toLowerCase()}_${table}`;
  const sql = (query: string) => runInDurableObject(orgStore(env, orgId), (_, state) => void state.storage.sql.exec(query));
  await sql(`CREATE TRIGGER ${trigger} BEFORE ${statement} ON ${table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
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
    await runDurableObjectAlarm(stub);
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
