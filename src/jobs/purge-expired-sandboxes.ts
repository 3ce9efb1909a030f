import { getDb } from "../db/client";
import { deleteSandbox, deleteSandboxRequestsBefore, findExpiredSandboxes, tablesWithOrgId } from "../db/queries/sandboxes";
import { logEvent } from "../lib/log";

/**
 * Sandboxes purged per run. One sandbox is a bounded set of rows (src/routes/sandboxes: about
 * 20,000), deleted in one batch well inside D1's 30 s; a backlog drains over the following nights.
 */
const SANDBOXES_PURGED_PER_RUN = 5;

/** The 00:15 purge: expired sandboxes (already refused since their expiry) and old per-address counts. */
export async function purgeExpiredSandboxes(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  await deleteSandboxRequestsBefore(db, now.toISOString().slice(0, 10));
  const expired = await findExpiredSandboxes(db, now.toISOString(), SANDBOXES_PURGED_PER_RUN);
  if (expired.length === 0) return;
  const tables = await tablesWithOrgId(db);
  for (const orgId of expired) {
    await deleteSandbox(db, tables, orgId);
    logEvent("info", { event: "sandbox_purged", org_id: orgId });
  }
}
