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
import { DEMO_TOUGH_LENDERS } from "../../src/demo/demo-data-deal-desk";
import { compareText } from "../../src/engines/deal-math";
import { loadDemoSeed, post } from "../helpers/deal-desk";
import { createApiKey } from "../helpers/factories";
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

describe("demo deal-desk data", () => {
  beforeAll(() => loadDemoSeed());

  it("puts 42 of the 53 programs on each demo store's panel, the lenders that funded its deals among them", async () => {
    const panels = await all<{ store_id: string; n: number }>(
      "SELECT store_id, count(*) AS n FROM store_lender_panel GROUP BY store_id ORDER BY store_id",
    );
    expect(panels).toEqual([
      { store_id: "sto_lakeside_main", n: 42 },
      { store_id: "sto_summit_north", n: 42 },
      { store_id: "sto_summit_south", n: 42 },
    ]);
    const offPanelFunders = await all(
      `SELECT DISTINCT d.lender FROM deals d JOIN lender_programs p ON p.name = d.lender
       WHERE NOT EXISTS (SELECT 1 FROM store_lender_panel s WHERE s.store_id = d.store_id AND s.program_id = p.id)`,
    );
    expect(offPanelFunders).toEqual([]);
  });

  it("holds two years of decisions whose approval rate falls with the score band", async () => {
    const span = await all<{ first: string; last: string; n: number }>(
      "SELECT min(submitted_on) AS first, max(submitted_on) AS last, count(*) AS n FROM lender_decisions WHERE org_id IN ('org_summit', 'org_lakeside')",
    );
    expect(span[0].n).toBeGreaterThan(5000);
    expect(Date.parse(span[0].last) - Date.parse(span[0].first)).toBeGreaterThan(700 * 86_400_000);
    const byBand = await all<{ score_band: string; approval: number }>(
      "SELECT score_band, avg(decision != 'declined') AS approval FROM lender_decisions WHERE org_id = 'org_summit' GROUP BY score_band",
    );
    const rate = Object.fromEntries(byBand.map((b) => [b.score_band, b.approval]));
    expect(rate.super_prime).toBeGreaterThan(rate.subprime);
    expect(rate.prime).toBeGreaterThan(rate.deep_subprime);
  });

  it("has each tough lender decline its band far more than its other answers, and routing notices", async () => {
    for (const tough of DEMO_TOUGH_LENDERS) {
      const [row] = await all<{ declined: number; n: number }>(
        `SELECT avg(d.decision = 'declined') AS declined, count(*) AS n FROM lender_decisions d JOIN lender_programs p ON p.id = d.program_id
         WHERE d.store_id = ? AND p.name = ? AND d.score_band = ?`,
        tough.storeId,
        tough.lender,
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
