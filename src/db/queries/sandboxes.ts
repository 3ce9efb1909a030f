import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Database } from "../client";
import { organizations, sandboxRequests } from "../schema";

/** Counts one more sandbox for the address (a keyed hash) on the day, and returns the day's count so far. */
export async function countSandboxRequest(db: Database, day: string, addressHash: string): Promise<number> {
  const [row] = await db
    .insert(sandboxRequests)
    .values({ day, addressHash, count: 1 })
    .onConflictDoUpdate({ target: [sandboxRequests.day, sandboxRequests.addressHash], set: { count: sql`${sandboxRequests.count} + 1` } })
    .returning({ count: sandboxRequests.count });
  return row.count;
}

/** Counts of days before `beforeDay` are no longer needed for the daily cap. */
export async function deleteSandboxRequestsBefore(db: Database, beforeDay: string): Promise<void> {
  await db.delete(sandboxRequests).where(sql`${sandboxRequests.day} < ${beforeDay}`);
}

/** Sandboxes whose expiry has passed, oldest expiry first, at most `limit`. */
export async function findExpiredSandboxes(db: Database, now: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.isSandbox, true), lte(organizations.expiresAt, now)))
    .orderBy(asc(organizations.expiresAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Whether the organization exists and is a sandbox: what its storage object's purge requires. */
export async function isSandbox(db: Database, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.id, orgId), eq(organizations.isSandbox, true)))
    .limit(1);
  return row !== undefined;
}

/** Whether the organization exists as a demo organization the seed created (not a sandbox): what the demo data is written for. */
export async function isDemoOrganization(db: Database, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.id, orgId), eq(organizations.isDemo, true), eq(organizations.isSandbox, false)))
    .limit(1);
  return row !== undefined;
}

/**
 * Every table with an `org_id` column, read from the schema itself, so a table added later is
 * purged without anyone remembering to list it here.
 */
export async function tablesWithOrgId(db: Database): Promise<string[]> {
  // D1 refuses the pragma table functions (pragma_table_info) but answers PRAGMA statements.
  const tables = await db.all<{ name: string }>(
    sql`SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' AND substr(name, 1, 4) <> '_cf_' ORDER BY name`,
  );
  if (tables.length === 0) return [];
  // Drizzle batches no `all`; the client's own batch reads every table's columns in one round trip.
  const columns = await db.$client.batch<{ name: string }>(
    tables.map((t) => db.$client.prepare(`PRAGMA table_info("${t.name.replaceAll('"', '""')}")`)),
  );
  return tables.filter((_, i) => columns[i].results.some((column) => column.name === "org_id")).map((t) => t.name);
}

/**
 * Deletes a sandbox and every row of it, in one atomic batch. Foreign-key checks are deferred to
 * the batch's end, so the order of the tables does not matter; each delete also requires the
 * organization to be a sandbox, so a live organization's id can never be purged through here.
 */
export async function deleteSandbox(db: Database, tables: readonly string[], orgId: string): Promise<void> {
  const d1 = db.$client;
  const isSandbox = "EXISTS (SELECT 1 FROM organizations WHERE id = ?1 AND is_sandbox = 1)";
  await d1.batch([
    d1.prepare("PRAGMA defer_foreign_keys = on"),
    ...tables.map((table) => d1.prepare(`DELETE FROM "${table.replaceAll('"', '""')}" WHERE org_id = ?1 AND ${isSandbox}`).bind(orgId)),
    d1.prepare("DELETE FROM organizations WHERE id = ?1 AND is_sandbox = 1").bind(orgId),
  ]);
}
