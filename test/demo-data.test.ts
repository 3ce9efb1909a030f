import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEMO_DEAL_DESK_REFERENCE } from "../scripts/deal-desk-reference";
import { apiKeyDisplayPrefix, generateApiKey, sha256Hex } from "../src/credentials/tokens";
import { buildDemoSeed, type DemoCredentials, demoOrgSeeds } from "../src/demo/demo-data";
import { call, createOrg } from "./helpers/factories";
import { createOperatorToken } from "./helpers/operator";
import { rowsInObject } from "./helpers/org-storage";
import { brokerCall } from "./helpers/staff";

const summitKey = generateApiKey();

/** The seed script's part: D1's rows of the demo organizations, their objects left empty. */
async function seedD1() {
  const org = { apiKeyHash: "0".repeat(64), apiKeyPrefix: "lak_demo", brokerTokenHash: "1".repeat(64), staffPasswordHash: "x" };
  const credentials: DemoCredentials = {
    summit: {
      ...org,
      apiKeyHash: await sha256Hex(summitKey),
      apiKeyPrefix: apiKeyDisplayPrefix(summitKey),
      staffEmail: "desk@summit.test",
      legacyTokenHash: "2".repeat(64),
    },
    lakeside: { ...org, apiKeyHash: "3".repeat(64), brokerTokenHash: "4".repeat(64), staffEmail: "gm@lakeside.test" },
  };
  const { statements } = buildDemoSeed({
    referenceDate: "2026-11-20",
    organizations: demoOrgSeeds(credentials),
    dealDeskReference: DEMO_DEAL_DESK_REFERENCE,
  });
  await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
}

const openDemoData = (token: string, orgId: string) => brokerCall(`/api/operator/organizations/${orgId}/demo-data`, token, { method: "POST" });

describe("POST /api/operator/organizations/{org_id}/demo-data", () => {
  // Two years of one organization's deals and decisions, generated and written in the test's runtime.
  it("opens a seeded demo organization's empty object with its rows as of today, once", async () => {
    const operator = await createOperatorToken();
    // Not yet in D1: the seed creates the organization first.
    expect((await openDemoData(operator, "org_summit")).status).toBe(404);
    await seedD1();

    const opened = await openDemoData(operator, "org_summit");
    expect(opened.status).toBe(200);
    const body = await opened.json<{ org_id: string; reference_date: string; rows: Record<string, number> }>();
    expect(body.org_id).toBe("org_summit");
    expect(body.reference_date).toBe(new Date().toISOString().slice(0, 10));
    expect(body.rows.stores).toBe(2);
    expect(body.rows.inventory_units).toBeGreaterThan(280);
    expect(body.rows.deals).toBeGreaterThan(0);
    expect(await rowsInObject("org_summit", "SELECT count(*) AS n FROM inventory_units")).toEqual([{ n: body.rows.inventory_units }]);
    // The stores' own settings (docs/domain/gross.md's defaults, varied per store), not the defaults.
    expect(await rowsInObject("org_summit", "SELECT id, pack_new, recon_truck FROM stores ORDER BY id")).toEqual([
      { id: "sto_summit_north", pack_new: 300, recon_truck: 1400 },
      { id: "sto_summit_south", pack_new: 350, recon_truck: 1500 },
    ]);

    const feed = await call("/api/v1/inventory", { key: summitKey });
    expect(feed.status).toBe(200);
    expect((await feed.json<{ count: number }>()).count).toBeGreaterThan(0);

    const again = await openDemoData(operator, "org_summit");
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: "conflict" });
    expect(await rowsInObject("org_summit", "SELECT count(*) AS n FROM inventory_units")).toEqual([{ n: body.rows.inventory_units }]);
  }, 30_000);

  it("refuses a live organization, one merely flagged demo, and an unknown id", async () => {
    const operator = await createOperatorToken();
    const live = await createOrg();
    const demoFlagged = await createOrg({ isDemo: true });
    for (const orgId of [live.id, demoFlagged.id, "org_nope_nope"]) {
      const res = await openDemoData(operator, orgId);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: "not_found" });
    }
    expect((await call("/api/operator/organizations/org_lakeside/demo-data", { method: "POST" })).status).toBe(401);
  });
});
