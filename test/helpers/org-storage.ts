import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { OrganizationStore } from "../../src/durable-objects/org-storage";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { nextNightlyRun } from "../../src/jobs/org-nightly";

/** Rows of `query` on the organization's object's own SQLite. */
export async function rowsInObject<Row extends Record<string, SqlStorageValue>>(
  orgId: string,
  query: string,
  ...binds: SqlStorageValue[]
): Promise<Row[]> {
  return runInDurableObject(orgStore(env, orgId), (_, state) => state.storage.sql.exec<Row>(query, ...binds).toArray());
}

/**
 * The object's next three nightly runs after now, in the order its alarm meets them (`order`), and
 * each by its job: the aged alerts (00:15 UTC), the lender outcomes (05:00), the briefings (06:00).
 */
export function nightlyRuns() {
  const order = [nextNightlyRun(Date.now())];
  while (order.length < 3) order.push(nextNightlyRun(order[order.length - 1]));
  const at = (hhmm: string) => {
    const run = order.find((t) => new Date(t).toISOString().slice(11, 16) === hhmm);
    if (run === undefined) throw new Error(`no nightly run at ${hhmm}`);
    return run;
  };
  return { order, agedAt: at("00:15"), outcomesAt: at("05:00"), briefedAt: at("06:00") };
}

/**
 * The object's side of a move as a namespace whose `get` answers it: every call a move makes passed
 * through to `real`, but those given (a copy that goes wrong on the way).
 */
export function copyingThrough(real: ReturnType<typeof orgStore>, overrides: Partial<OrganizationStore>): Env["ORG_STORE"] {
  const calls = real as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
  const given = overrides as Record<string | symbol, unknown>;
  // Not a thenable: awaiting the stub must not call through.
  const store = new Proxy({}, { get: (_, name) => (name === "then" ? undefined : (given[name] ?? ((...args: unknown[]) => calls[name](...args)))) });
  return { idFromName: (name: string) => env.ORG_STORE.idFromName(name), get: () => store } as unknown as Env["ORG_STORE"];
}
