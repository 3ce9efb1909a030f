/**
 * The inventory-alerts totals (docs/reports.md#totals): read from db/, computed by the engine
 * (src/engines/reports/totals.ts), stored back. Run for one store by ingestion (its units changed)
 * and by the report (a stale row).
 */
import type { Database, SqliteReader } from "../db/client";
import {
  type AlertPageAfter,
  type AlertUnitRow,
  alertUnitPage,
  readAlertTotalsInputs,
  readStoreSettings,
  type StoreSettingsById,
  unitsInStock,
  writeAlertTotals,
} from "../db/queries/reports";
import { type FeedReceipts, readFeedReceipts } from "../db/queries/signals";
import { isoDay } from "../engines/dates";
import type { AgedTotals } from "../engines/reports/alerts";
import { sumTotals, totalsTodayAndTomorrow } from "../engines/reports/totals";

/**
 * Computes and stores the totals of the organization's stores (all, or `storeIds`) for today and
 * tomorrow; returns today's. The write is guarded by the rows' generations, so it never stores
 * totals of units that changed while they were computed.
 */
export async function refreshAlertTotals(db: Database, orgId: string, now: Date, storeIds?: readonly string[]): Promise<Map<string, AgedTotals>> {
  const { settings, generations, units } = await readAlertTotalsInputs(db, orgId, storeIds);
  const totals = totalsTodayAndTomorrow(units, settings, now);
  await writeAlertTotals(db, orgId, isoDay(now), totals, generations);
  return new Map([...totals].map(([storeId, t]) => [storeId, t.today]));
}

/** The aged totals today of `units` (every store's in stock, or one store's): computed, not stored, for an organization whose units are in its object. */
function liveAgedTotals(units: readonly AlertUnitRow[], settings: StoreSettingsById, now: Date): AgedTotals {
  return sumTotals([...totalsTodayAndTomorrow(units, settings, now).values()].map((t) => t.today));
}

/**
 * A page of the report's units, the stores' settings they are judged by, the totals of every
 * unit in stock (of the organization, or of the store), computed, and the receipts of the stores'
 * feeds (the report's `data_as_of`), for an organization whose units are in its object: run there
 * in one call (`OrganizationStore.alertReport`), where its settings are kept too. The units' totals are not shipped back whole, and no rollup is
 * kept: a total is one pass over units the object reads locally.
 */
export async function alertReportOf(
  db: SqliteReader,
  orgId: string,
  page: { limit: number; after: AlertPageAfter | undefined; storeId: string | undefined },
  now: Date,
): Promise<AlertReport> {
  const [units, inStock, settings, feeds] = await Promise.all([
    alertUnitPage(db, orgId, page.limit, page.after, page.storeId),
    unitsInStock(db, orgId, page.storeId),
    readStoreSettings(db, orgId, page.storeId),
    readFeedReceipts(db, orgId, page.storeId === undefined ? undefined : [page.storeId]),
  ]);
  return { units, settings, totals: liveAgedTotals(inStock, settings, now), feeds };
}

export type AlertReport = { units: AlertUnitRow[]; settings: StoreSettingsById; totals: AgedTotals; feeds: FeedReceipts };
