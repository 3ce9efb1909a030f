/**
 * The last move's two migrations (docs/scaling.md#the-last-move-d1s-per-organization-tables-dropped): 0050 refuses while any
 * organization is not in its object and marks every organization created from then on as born in it; 0051 drops D1's
 * per-organization tables, refused while 0050 is younger than 10 minutes on a database that holds organizations.
 * Their statements are run here on a D1 that has applied both, with the storage flag put back as the release before had it.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const statementsOf = (prefix: string) => env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix))?.queries ?? [];
/** 0050's refusal (the scratch table with its named CHECK, filled from `organizations`, dropped) and its trigger. */
const [refusal, trigger] = [statementsOf("0050_").slice(0, 3), statementsOf("0050_").slice(3, 4)];
/** 0051's guard: the same, filled from the time 0050 ran (`last_move_expanded_at`, which it then drops). */
const guard = statementsOf("0051_").slice(0, 4);

const run = (queries: string[]) => env.DB.batch(queries.map((query) => env.DB.prepare(query)));
const exists = async (name: string) => (await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = ?").bind(name).all()).results.length > 0;

describe("migration 0050: every organization in its object", () => {
  beforeAll(async () => {
    await run([
      "ALTER TABLE organizations ADD COLUMN storage text NOT NULL DEFAULT 'd1'",
      "INSERT INTO organizations (id, name, storage) VALUES ('org_mig_moved', 'Moved', 'object'), ('org_mig_left', 'Left in D1', 'd1')",
    ]);
  });
  afterAll(async () => {
    await run([
      "DROP TRIGGER IF EXISTS organizations_born_in_their_objects",
      "DELETE FROM organizations WHERE id LIKE 'org_mig_%'",
      "ALTER TABLE organizations DROP COLUMN storage",
    ]);
  });

  it("refuses, naming the rule, while an organization is not in its object, and leaves nothing behind", async () => {
    expect(refusal.join("\n")).toContain("CHECK (`storage` = 'object')");
    await expect(run(refusal)).rejects.toThrow(/every_organization_in_its_object/);
    expect(await exists("every_organization_in_its_object")).toBe(false);
  });

  it("runs once every organization is in its object; an organization created afterwards is marked as born in it", async () => {
    await run(["UPDATE organizations SET storage = 'object' WHERE id = 'org_mig_left'"]);
    await run([...refusal, ...trigger]);
    expect(await exists("every_organization_in_its_object")).toBe(false);
    // The previous release's Workers still read the flag during the deploy's overlap; this release's code does not write it.
    await run(["INSERT INTO organizations (id, name) VALUES ('org_mig_new', 'Born during the overlap')"]);
    expect(await env.DB.prepare("SELECT storage FROM organizations WHERE id = 'org_mig_new'").first()).toEqual({ storage: "object" });
  });
});

describe("migration 0051: D1's per-organization tables dropped", () => {
  /** 0050's record of when it ran, `minutes` ago (0051 dropped it). */
  const expandedAgo = (minutes: number) => [
    "CREATE TABLE IF NOT EXISTS last_move_expanded_at (at text NOT NULL)",
    "DELETE FROM last_move_expanded_at",
    `INSERT INTO last_move_expanded_at (at) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-${minutes} minutes'))`,
  ];
  afterAll(async () => {
    await run(["DELETE FROM organizations WHERE id = 'org_mig_guard'", "DROP TABLE IF EXISTS last_move_expanded_at"]);
  });

  it("is refused, naming the rule, when 0050 is younger than 10 minutes on a database with organizations: the release's code is not deployed yet", async () => {
    await run([...expandedAgo(2), "INSERT INTO organizations (id, name) VALUES ('org_mig_guard', 'Guard')"]);
    await expect(run(guard)).rejects.toThrow(/apply_0051_after_deploying_this_release/);
    expect(await exists("deployed_before_dropping")).toBe(false);
    expect(await exists("last_move_expanded_at")).toBe(true);
  });

  it("runs 10 minutes after 0050, or at once on a database without organizations (a fresh one)", async () => {
    await run(expandedAgo(11));
    await run(guard);
    expect(await exists("last_move_expanded_at")).toBe(false);
    await run(["DELETE FROM organizations WHERE id = 'org_mig_guard'", ...expandedAgo(0)]);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM organizations").first()).toEqual({ n: 0 });
    await run(guard);
    expect(await exists("deployed_before_dropping")).toBe(false);
  });

  it("leaves D1 no per-organization table: the directory of stores without their settings, organizations without a flag", async () => {
    const tables = (await env.DB.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')").all<{ name: string }>()).results.map(
      (t) => t.name,
    );
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
    expect(tables.filter((name) => name.includes("move") || name === "organizations_born_in_their_objects")).toEqual([]);
    const columns = async (table: string) =>
      (await env.DB.prepare(`SELECT name FROM pragma_table_info('${table}')`).all<{ name: string }>()).results.map((c) => c.name).sort();
    expect(await columns("stores")).toEqual(["created_at", "id", "is_primary", "market_zip", "name", "org_id"]);
    expect(await columns("organizations")).not.toContain("storage");
  });
});
