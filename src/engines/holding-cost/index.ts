/**
 * The one holding-cost function every engine uses (gross, aged alerts, briefings, trade
 * appraisal): docs/domain/gross.md#holding-cost. Two engines that carried the same unit at
 * different daily costs would give a dealer two answers to one question.
 */

/** A store's holding-cost figures (its row in `stores`; the migration ships the defaults). */
export interface HoldingCostFigures {
  /** All-in cost per unit per day below the high-value line (default $35). */
  perDay: number;
  /** Cost at and above which a unit also carries `highValueDailyPct` of its cost per day (default $30,000). */
  highValueCost: number;
  /** Percent of cost per day added on high-value units (default 0.10). */
  highValueDailyPct: number;
}

const roundCents = (amount: number) => Math.round(amount * 100) / 100;

/**
 * All-in daily holding cost of a unit (floor-plan interest, depreciation, overhead, opportunity):
 * `perDay` under the high-value line, `perDay + pct × cost` at or above it.
 */
export function dailyHoldingCost(cost: number, figures: HoldingCostFigures): number {
  const extra = cost >= figures.highValueCost ? (figures.highValueDailyPct / 100) * cost : 0;
  return roundCents(figures.perDay + extra);
}

/** Holding cost of `days` on the lot at the daily figure. */
export function holdingCostFor(cost: number, days: number, figures: HoldingCostFigures): number {
  return roundCents(dailyHoldingCost(cost, figures) * Math.max(0, days));
}

/** Floor-plan interest accrued: cost × APR ÷ 365 per day (docs/domain/gross.md#floor-plan-interest). */
export function floorPlanInterest(cost: number, aprPct: number, days: number): number {
  return roundCents(((cost * aprPct) / 100 / 365) * Math.max(0, days));
}

/** A store row's figures in the shape above. */
export function holdingFiguresOf(store: {
  holdingCostPerDay: number;
  holdingHighValueCost: number;
  holdingHighValueDailyPct: number;
}): HoldingCostFigures {
  return { perDay: store.holdingCostPerDay, highValueCost: store.holdingHighValueCost, highValueDailyPct: store.holdingHighValueDailyPct };
}
