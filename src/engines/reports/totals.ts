/**
 * The inventory-alerts totals (docs/reports.md#totals), pure: each store's aged units and exposure
 * for today and tomorrow from its units and settings, and which stored row still holds today's.
 */
import { DAY_MS, isoDay } from "../dates";
import { type AgedTotals, type AlertUnit, agedTotalsByStore, type StoreSettings } from "./alerts";

/** A store's stored totals: computed on `day` for that day and the next (all null: never computed). */
export interface StoredAlertTotals {
  day: string | null;
  agedUnits: number | null;
  agedExposureUsd: number | null;
  nextAgedUnits: number | null;
  nextAgedExposureUsd: number | null;
}

/** Today's totals from a stored row: its own day's, or yesterday's row's next-day figures; null when it holds neither. */
export function storedTotalsToday(row: StoredAlertTotals, now: Date): AgedTotals | null {
  const today = isoDay(now);
  const current =
    row.day === today
      ? { units: row.agedUnits, exposure: row.agedExposureUsd }
      : row.day !== null && isoDay(Date.parse(row.day) + DAY_MS) === today
        ? { units: row.nextAgedUnits, exposure: row.nextAgedExposureUsd }
        : null;
  if (!current || current.units === null || current.exposure === null) return null;
  return { totalAgedUnits: current.units, totalAgedExposureUsd: current.exposure };
}

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
