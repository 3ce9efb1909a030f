/**
 * Migration 0050 drops D1's copy of every per-organization table (docs/scaling.md#the-last-move-d1s-per-organization-tables-dropped):
 * it must refuse to run while any organization is still served by D1, before it drops anything.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0050_"));
/** Its refusal: the scratch table with the named CHECK, filled from `organizations`, then dropped. */
const refusal = migration?.queries.slice(0, 3) ?? [];

const run = (queries: string[]) => env.DB.batch(queries.map((query) => env.DB.prepare(query)));
const scratchTables = async () =>
  (await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = 'every_organization_in_its_object'").all()).results.length;

describe("migration 0050: D1's per-organization tables dropped", () => {
  // The flag as the release before had it: the migration reads it before it drops it.
  beforeAll(async () => {
    await run([
      "ALTER TABLE organizations ADD COLUMN storage text NOT NULL DEFAULT 'object'",
      "INSERT INTO organizations (id, name, storage) VALUES ('org_mig_moved', 'Moved', 'object'), ('org_mig_left', 'Left in D1', 'd1')",
    ]);
  });
  afterAll(async () => {
    await run(["DELETE FROM organizations WHERE id LIKE 'org_mig_%'", "ALTER TABLE organizations DROP COLUMN storage"]);
  });

  it("refuses, naming the rule, while an organization is not in its object, and leaves nothing behind", async () => {
    expect(refusal.join("\n")).toContain("CHECK (`storage` = 'object')");
    await expect(run(refusal)).rejects.toThrow(/every_organization_in_its_object/);
    expect(await scratchTables()).toBe(0);
  });

  it("runs once every organization is in its object", async () => {
    await run(["UPDATE organizations SET storage = 'object' WHERE id = 'org_mig_left'"]);
    await run(refusal);
    expect(await scratchTables()).toBe(0);
  });

  it("leaves D1 no per-organization table: only the directory of stores, without their settings", async () => {
    const tables = (await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>()).results.map((t) => t.name);
    for (const gone of [
      "inventory_units",
      "deals",
      "deal_stips",
      "compliance_checks",
      "webhook_endpoints",
      "morning_briefings",
      "org_storage_moves",
    ]) {
      expect(tables).not.toContain(gone);
    }
    const storeColumns = (await env.DB.prepare("SELECT name FROM pragma_table_info('stores')").all<{ name: string }>()).results.map((c) => c.name);
    expect(storeColumns.sort()).toEqual(["created_at", "id", "is_primary", "market_zip", "name", "org_id"]);
  });
});
