import { type Database, getDb } from "../db/client";
import { deleteSandbox, deleteSandboxRequestsBefore, findExpiredSandboxes, tablesWithOrgId } from "../db/queries/sandboxes";
import { orgStore } from "../durable-objects/org-storage-routing";
import { logEvent } from "../lib/log";

/**
 * Sandboxes purged per run. One sandbox is a bounded set of rows (src/routes/sandboxes: about
 * 20,000), deleted in one batch well inside D1's 30 s, and one object; a backlog drains over the
 * following nights.
 */
const SANDBOXES_PURGED_PER_RUN = 5;

/**
 * One sandbox purged: its storage object (its inventory), then its D1 rows (everything else, then
 * the organization). In that order a purge cut short leaves the organization in D1, still expired,
 * so the next run finds it and finishes (the object's purge of an emptied object does nothing);
 * the other order could leave an object no run would find again. Meanwhile D1's rows lead nowhere:
 * an expired sandbox's credentials are refused, and the emptied object serves nothing.
 */
export async function purgeSandbox(env: Pick<Env, "ORG_STORE">, db: Database, tables: readonly string[], orgId: string): Promise<void> {
  await orgStore(env, orgId).purgeSandbox(orgId);
  await deleteSandbox(db, tables, orgId);
}

/** The 00:15 purge: expired sandboxes (already refused since their expiry) and old per-address counts. */
export async function purgeExpiredSandboxes(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  await deleteSandboxRequestsBefore(db, now.toISOString().slice(0, 10));
  const expired = await findExpiredSandboxes(db, now.toISOString(), SANDBOXES_PURGED_PER_RUN);
  if (expired.length === 0) return;
  const tables = await tablesWithOrgId(db);
  for (const orgId of expired) {
    await purgeSandbox(env, db, tables, orgId);
    logEvent("info", { event: "sandbox_purged", org_id: orgId });
  }
}
