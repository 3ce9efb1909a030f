import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { orgStore } from "../../src/durable-objects/org-storage-routing";

/**
 * Fires the organization's object's alarm until its nightly run at `at` (a time `nightlyRuns` or
 * `nextNightlyRun` gave) has run: each firing runs what is due first (an earlier run, the outbox's
 * relay), then the alarm is set past it (src/durable-objects/org-storage.ts).
 */
export async function runNightlyThrough(orgId: string, at: number): Promise<void> {
  const stub = orgStore(env, orgId);
  const alarm = () => runInDurableObject(stub, (_, state) => state.storage.getAlarm());
  for (let next = await alarm(); next !== null && next <= at; next = await alarm())
    if (!(await runDurableObjectAlarm(stub))) throw new Error(`the alarm of ${orgId} did not run`);
}
