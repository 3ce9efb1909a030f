/**
 * What to do with a unit that crossed its store's aged threshold (DOMAIN.md §3.6 default alert
 * thresholds): a wholesale candidate at 60 days or more, or when its front gross after holding
 * cost is gone; otherwise reprice to market.
 */
export const WHOLESALE_DAYS = 60;

export interface AgedUnit {
  daysOnLot: number;
  thresholdDays: number;
  cost: number;
  askingPrice: number;
  holdingCostPerDay: number;
}

export function agedRecommendation(unit: AgedUnit): { action: "wholesale" | "reprice"; text: string } {
  const holdingSoFar = Math.round(unit.holdingCostPerDay * unit.daysOnLot);
  const grossAfterHolding = unit.askingPrice - unit.cost - holdingSoFar;
  const facts = `${unit.daysOnLot} days on the lot (store threshold ${unit.thresholdDays}); about $${holdingSoFar} of holding cost so far.`;
  if (unit.daysOnLot >= WHOLESALE_DAYS || grossAfterHolding < 0) {
    return { action: "wholesale", text: `Wholesale candidate: ${facts}` };
  }
  return { action: "reprice", text: `Reprice to market now: ${facts}` };
}
