import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { loadAppraisalReference } from "../../src/db/queries/appraisal";
import { appraise } from "../../src/engines/appraisal/appraise";
import type { AppraisalReference, StoreEconomics } from "../../src/engines/appraisal/types";
import { residualPct, valueFromModel, vehicleAge } from "../../src/engines/appraisal/valuation";
import { createOrg } from "../helpers/factories";

let reference: AppraisalReference;
beforeAll(async () => {
  reference = await loadAppraisalReference(getDb(env.DB), (await createOrg()).id);
});

const NOW = new Date("2026-11-26T12:00:00Z");
const STORE: StoreEconomics = {
  name: "Test Store",
  marketZip: "78701",
  packUsed: 500,
  holdingCostPerDay: 35,
  holdingHighValueCost: 30_000,
  holdingHighValueDailyPct: 0.1,
  targetFrontGrossUsedPct: 8,
  targetFrontGrossUsedMin: 1200,
};

describe("depreciation model (DOMAIN.md §6.1–6.3)", () => {
  it("counts age as current model year − year + 0.5, never below 0", () => {
    expect(vehicleAge(2021, NOW)).toEqual({ whole: 5, fractional: 5.5 });
    expect(vehicleAge(2027, NOW)).toEqual({ whole: 0, fractional: 0 });
  });

  it("follows the KBB curve, −8%/yr after five years, and the 10% floor", () => {
    expect(residualPct(reference.retentionCurve, 1, 10)).toBe(84);
    expect(residualPct(reference.retentionCurve, 2.5, 10)).toBe(66.5);
    expect(residualPct(reference.retentionCurve, 12, 10)).toBe(25.11);
    expect(residualPct(reference.retentionCurve, 40, 10)).toBe(10);
  });

  it("values a late-model unit with few miles up to the +30% cap", () => {
    // F-150 (fullsize_truck $45,000), 2025: age 1.5, residual 78% → $35,100; 20,250 expected, 0 driven:
    // rate max(0.03, 0.25 × 35,100 / 25,000) = 0.351 $/mi → +$7,107.75 (under the $10,530 cap).
    const value = valueFromModel({ year: 2025, make: "Ford", model: "F-150", mileage: 0 }, "80234", reference, NOW);
    expect(value).toMatchObject({
      classKey: "fullsize_truck",
      classMatch: "model",
      residualPct: 78,
      expectedMiles: 20_250,
      mileageAdjustment: 7_108,
    });
    expect(value.value).toBe(42_208);
  });

  it("never values a unit below the $1,500 floor", () => {
    const cheap = { ...reference, priceClasses: reference.priceClasses.map((row) => ({ ...row, newPrice: 5_000 })) };
    expect(valueFromModel({ year: 1990, make: "Geo", model: "Metro", mileage: 300_000 }, "80234", cheap, NOW).value).toBe(1_500);
  });

  it("adds 0.10% of value per day to holding cost on units worth $30,000 or more", () => {
    const result = appraise({
      subject: { year: 2025, make: "Ford", model: "F-150", mileage: 0, conditionNotes: "clean" },
      marketZip: "80234",
      store: STORE,
      reference,
      comps: [],
      photos: { status: "none" },
      now: NOW,
    });
    // 42,208 − 200 − 500 − 3,377 (8%) − 30 × (35 + 42.208) = 2,316.24 holding.
    expect(result.maxAcquisition).toBe(42_208 - 200 - 500 - 3_377 - 2_316);
    expect(result.note).toContain("holding $2,316 (30 days × $77)");
  });
});
