/**
 * The inventory-alerts totals (docs/reports.md#totals), pure: each store's aged units and exposure
 * for today and tomorrow from its units and settings.
 */
import { DAY_MS } from "../dates";
import { type AgedTotals, type AlertUnit, agedTotalsByStore, type StoreSettings } from "./alerts";

export const sumTotals = (totals: Iterable<AgedTotals>): AgedTotals => {
  const sum = { totalAgedUnits: 0, totalAgedExposureUsd: 0 };
  for (const t of totals) {
    sum.totalAgedUnits += t.totalAgedUnits;
    sum.totalAgedExposureUsd += t.totalAgedExposureUsd;
  }
  return sum;
};

/** Each store's totals today and tomorrow, so a row computed today still answers after midnight. */
export function totalsTodayAndTomorrow(
  units: readonly AlertUnit[],
  stores: ReadonlyMap<string, StoreSettings>,
  now: Date,
): Map<string, { today: AgedTotals; tomorrow: AgedTotals }> {
  const today = agedTotalsByStore(units, stores, now);
  const tomorrow = agedTotalsByStore(units, stores, new Date(now.getTime() + DAY_MS));
  return new Map([...today].map(([storeId, totals]) => [storeId, { today: totals, tomorrow: tomorrow.get(storeId) ?? totals }]));
}
