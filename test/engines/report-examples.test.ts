import { describe, expect, it } from "vitest";
import { agingSentence, decideAging, type UnitAging } from "../../src/engines/aged-inventory/recommendation";
import { dailyHoldingCost } from "../../src/engines/holding-cost";
import { ALERT_EXAMPLE, ALERT_REPORT_EXAMPLE } from "../../src/routes/reports/reports.examples";

/**
 * The documented alerts are written out (building the document runs no engine); each must be what
 * the engine answers for its unit under the demo store's settings (docs/domain/reports.md).
 */
function engineAlert(
  example: Omit<UnitAging, "dailyHolding"> & { stock_no: string; store_id: string; year: number; make: string; model: string; cost: number },
) {
  const policy = { agedThresholdDays: 45, agedThresholdDaysNew: 90, wholesaleRatioPct: 82, auctionFees: 500 };
  const daily = dailyHoldingCost(
    example.cost,
    { perDay: 35, highValueCost: 30_000, highValueDailyPct: 0.1, newUnit: { floorplanApr: 7, assistancePerDay: 0, overheadPerDay: 0 } },
    example.condition,
  );
  const unit = { ...example, dailyHolding: daily };
  const decision = decideAging(unit, policy);
  const alertType = decision.wholesaleCandidate
    ? ("wholesale_candidate" as const)
    : decision.overpriced
      ? ("aged_and_overpriced" as const)
      : ("aged" as const);
  return {
    stock_no: unit.stock_no,
    store_id: unit.store_id,
    year: unit.year,
    make: unit.make,
    model: unit.model,
    condition: unit.condition,
    days_on_lot: unit.daysOnLot,
    list_price: unit.askingPrice,
    market_value: unit.marketValue,
    market_value_source: "valuation" as const,
    alert_type: alertType,
    conditions: decision.wholesaleCandidate ? (["wholesale_candidate", "aged"] as const) : [alertType],
    owner: decision.owner,
    aged_threshold_days: decision.thresholdDays,
    recommendation: agingSentence(unit, decision, daily, policy),
    action: decision.action,
    recommended_price: decision.recommendedPrice,
    wholesale_est: decision.auctionProceeds,
    exposure_usd: Math.round(unit.costBasis + daily * unit.daysOnLot),
  };
}

describe("the documented inventory alerts", () => {
  it("the alert schema's example is the engine's answer for its unit", () => {
    expect(ALERT_EXAMPLE).toEqual(
      engineAlert({
        stock_no: "N10042",
        store_id: "sto_summit_north",
        year: 2021,
        make: "Honda",
        model: "CR-V",
        condition: "used",
        daysOnLot: 52,
        askingPrice: 27_495,
        marketValue: 25_900,
        cost: 21_400,
        costBasis: 22_300,
        projectedFrontGross: 1_900,
      }),
    );
  });

  it("the report's example alerts are the engine's answers for their units", () => {
    expect(ALERT_REPORT_EXAMPLE.alerts).toEqual([
      engineAlert({
        stock_no: "N10071",
        store_id: "sto_summit_north",
        year: 2026,
        make: "Toyota",
        model: "Highlander",
        condition: "new",
        daysOnLot: 96,
        askingPrice: 51_435,
        marketValue: 52_450,
        cost: 46_900,
        costBasis: 46_900,
        projectedFrontGross: 1_200,
      }),
      engineAlert({
        stock_no: "S10048",
        store_id: "sto_summit_south",
        year: 2019,
        make: "Chevrolet",
        model: "Equinox",
        condition: "used",
        daysOnLot: 64,
        askingPrice: 16_995,
        marketValue: 16_400,
        cost: 13_900,
        costBasis: 14_800,
        projectedFrontGross: -240,
      }),
    ]);
  });
});
