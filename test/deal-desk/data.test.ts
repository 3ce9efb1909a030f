import { beforeAll, describe, expect, it } from "vitest";
import {
  CREDIT_TIER_ROWS,
  FACTORY_WARRANTY_ROWS,
  FI_PRODUCT_ROWS,
  FI_WORD_TRACK_ROWS,
  LENDER_PROGRAM_ROWS,
  LENDER_ROUTING_SETTINGS_ROW,
  STIP_RULE_ROWS,
  STIP_TYPE_ROWS,
} from "../../scripts/deal-desk-reference";
import { DEMO_ORGANIZATIONS } from "../../src/demo/demo-data";
import { DEMO_TOUGH_LENDERS } from "../../src/demo/demo-data-deal-desk";
import { compareText } from "../../src/engines/deal-math";
import { loadDemoSeed, post } from "../helpers/deal-desk";
import { createApiKey } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";
import { all } from "../helpers/sql";

describe("reference migration", () => {
  it("ships the 53 programs over the six lender types, and every row the reference module holds", async () => {
    const programs = await all<{ id: string; name: string; type: string; rate_add: string }>(
      "SELECT id, name, type, rate_add FROM lender_programs ORDER BY id",
    );
    expect(programs).toHaveLength(53);
    expect(new Set(programs.map((p) => p.type))).toEqual(new Set(["captive", "bank", "credit_union", "subprime", "specialty", "bhph"]));
    expect(programs.map((p) => p.id)).toEqual(LENDER_PROGRAM_ROWS.map((p) => p.id).sort());
    const counts = await all<Record<string, number>>(
      "SELECT (SELECT count(*) FROM credit_tiers) AS tiers, (SELECT count(*) FROM stip_types) AS stip_types, (SELECT count(*) FROM stip_rules) AS stip_rules, (SELECT count(*) FROM fi_products) AS products",
    );
    expect(counts[0]).toEqual({
      tiers: CREDIT_TIER_ROWS.length,
      stip_types: STIP_TYPE_ROWS.length,
      stip_rules: STIP_RULE_ROWS.length,
      products: FI_PRODUCT_ROWS.length,
    });
    // Migration 0014: the ranking figures and the W-2 window, as the reference module holds them.
    expect(await all("SELECT approval_bucket_high, approval_bucket_low, down_tier_score_margin FROM lender_routing_settings")).toEqual([
      {
        approval_bucket_high: LENDER_ROUTING_SETTINGS_ROW.approvalBucketHigh,
        approval_bucket_low: LENDER_ROUTING_SETTINGS_ROW.approvalBucketLow,
        down_tier_score_margin: LENDER_ROUTING_SETTINGS_ROW.downTierScoreMargin,
      },
    ]);
    const seasonal = await all("SELECT id, active_from, active_until FROM stip_rules WHERE active_from IS NOT NULL ORDER BY id");
    expect(seasonal).toEqual(
      STIP_RULE_ROWS.filter((r) => r.activeFrom !== null).map((r) => ({ id: r.id, active_from: r.activeFrom, active_until: r.activeUntil })),
    );
    // Experian Q1 2025 (DOMAIN §1.2) as the tier APRs.
    expect(await all("SELECT tier, new_apr, used_apr FROM credit_tiers WHERE tier = 'near_prime'")).toEqual([
      { tier: "near_prime", new_apr: 9.83, used_apr: 13.74 },
    ]);
  });

  it("ships the coach's word tracks, warranty terms and GAP's high-LTV threshold exactly as the reference module holds them", async () => {
    const tracks = await all("SELECT id, product, claim, rank, template, source FROM fi_word_tracks ORDER BY id");
    expect(tracks).toEqual([...FI_WORD_TRACK_ROWS].sort((a, b) => compareText(a.id, b.id)));
    const terms = await all(
      "SELECT coverage, label, months, miles, ends_soon_months AS endsSoonMonths, ends_soon_miles AS endsSoonMiles, source FROM factory_warranty_terms ORDER BY months",
    );
    expect(terms).toEqual(FACTORY_WARRANTY_ROWS);
    const thresholds = await all<{ product: string; high_ltv_pct: number | null }>("SELECT product, high_ltv_pct FROM fi_products ORDER BY product");
    expect(thresholds).toEqual(
      FI_PRODUCT_ROWS.map((p) => ({ product: p.product, high_ltv_pct: p.highLtvPct })).sort((a, b) => compareText(a.product, b.product)),
    );
  });
});

const DEMO_ORG_IDS = DEMO_ORGANIZATIONS.map((org) => org.id);
const orgOfStore = (storeId: string) => DEMO_ORGANIZATIONS.find((org) => org.stores.some((store) => store.id === storeId))!.id;

/** `query`'s rows from each demo organization's object (its panels, deals and decisions live there), in the organizations' order. */
async function allStored<Row extends Record<string, SqlStorageValue>>(query: string, ...binds: SqlStorageValue[]): Promise<Row[]> {
  return (await Promise.all(DEMO_ORG_IDS.map((orgId) => rowsInObject<Row>(orgId, query, ...binds)))).flat();
}

/** The reference's program ids by name (D1's global rows). */
async function programIds(): Promise<Map<string, string>> {
  return new Map((await all<{ id: string; name: string }>("SELECT id, name FROM lender_programs")).map((p) => [p.name, p.id]));
}

describe("demo deal-desk data", () => {
  // Two years of both organizations' deals and decisions, generated and written into their objects.
  beforeAll(() => loadDemoSeed(), 30_000);

  it("puts 42 of the 53 programs on each demo store's panel, the lenders that funded its deals among them", async () => {
    const panels = await allStored<{ store_id: string; n: number }>(
      "SELECT store_id, count(*) AS n FROM store_lender_panel GROUP BY store_id ORDER BY store_id",
    );
    expect(panels).toEqual([
      { store_id: "sto_summit_north", n: 42 },
      { store_id: "sto_summit_south", n: 42 },
      { store_id: "sto_lakeside_main", n: 42 },
    ]);
    const ids = await programIds();
    const onPanel = new Set(
      (await allStored<{ store_id: string; program_id: string }>("SELECT store_id, program_id FROM store_lender_panel")).map(
        (p) => `${p.store_id} ${p.program_id}`,
      ),
    );
    const funders = await allStored<{ store_id: string; lender: string }>("SELECT DISTINCT store_id, lender FROM deals WHERE lender IS NOT NULL");
    const offPanelFunders = funders.filter((d) => ids.has(d.lender) && !onPanel.has(`${d.store_id} ${ids.get(d.lender)}`));
    expect(offPanelFunders).toEqual([]);
  });

  it("holds two years of decisions whose approval rate falls with the score band", async () => {
    const spans = await allStored<{ first: string; last: string; n: number }>(
      "SELECT min(submitted_on) AS first, max(submitted_on) AS last, count(*) AS n FROM lender_decisions",
    );
    expect(spans.reduce((n, span) => n + span.n, 0)).toBeGreaterThan(5000);
    for (const span of spans) expect(Date.parse(span.last) - Date.parse(span.first)).toBeGreaterThan(700 * 86_400_000);
    const byBand = await rowsInObject<{ score_band: string; approval: number }>(
      "org_summit",
      "SELECT score_band, avg(decision != 'declined') AS approval FROM lender_decisions GROUP BY score_band",
    );
    const rate = Object.fromEntries(byBand.map((b) => [b.score_band, b.approval]));
    expect(rate.super_prime).toBeGreaterThan(rate.subprime);
    expect(rate.prime).toBeGreaterThan(rate.deep_subprime);
  });

  it("has each tough lender decline its band far more than its other answers, and routing notices", async () => {
    const ids = await programIds();
    for (const tough of DEMO_TOUGH_LENDERS) {
      const [row] = await rowsInObject<{ declined: number; n: number }>(
        orgOfStore(tough.storeId),
        "SELECT avg(decision = 'declined') AS declined, count(*) AS n FROM lender_decisions WHERE store_id = ? AND program_id = ? AND score_band = ?",
        tough.storeId,
        ids.get(tough.lender)!,
        tough.band,
      );
      expect(row.n).toBeGreaterThan(20);
      expect(row.declined).toBeGreaterThan(0.6);
    }
    // Summit North's history with First Lantern Bank on prime paper keeps it off the top of a prime deal there.
    const { key } = await createApiKey("org_summit");
    const deal = { beacon: 720, down_payment: 4000, vehicle_price: 26_000, vehicle_type: "car" };
    const res = await post("/api/v1/lender-route", key, deal);
    const body = await res.json<{ primary: { lender: string }; avoid: string[]; store_id: string }>();
    expect(body.store_id).toBe("sto_summit_north");
    expect(body.primary.lender).not.toBe("First Lantern Bank");
    expect(body.avoid).toContain("First Lantern Bank");
  });
});
