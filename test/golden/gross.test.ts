/**
 * Golden scenarios for true-cost gross and the aging policy, as a desk or used-car manager states
 * them. Each names the rule that decides it (docs/domain/gross.md#…).
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { loadAppraisalReference } from "../../src/db/queries/appraisal";
import { auctionEstimate, decideAging, valueRetained } from "../../src/engines/aged-inventory/recommendation";
import { appraise } from "../../src/engines/appraisal/appraise";
import { calculateGross, type GrossInput, targetPrice } from "../../src/engines/gross";
import { dailyHoldingCost, holdingCostFor, holdingFiguresOf } from "../../src/engines/holding-cost";
import { post } from "../helpers/deal-desk";
import { COACH_REFERENCE, DEFAULT_STORE } from "../helpers/deal-desk-reference";
import { createApiKey, createOrg, createStore } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";

const TARGETS = COACH_REFERENCE.frontGrossTargets;
const FIGURES = holdingFiguresOf(DEFAULT_STORE);
const gross = (input: Partial<GrossInput> & Pick<GrossInput, "purchasePrice" | "sellingPrice" | "daysOnLot">) =>
  calculateGross({ vehicleType: "car", condition: "used", ...input }, DEFAULT_STORE, TARGETS);

/** Every dollar figure a sentence names right after `lead` (e.g. "retail it this week at $21,495"). */
const pricesAfter = (text: string, lead: string) =>
  [...text.matchAll(new RegExp(`${lead} \\$([\\d,]+)`, "g"))].map((m) => Number(m[1].replaceAll(",", "")));
/** Every retail price a recommendation asks for. */
const retailAsks = (text: string) => [
  ...pricesAfter(text, "Reprice to"),
  ...pricesAfter(text, "price it at"),
  ...pricesAfter(text, "hold at"),
  ...pricesAfter(text, "Retail it now at"),
];
/** Every deadline a recommendation sets, in days from today. */
const deadlines = (text: string) => [
  ...[...text.matchAll(/in the (-?\d+) days before/g)].map((m) => Number(m[1])),
  ...[...text.matchAll(/ages in (-?\d+) days/g)].map((m) => Number(m[1])),
  ...[...text.matchAll(/cushion in (-?\d+) days/g)].map((m) => Number(m[1])),
  ...[...text.matchAll(/before (\d+) days/g)].map(() => -1), // "turn it before 60 days" names no distance: never allowed
];

describe("holding cost (docs/domain/gross.md#holding-cost)", () => {
  it("a $45,000 unit carries $80 a day in gross-calc, the same figure the appraisal engine uses", () => {
    expect(gross({ purchasePrice: 45_000, sellingPrice: 49_995, daysOnLot: 10 }).daily_carrying_cost).toBe(80);
    expect(dailyHoldingCost(45_000, FIGURES)).toBe(80);
  });

  it("a $29,999 unit carries $35 a day all-in; at $30,000 it carries $65", () => {
    expect(gross({ purchasePrice: 29_999, sellingPrice: 33_995, daysOnLot: 10 }).daily_carrying_cost).toBe(35);
    expect(gross({ purchasePrice: 30_000, sellingPrice: 33_995, daysOnLot: 10 }).daily_carrying_cost).toBe(65);
  });

  it("the floor-plan interest is inside the $35, not on top of it: 52 days on an $18,500 car is $1,820 of holding", () => {
    const r = gross({ purchasePrice: 18_500, sellingPrice: 22_995, daysOnLot: 52 });
    expect(r.holding_cost_allocated).toBe(1820);
    expect(r.breakdown.floor_plan_interest + r.breakdown.daily_holding).toBeCloseTo(1820, 2);
    expect(r.true_cost).toBe(r.breakdown.purchase_price + r.breakdown.recon + r.holding_cost_allocated + r.pack);
  });

  it("a store that carries units at $50 a day, and 0.2% over $25,000, gets its own figure on gross-calc", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    await rowsInObject(
      org.id,
      "UPDATE stores SET holding_cost_per_day = 50, holding_high_value_cost = 25000, holding_high_value_daily_pct = 0.2 WHERE id = ?",
      store.id,
    );
    const { key } = await createApiKey(org.id);
    const res = await post("/api/v1/gross-calc", key, { purchase_price: 28_000, selling_price: 31_995, days_on_lot: 10, market_value: 32_000 });
    expect(res.status).toBe(200);
    const body = await res.json<{ daily_carrying_cost: number; holding_cost_allocated: number }>();
    // 50 + 0.2% × 28,000 = $106 a day.
    expect(body.daily_carrying_cost).toBe(106);
    expect(body.holding_cost_allocated).toBe(1060);
  });

  it("a store carrying units at $50 a day and 0.2% over $25,000 appraises a late-model F-150 trade with the same daily figure gross-calc would use", async () => {
    const reference = await loadAppraisalReference(getDb(env.DB), (await createOrg()).id);
    const store = { name: "Own Figures", marketZip: "80234", packUsed: 500, targetFrontGrossUsedPct: 8, targetFrontGrossUsedMin: 1200 };
    const figures = { holdingCostPerDay: 50, holdingHighValueCost: 25_000, holdingHighValueDailyPct: 0.2 };
    const trade = appraise({
      subject: { year: 2025, make: "Ford", model: "F-150", mileage: 0, conditionNotes: "clean" },
      marketZip: "80234",
      store: { ...store, ...figures },
      reference,
      comps: [],
      photos: { status: "none" },
      now: new Date("2026-11-26T12:00:00Z"),
    });
    const onTheLot = calculateGross(
      { purchasePrice: trade.marketValue, sellingPrice: trade.marketValue, vehicleType: "truck", daysOnLot: 30, condition: "used" },
      { ...DEFAULT_STORE, ...figures },
      TARGETS,
    );
    // 50 + 0.2% × the trade's market value, in both engines.
    const daily = Math.round((50 + 0.002 * trade.marketValue) * 100) / 100;
    expect(trade.marketValue).toBeGreaterThan(25_000);
    expect(onTheLot.daily_carrying_cost).toBe(daily);
    expect(trade.note).toContain(`(30 days × $${Math.round(daily)})`);
  });

  it("holding cost never goes down when a unit costs more or sits longer", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 500, max: 200_000, noNaN: true }),
        fc.double({ min: 500, max: 200_000, noNaN: true }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 400 }),
        (c1, c2, d1, d2) => {
          const [lo, hi] = c1 <= c2 ? [c1, c2] : [c2, c1];
          const [short, long] = d1 <= d2 ? [d1, d2] : [d2, d1];
          expect(dailyHoldingCost(hi, FIGURES)).toBeGreaterThanOrEqual(dailyHoldingCost(lo, FIGURES));
          expect(holdingCostFor(lo, long, FIGURES)).toBeGreaterThanOrEqual(holdingCostFor(lo, short, FIGURES));
          expect(holdingCostFor(hi, long, FIGURES)).toBeGreaterThanOrEqual(holdingCostFor(lo, long, FIGURES));
        },
      ),
    );
  });
});

describe("sunk cost is not a price (docs/domain/gross.md#sunk-cost-is-not-a-price)", () => {
  it("a used unit at 95 days listed at $22,995 is never told to retail above $22,995", () => {
    const r = gross({ purchasePrice: 19_500, sellingPrice: 22_995, daysOnLot: 95, vehicleType: "suv", marketValue: 22_500 });
    expect(r.true_cost).toBeGreaterThan(22_995);
    expect(r.pricing_recommendation).not.toMatch(/or more|true cost\)/);
    for (const price of retailAsks(r.pricing_recommendation)) expect(price).toBeLessThanOrEqual(22_995);
  });

  it("at 95 days it goes to auction at its wholesale value less fees: 82% of a $22,500 market × 89.2% kept, less $500", () => {
    const r = gross({ purchasePrice: 19_500, sellingPrice: 22_995, daysOnLot: 95, marketValue: 22_500 });
    expect(r.aging_stage).toBe("wholesale");
    // 22,500 × 0.82 × 0.8917 = 16,451 → $16,450 wholesale value; − $500 fees.
    expect(r.expected_auction_proceeds).toBe(15_950);
    expect(r.pricing_recommendation).toContain(
      "expected auction proceeds about $15,950: wholesale value $16,450 (82% of market $22,500, 89.2% of it kept at 95 days) less $500 auction and transport fees",
    );
    // One action: the auction, and no retail price beside it.
    expect(retailAsks(r.pricing_recommendation)).toEqual([]);
  });

  it("at 30 days a unit under its gross target is told to hold, never to price up", () => {
    const r = gross({ purchasePrice: 20_000, sellingPrice: 22_995, daysOnLot: 30, marketValue: 24_000 });
    expect(r.front_gross).toBeLessThan(r.target_front_gross);
    expect(r.pricing_recommendation).not.toMatch(/or more/);
    expect(r.aging_stage).toBe("watch");
    expect(r.pricing_recommendation).toContain("Hold the price, do not raise it");
  });

  it("a 10-day unit priced $1,000 under market with thin gross is told not to discount, never to hold above its sticker", () => {
    const r = gross({ purchasePrice: 20_000, sellingPrice: 22_995, daysOnLot: 10, marketValue: 23_995 });
    expect(r.aging_stage).toBe("fresh");
    expect(r.pricing_recommendation).not.toMatch(/hold at/);
    expect(r.pricing_recommendation).toContain("do not discount it");
  });

  it("an $18,495 sticker under market is never told to 'hold at $18,533 or more' (hold-at only under the asking price)", () => {
    // The case: thin gross on a fresh unit under market — the price that earns the target is above the sticker.
    const r = gross({ purchasePrice: 15_200, sellingPrice: 18_495, daysOnLot: 5, marketValue: 19_200 });
    for (const hold of pricesAfter(r.pricing_recommendation, "hold at")) expect(hold).toBeLessThan(18_495);
  });

  it("a fresh unit stickered exactly at the least price that earns the target is not told to 'hold at' its own sticker", () => {
    // True cost 16,525 + 1,200 + 5 × $35 + 500 = $18,400; the sticker is the target price itself.
    const sticker = targetPrice(18_400, { targetPct: 8, minAmount: 1200 });
    const r = gross({ purchasePrice: 16_525, sellingPrice: sticker, daysOnLot: 5, marketValue: sticker + 1_500 });
    expect(r.true_cost).toBe(18_400);
    expect(r.pricing_recommendation).toMatch(/^Healthy/);
    expect(r.pricing_recommendation).not.toMatch(/hold at/);
  });

  it("a fresh unit priced under market with room in it: hold at the least price that still earns the target", () => {
    // True cost 14,000 + 1,200 recon + 5 × $35 + 500 pack = $15,875; target 8%: 15,875 ÷ 0.92 = $17,255.44 → $17,256.
    const r = gross({ purchasePrice: 14_000, sellingPrice: 18_495, daysOnLot: 5, marketValue: 19_200 });
    expect(r.pricing_recommendation).toMatch(/^Healthy/);
    expect(pricesAfter(r.pricing_recommendation, "hold at")).toEqual([17_256]);
  });

  it("'hold at $X' is advice up to the 29th day; at 30 days the unit is no longer fresh and is not told to hold 'or more'", () => {
    // $16,000 cost, $21,995 sticker under a $22,500 market: healthy either day.
    const at = (daysOnLot: number) => gross({ purchasePrice: 16_000, sellingPrice: 21_995, daysOnLot, marketValue: 22_500 }).pricing_recommendation;
    expect(at(29)).toContain("hold at $20,343 or more in the negotiation");
    expect(at(30)).toMatch(/^Healthy: front gross clears/);
    expect(at(30)).not.toContain("hold at");
  });

  it("a 10-day unit already priced at market is not told to hold 'or more'", () => {
    const r = gross({ purchasePrice: 20_000, sellingPrice: 22_995, daysOnLot: 10, marketValue: 22_995 });
    expect(r.pricing_recommendation).not.toMatch(/or more/);
  });

  it("no aged recommendation ever asks above the current price", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5_000, max: 80_000 }),
        fc.double({ min: 0.8, max: 1.4, noNaN: true }),
        fc.double({ min: 0.8, max: 1.2, noNaN: true }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom("new", "used") as fc.Arbitrary<"new" | "used">,
        fc.boolean(),
        (cost, markup, marketRatio, days, condition, withMarket) => {
          const sellingPrice = Math.round(cost * markup);
          const marketValue = withMarket ? Math.round(sellingPrice * marketRatio) : undefined;
          const r = gross({ purchasePrice: cost, sellingPrice, daysOnLot: days, condition, marketValue });
          if (days >= 30) expect(r.pricing_recommendation).not.toMatch(/or more/);
          if (r.aged_flag || r.aging_stage === "wholesale") {
            for (const price of retailAsks(r.pricing_recommendation)) expect(price).toBeLessThanOrEqual(sellingPrice);
          }
        },
      ),
    );
  });

  it("every deadline in a recommendation is still ahead of the unit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5_000, max: 80_000 }),
        fc.double({ min: 0.8, max: 1.4, noNaN: true }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom("new", "used") as fc.Arbitrary<"new" | "used">,
        (cost, markup, days, condition) => {
          const r = gross({ purchasePrice: cost, sellingPrice: Math.round(cost * markup), daysOnLot: days, condition });
          for (const d of deadlines(r.pricing_recommendation)) expect(d).toBeGreaterThan(0);
        },
      ),
    );
  });
});

describe("aging conventions (docs/domain/gross.md#aging-conventions)", () => {
  const at = (days: number, condition: "new" | "used" = "used") =>
    gross({ purchasePrice: 18_000, sellingPrice: 23_995, daysOnLot: days, condition, marketValue: 24_500 });

  it("a used unit at 29 days is fresh, at 30 it is on watch", () => {
    expect(at(29).aging_stage).toBe("fresh");
    expect(at(30).aging_stage).toBe("watch");
  });

  it("a used unit at 44 days is not aged; at 45 it is, and gets a deadline 15 days ahead", () => {
    expect(at(44).aged_flag).toBe(false);
    expect(at(45).aged_flag).toBe(true);
    expect(at(45).pricing_recommendation).toContain("in the 15 days before its 60-day wholesale review");
  });

  it("a used unit at 59 days has one day to its wholesale review; at 60 retail still nets $4,445 more than the auction, so it is repriced, not sent", () => {
    expect(at(59).aging_stage).toBe("aged");
    expect(at(59).pricing_recommendation).toContain("in the 1 days before its 60-day wholesale review");
    expect(at(60).aging_stage).toBe("aged");
    expect(at(60).pricing_recommendation).toContain(
      "Wholesale review (60 days on the lot, reviewed at 60): retail still nets more than the auction. Reprice to $23,695 (97% of market $24,500, not above the $23,995 asking price): after 30 more days of holding ($1,050) it brings about $22,645, $4,445 more than the expected auction proceeds about $18,200",
    );
    expect(at(60).pricing_recommendation).toContain("Retail it in the 30 days before its 90-day auction line");
    expect(at(89).aging_stage).toBe("aged");
    expect(at(90).aging_stage).toBe("wholesale");
    expect(at(90).pricing_recommendation).toMatch(/^Wholesale: 90 days on the lot \(auction at 90 whatever retail pays\)/);
  });

  it("a $52,000 Tahoe at 70 days, asking $62,995 on a $63,500 market: retail at $61,495 nets $12,055 more than the auction after the 20 days left before the auction line, so it is not sent", () => {
    const tahoe = gross({ purchasePrice: 52_000, sellingPrice: 62_995, daysOnLot: 70, condition: "used", marketValue: 63_500, vehicleType: "suv" });
    expect(tahoe.aging_stage).toBe("aged");
    expect(tahoe.pricing_recommendation).toContain(
      "after 20 more days of holding ($1,740) it brings about $59,755, $12,055 more than the expected auction proceeds about $47,700",
    );
    expect(tahoe.pricing_recommendation).not.toContain("send it to auction");
  });

  it("a store whose auction pays 95% of market and whose unit costs $90 a day to hold sends a 70-day unit: retail no longer nets more", () => {
    const store = { ...DEFAULT_STORE, wholesaleRatioPct: 95, auctionFees: 0, holdingCostPerDay: 90 };
    const result = calculateGross(
      { purchasePrice: 15_000, sellingPrice: 17_995, vehicleType: "car", daysOnLot: 70, condition: "used", marketValue: 18_000 },
      store,
      COACH_REFERENCE.frontGrossTargets,
    );
    expect(result.aging_stage).toBe("wholesale");
    expect(result.pricing_recommendation).toContain(
      "and retail no longer nets more: $17,395 less 20 more days of holding brings no more than the auction pays",
    );
  });

  it("a new unit at 60 days is not aged and never a wholesale candidate", () => {
    const r = at(60, "new");
    expect(r.aged_flag).toBe(false);
    expect(r.aged_threshold_days).toBe(90);
    expect(r.pricing_recommendation).not.toMatch(/wholesale/i);
    expect(r.expected_auction_proceeds).toBeNull();
  });

  it("a new unit at 89 days is not aged; at 90 the new-car manager dealer-trades, demos or incentivises it and plans the curtailment", () => {
    expect(at(89, "new").aged_flag).toBe(false);
    const r = at(90, "new");
    expect(r.aged_flag).toBe(true);
    expect(r.owner).toBe("new_car_manager");
    expect(r.pricing_recommendation).toMatch(/dealer-trade.*demo.*OEM incentive.*curtailment/);
    expect(r.pricing_recommendation).not.toMatch(/wholesale/i);
  });

  it("a used unit at 50 days under water after holding cost is reviewed for wholesale; retail still beats the auction, so one action: reprice", () => {
    const r = gross({ purchasePrice: 21_000, sellingPrice: 23_995, daysOnLot: 50, marketValue: 23_500 });
    expect(r.aging_stage).toBe("aged");
    // Market $23,500 − true cost $24,450 (21,000 + recon 1,200 + 50 × $35 + pack 500).
    expect(r.pricing_recommendation).toContain("Wholesale review (aged at 45 with projected front gross -$950 after holding cost)");
    // 23,500 × 0.82 × 0.96 = 18,499 → $18,500; − $500. Retail $23,495 (toward market) − 30 × $35 = $22,445.
    expect(r.pricing_recommendation).toContain("it brings about $22,445, $4,445 more than the expected auction proceeds about $18,000");
    expect(retailAsks(r.pricing_recommendation)).toEqual([23_495]);
  });

  it("pack counts in the aged unit's projected gross: $400 over true cost before pack is still under water after a $500 pack", () => {
    // 47 days: true cost 20,000 + 1,200 + 47 × $35 + 500 = $23,345; market $23,300 → −$45 with the pack, +$455 without it.
    const r = gross({ purchasePrice: 20_000, sellingPrice: 23_495, daysOnLot: 47, marketValue: 23_300 });
    expect(r.pricing_recommendation).toContain("Wholesale review (aged at 45 with projected front gross -$45 after holding cost)");
  });

  it("a 10-day used unit bought at or above its market is retailed toward market, not sent to auction at 10 days", () => {
    const r = gross({ purchasePrice: 22_300, sellingPrice: 23_995, daysOnLot: 10, marketValue: 23_500 });
    expect(r.aging_stage).toBe("fresh");
    expect(r.pricing_recommendation).toContain("Cost plus recon $23,500 is 100% of market");
    expect(r.pricing_recommendation).not.toMatch(/auction|wholesale/i);
  });

  it("a healthy 10-day unit holds its price and says how many days until it ages", () => {
    const r = gross({ purchasePrice: 16_000, sellingPrice: 22_995, daysOnLot: 10, marketValue: 23_000 });
    expect(r.pricing_recommendation).toMatch(/^Healthy/);
    expect(r.pricing_recommendation).toContain("the unit ages in 35 days");
  });
});

describe("priced above market (docs/domain/reports.md#aged-alert-thresholds)", () => {
  it("a fresh unit listed exactly 3% over market is left alone; a dollar more is repriced to just under market", () => {
    const exactly = gross({ purchasePrice: 18_000, sellingPrice: 25_750, daysOnLot: 10, marketValue: 25_000 });
    const over = gross({ purchasePrice: 18_000, sellingPrice: 25_751, daysOnLot: 10, marketValue: 25_000 });
    expect(exactly.pricing_recommendation).not.toMatch(/^Reprice/);
    expect(over.pricing_recommendation).toMatch(/^Reprice from \$25,751 to \$24,995/);
  });
});

describe("wholesale value curve (docs/domain/gross.md#wholesale-value-curve)", () => {
  it("a clean unit brings 98% of market at 30 days, 95% at 60, 90% at 90", () => {
    expect(valueRetained(30)).toBeCloseTo(0.98, 10);
    expect(valueRetained(60)).toBeCloseTo(0.95, 10);
    expect(valueRetained(90)).toBeCloseTo(0.9, 10);
    // A 55-day unit, $25,000 market: 25,000 × 0.82 × 0.955 = 19,577.5 → $19,575 wholesale value, $19,075 after fees.
    expect(auctionEstimate(25_000, 55, DEFAULT_STORE)).toEqual({ wholesaleValue: 19_575, proceeds: 19_075 });
  });

  it("the value curve never rises as a unit ages, and stays between 75% and 100% of the wholesale figure", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 720 }), fc.integer({ min: 0, max: 720 }), (a, b) => {
        expect(valueRetained(Math.max(a, b))).toBeLessThanOrEqual(valueRetained(Math.min(a, b)));
        expect(valueRetained(a)).toBeGreaterThanOrEqual(0.75);
        expect(valueRetained(a)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("an aged used unit's retail price never exceeds its asking price in the shared policy", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 45, max: 400 }),
        fc.integer({ min: 5_000, max: 90_000 }),
        fc.double({ min: 0.7, max: 1.3, noNaN: true }),
        (days, asking, ratio) => {
          const d = decideAging(
            {
              condition: "used",
              daysOnLot: days,
              askingPrice: asking,
              marketValue: Math.round(asking * ratio),
              costBasis: asking * 0.8,
              projectedFrontGross: 0,
              dailyHolding: 35,
            },
            DEFAULT_STORE,
          );
          expect(d.retailPrice).toBeLessThanOrEqual(asking);
        },
      ),
    );
  });
});

describe("new units' holding cost (docs/domain/gross.md#holding-cost)", () => {
  it("a $42,000 new truck selling $2,000 over cost at 120 days carries its floor-plan interest, not −$7,540", () => {
    const r = gross({ purchasePrice: 42_000, sellingPrice: 44_000, daysOnLot: 120, condition: "new", vehicleType: "truck", marketValue: 44_500 });
    // 42,000 × 7% ÷ 365 = $8.05 a day; 120 days = $966; no recon on a new unit; pack $300.
    expect(r.daily_carrying_cost).toBe(8.05);
    expect(r.holding_cost_allocated).toBe(966);
    expect(r.breakdown).toMatchObject({ recon: 0, floor_plan_interest: 966.58, floor_plan_assistance: 0, daily_holding: 0 });
    expect(r.true_cost).toBe(43_266);
    expect(r.front_gross).toBe(734);
    expect(r.expected_auction_proceeds).toBeNull();
    expect(r.pricing_recommendation).not.toMatch(/wholesale|auction/i);
  });

  it("a new unit aged 95 days goes to the new-car manager's plan, never to wholesale", () => {
    const r = gross({ purchasePrice: 36_000, sellingPrice: 39_995, daysOnLot: 95, condition: "new", vehicleType: "suv", marketValue: 39_500 });
    expect(r.aging_stage).toBe("aged");
    expect(r.owner).toBe("new_car_manager");
    expect(r.pricing_recommendation).toMatch(
      /^Aged new unit: 95 days \(new units age at 90\)\. For the new-car manager: dealer-trade, demo service or OEM incentive; plan the floor-plan curtailment/,
    );
    expect(r.expected_auction_proceeds).toBeNull();
  });

  it("a store that states $3 a day of floor-plan assistance and $5 of overhead carries a $42,000 new unit at $10.05 a day", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    await rowsInObject(org.id, "UPDATE stores SET floorplan_assistance_new_per_day = 3, overhead_new_per_day = 5 WHERE id = ?", store.id);
    const { key } = await createApiKey(org.id);
    const res = await post("/api/v1/gross-calc", key, {
      purchase_price: 42_000,
      selling_price: 44_000,
      days_on_lot: 10,
      condition: "new",
      vehicle_type: "truck",
    });
    expect(res.status).toBe(200);
    const body = await res.json<{ daily_carrying_cost: number; breakdown: Record<string, number> }>();
    expect(body.daily_carrying_cost).toBe(10.05);
    // Interest $80.55 over 10 days, $30 of it met by assistance, plus $50 overhead.
    expect(body.breakdown).toMatchObject({ recon: 0, floor_plan_interest: 80.55, floor_plan_assistance: 30, daily_holding: 50 });
  });

  it("the cushion is counted in whole days, rounded down: $3,105.40 at $35 a day lasts 88 days, not 89", () => {
    const r = gross({ purchasePrice: 16_000, sellingPrice: 22_995, daysOnLot: 10, marketValue: 23_000 });
    expect(r.pricing_recommendation).toContain("holding cost eats the $3,105.40 cushion in 88 days");
  });
});

describe("expected auction proceeds (docs/domain/gross.md#expected-auction-proceeds)", () => {
  it("the issue's SUV at 0 days, $24,000 cost against a $24,500 market, is never 'wholesale at about $24,500 (100% of market)'", async () => {
    const { key } = await createApiKey((await createOrgWithStore()).id);
    for (const condition of ["used", "new"] as const) {
      const res = await post("/api/v1/gross-calc", key, {
        purchase_price: 24_000,
        selling_price: 25_995,
        vehicle_type: "suv",
        days_on_lot: 0,
        market_value: 24_500,
        condition,
      });
      const body = await res.json<{ pricing_recommendation: string; expected_auction_proceeds: number | null }>();
      expect(body.pricing_recommendation).not.toMatch(/100% of market|wholesale|auction/i);
      expect(body.pricing_recommendation).toMatch(/^Reprice from \$25,995 to \$24,495/);
      if (condition === "new") expect(body.expected_auction_proceeds).toBeNull();
      else expect(body.expected_auction_proceeds!).toBeLessThan(24_500);
    }
  });

  it("a rough (poor) unit at 70 days brings 18% less wholesale than a clean one, said in the answer", async () => {
    const { key } = await createApiKey((await createOrgWithStore()).id);
    const ask = (condition_grade: string) =>
      post("/api/v1/gross-calc", key, { purchase_price: 15_000, selling_price: 19_995, days_on_lot: 70, market_value: 20_000, condition_grade }).then(
        (r) => r.json<{ pricing_recommendation: string; expected_auction_proceeds: number }>(),
      );
    const clean = await ask("good");
    const rough = await ask("poor");
    // Clean: 19,995 × 82% × 93.3% = $15,300 wholesale; poor: × 82% more = $12,550; each less $500.
    expect(clean.expected_auction_proceeds).toBe(14_800);
    expect(rough.expected_auction_proceeds).toBe(12_050);
    expect(rough.pricing_recommendation).toContain("less 18% for a poor unit");
  });
});

async function createOrgWithStore() {
  const org = await createOrg();
  await createStore(org.id, { isPrimary: true });
  return org;
}
