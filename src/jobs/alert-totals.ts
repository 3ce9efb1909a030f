/**
 * The inventory-alerts totals (docs/reports.md#totals): read from db/, computed by the engine
 * (src/engines/reports/totals.ts), stored back. Run by the nightly aged-alerts job for every store,
 * and for one store by ingestion (its units changed) and by the report (a stale row).
 */
import type { Database } from "../db/client";
import { type AlertUnitRow, readAlertTotalsInputs, readStoredAlertTotals, type readStoreSettings, writeAlertTotals } from "../db/queries/reports";
import { isoDay } from "../engines/dates";
import type { AgedTotals } from "../engines/reports/alerts";
import { storedTotalsToday, sumTotals, totalsTodayAndTomorrow } from "../engines/reports/totals";

/** Computes and stores the totals of the organization's stores (all, or `storeIds`) for today and tomorrow; returns today's. */
export async function refreshAlertTotals(db: Database, orgId: string, now: Date, storeIds?: readonly string[]): Promise<Map<string, AgedTotals>> {
  const { settings, generations, units } = await readAlertTotalsInputs(db, orgId, storeIds);
  const totals = totalsTodayAndTomorrow(units, settings, now);
  await writeAlertTotals(db, orgId, isoDay(now), totals, generations);
  return new Map([...totals].map(([storeId, t]) => [storeId, t.today]));
}

/**
 * The organization's aged totals today, or one store's: one stored row per store. A store whose
 * row is not for today or yesterday (its units or settings changed since, or nothing has computed
 * it) is computed now and stored.
 */
export async function organizationAgedTotals(db: Database, orgId: string, now: Date, storeId?: string): Promise<AgedTotals> {
  const stored = (await readStoredAlertTotals(db, orgId, storeId)).map((row) => ({ storeId: row.storeId, today: storedTotalsToday(row, now) }));
  const stale = stored.flatMap((s) => (s.today ? [] : [s.storeId]));
  const computed = stale.length > 0 ? [...(await refreshAlertTotals(db, orgId, now, stale)).values()] : [];
  return sumTotals([...stored.flatMap((s) => (s.today ? [s.today] : [])), ...computed]);
}

/** The aged totals today of `units` (every store's in stock, or one store's): computed, not stored, for an organization whose units are in its object. */
export function liveAgedTotals(units: readonly AlertUnitRow[], settings: Awaited<ReturnType<typeof readStoreSettings>>, now: Date): AgedTotals {
  return sumTotals([...totalsTodayAndTomorrow(units, settings, now).values()].map((t) => t.today));
}
