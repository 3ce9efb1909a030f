/**
 * The one holding-cost function every engine uses (gross, aged alerts, briefings, trade
 * appraisal): docs/domain/gross.md#holding-cost. Two engines that carried the same unit at
 * different daily costs would give a dealer two answers to one question.
 */

/** What a new unit costs a day: its floor-plan interest, less assistance, plus the store's overhead (docs/domain/gross.md#holding-cost). */
interface NewUnitHoldingFigures {
  /** The store's new floor-plan APR, percent (default 7.0). */
  floorplanApr: number;
  /** Floor-plan assistance or holdback the store counts against the interest, USD a day (default 0). */
  assistancePerDay: number;
  /** The store's own overhead figure for a new unit, USD a day (default 0). */
  overheadPerDay: number;
}

/** A store's holding-cost figures (its row in `stores`; the migrations ship the defaults). */
export interface HoldingCostFigures {
  /** All-in cost per used or CPO unit per day below the high-value line (default $35). */
  perDay: number;
  /** Cost at and above which a unit also carries `highValueDailyPct` of its cost per day (default $30,000). */
  highValueCost: number;
  /** Percent of cost per day added on high-value units (default 0.10). */
  highValueDailyPct: number;
  /** New units' figures; absent where an engine carries only pre-owned units (the trade appraisal). */
  newUnit?: NewUnitHoldingFigures;
}

/** Which of the two rules carries a unit: a new unit's floor plan, or a pre-owned unit's all-in figure. */
export type HoldingUnit = "new" | "used" | "cpo";

const roundCents = (amount: number) => Math.round(amount * 100) / 100;

/** Floor-plan interest accrued: cost × APR ÷ 365 per day (docs/domain/gross.md#floor-plan-interest). */
export function floorPlanInterest(cost: number, aprPct: number, days: number): number {
  return roundCents(((cost * aprPct) / 100 / 365) * Math.max(0, days));
}

/**
 * Daily holding cost of a unit. Used and CPO: all-in (floor plan, market drift, overhead,
 * opportunity), `perDay` under the high-value line and `perDay + pct × cost` at or above it. New:
 * floor-plan interest less the assistance the store states (never below zero), plus its overhead.
 */
export function dailyHoldingCost(cost: number, figures: HoldingCostFigures, unit: HoldingUnit = "used"): number {
  if (unit === "new") {
    const f = figures.newUnit;
    if (!f) throw new Error("A new unit's holding cost needs the store's new floor-plan figures.");
    return roundCents(Math.max(0, (cost * f.floorplanApr) / 100 / 365 - f.assistancePerDay) + f.overheadPerDay);
  }
  const extra = cost >= figures.highValueCost ? (figures.highValueDailyPct / 100) * cost : 0;
  return roundCents(figures.perDay + extra);
}

/** Holding cost of `days` on the lot at the daily figure. */
export function holdingCostFor(cost: number, days: number, figures: HoldingCostFigures, unit: HoldingUnit = "used"): number {
  return roundCents(dailyHoldingCost(cost, figures, unit) * Math.max(0, days));
}

/** A store row's figures in the shape above (the new-unit ones when the row carries them). */
export function holdingFiguresOf(store: {
  holdingCostPerDay: number;
  holdingHighValueCost: number;
  holdingHighValueDailyPct: number;
  floorplanAprNew?: number;
  floorplanAssistanceNewPerDay?: number;
  overheadNewPerDay?: number;
}): HoldingCostFigures {
  const { floorplanAprNew, floorplanAssistanceNewPerDay, overheadNewPerDay } = store;
  return {
    perDay: store.holdingCostPerDay,
    highValueCost: store.holdingHighValueCost,
    highValueDailyPct: store.holdingHighValueDailyPct,
    ...(floorplanAprNew === undefined
      ? {}
      : { newUnit: { floorplanApr: floorplanAprNew, assistancePerDay: floorplanAssistanceNewPerDay ?? 0, overheadPerDay: overheadNewPerDay ?? 0 } }),
  };
}
