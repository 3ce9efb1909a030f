/**
 * The inventory-alerts report's page and totals (docs/reports.md#totals): read in the organization's
 * object, the totals computed by the engine (src/engines/reports/totals.ts) on each page, not stored.
 */
import type { SqliteReader } from "../db/client";
import {
  type AlertPageAfter,
  type AlertUnitRow,
  alertUnitPage,
  readStoreSettings,
  type StoreSettingsById,
  unitsInStock,
} from "../db/queries/reports";
import { type FeedReceipts, readFeedReceipts } from "../db/queries/signals";
import type { AgedTotals } from "../engines/reports/alerts";
import { sumTotals, totalsTodayAndTomorrow } from "../engines/reports/totals";

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
