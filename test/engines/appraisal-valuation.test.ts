import { beforeAll, describe, expect, it } from "vitest";
import { loadAppraisalReference } from "../../src/db/queries/appraisal";
import { appraise } from "../../src/engines/appraisal/appraise";
import type { AppraisalReference } from "../../src/engines/appraisal/types";
import { residualPct, valueFromComparables, valueFromModel, vehicleAge } from "../../src/engines/appraisal/valuation";
import { appraisalStore } from "../helpers/deal-desk-reference";
import { ORG_WITHOUT_OWN_ROWS, referenceDb } from "../helpers/reference-d1";

let reference: AppraisalReference;
beforeAll(async () => {
  reference = await loadAppraisalReference(referenceDb(), ORG_WITHOUT_OWN_ROWS);
});

const NOW = new Date("2026-11-26T12:00:00Z");
const STORE = appraisalStore("Test Store", "78701");

describe("depreciation model (docs/domain/appraisal.md#depreciation-model)", () => {
  it("counts age as current model year − year + 0.5, never below 0", () => {
    expect(vehicleAge(2021, NOW)).toEqual({ whole: 5, fractional: 5.5 });
    expect(vehicleAge(2027, NOW)).toEqual({ whole: 0, fractional: 0 });
  });

  it("follows the KBB curve, its DEFAULT −8%/yr rows after five years, and the 10% floor", () => {
    expect(residualPct(reference.retentionCurve, 1, 10)).toBe(84);
    expect(residualPct(reference.retentionCurve, 2.5, 10)).toBe(66.5);
    expect(residualPct(reference.retentionCurve, 12, 10)).toBe(25.11);
    expect(residualPct(reference.retentionCurve, 40, 10)).toBe(10);
  });

  it("values a late-model truck with few miles on the truck curve, up to the +10% cap", () => {
    // Sierra (fullsize_truck $45,000, retention class truck: no figure of its own), 2025: age 1.5, on the studies' clock
    // 1.5 × 5 / 5.5 = 1.364 (docs/domain/appraisal.md#study-age), the curve's 20.364% loss × 0.735 = 14.967%
    // → 85.033% retained → $38,264.73; 20,250 expected, 0 driven: rate max(0.03, 0.25 × 38,264.73 / 25,000) = 0.383 $/mi
    // → +$7,749, capped at +10% = $3,826.47 (docs/domain/appraisal.md#mileage-adjustment-caps).
    const value = valueFromModel({ year: 2025, make: "GMC", model: "Sierra", mileage: 0 }, "80234", reference, NOW);
    expect(value.vehicle).toMatchObject({ classKey: "fullsize_truck", classMatch: "model" });
    expect(value).toMatchObject({
      expectedMiles: 20_250,
      mileageAdjustment: 3_826,
    });
    expect(value.residualPct).toBeCloseTo(85.033, 3);
    expect(value.value).toBe(42_091);
  });

  it("never values a unit below the $1,500 floor", () => {
    const cheap = { ...reference, priceClasses: reference.priceClasses.map((row) => ({ ...row, newPrice: 5_000 })) };
    expect(valueFromModel({ year: 1990, make: "Geo", model: "Metro", mileage: 300_000 }, "80234", cheap, NOW).value).toBe(1_500);
  });

  it("adds 0.10% of value per day to holding cost on units worth $30,000 or more", () => {
    const result = appraise({
      subject: { year: 2025, make: "GMC", model: "Sierra", mileage: 0, conditionNotes: "clean" },
      marketZip: "80234",
      store: STORE,
      reference,
      comps: [],
      photos: { status: "none" },
      now: NOW,
    });
    // 42,091 − 200 − 500 − 3,367 (8%) − 30 × (35 + 42.091) = 2,312.73 holding.
    expect(result.maxAcquisition).toBe(42_091 - 200 - 500 - 3_367 - 2_313);
    expect(result.note).toContain("holding $2,313 (30 days × $77)");
  });
});

describe("comparables (docs/domain/appraisal.md#comparables, #mileage-adjustment-caps)", () => {
  it("a comparable sold beyond 150,000 miles gives back its −10% to a subject under them", () => {
    const comp = { source: "sold" as const, year: 2016, trim: null, mileage: 160_000, price: 10_000, observedOn: "2026-11-01" };
    const value = valueFromComparables({ year: 2016, make: "Honda", model: "Civic", mileage: 100_000 }, [comp, comp, comp], reference, NOW);
    // $10,000 + the +10% low-mileage cap ($1,000: 60,000 miles × $0.035 is more) + the comparable's −10% given back ($1,000).
    expect(value.value).toBe(12_000);
  });
});
