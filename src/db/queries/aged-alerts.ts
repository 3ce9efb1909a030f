import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { AlertUnit, StoreSettings } from "../../engines/reports/alerts";
import { inChunks } from "../batch";
import type { Database } from "../client";
import { agedInventoryAlerts } from "../schema";

/** A unit's aged threshold: the store's new-unit one for a new unit, its used one otherwise. */
const THRESHOLD = sql.raw("CASE WHEN u.condition = 'new' THEN s.aged_threshold_days_new ELSE s.aged_threshold_days END");

/**
 * The organization's in-stock units that reached their aged threshold (new and used age
 * differently: docs/domain/reports.md#new-units-age-differently) within the last `lookbackDays`
 * days and have not been alerted for this stocking, with what the alert engine reads about each
 * and its store. Days on the lot count from `stocked_on` to `today`.
 */
export async function listNewlyAgedUnits(db: Database, orgId: string, today: string, lookbackDays: number, limit: number) {
  const rows = await db.all<
    Omit<AlertUnit, "marketValue"> & {
      orgId: string;
      daysOnLot: number;
      marketValue: number | null;
    } & { [K in keyof StoreSettings as `store_${K & string}`]: StoreSettings[K] }
  >(sql`
    SELECT u.org_id AS orgId, u.store_id AS storeId, u.stock_number AS stockNumber, u.stocked_on AS stockedOn,
           CAST(julianday(${today}) - julianday(u.stocked_on) AS INTEGER) AS daysOnLot,
           u.year AS year, u.make AS make, u.model AS model, u.trim AS trim, u.condition AS condition,
           u.vehicle_type AS vehicleType, u.cost AS cost, u.asking_price AS askingPrice, v.market_value AS marketValue,
           s.id AS store_id, s.pack_new AS store_packNew, s.pack_used AS store_packUsed,
           s.holding_cost_per_day AS store_holdingCostPerDay, s.holding_high_value_cost AS store_holdingHighValueCost,
           s.holding_high_value_daily_pct AS store_holdingHighValueDailyPct,
           s.floorplan_apr_new AS store_floorplanAprNew, s.floorplan_apr_used AS store_floorplanAprUsed,
           s.floorplan_assistance_new_per_day AS store_floorplanAssistanceNewPerDay, s.overhead_new_per_day AS store_overheadNewPerDay,
           s.wholesale_ratio_pct AS store_wholesaleRatioPct, s.auction_fees AS store_auctionFees,
           s.recon_car AS store_reconCar, s.recon_truck AS store_reconTruck, s.recon_suv AS store_reconSuv, s.recon_van AS store_reconVan,
           s.aged_threshold_days AS store_agedThresholdDays, s.aged_threshold_days_new AS store_agedThresholdDaysNew
    FROM inventory_units u
    JOIN stores s ON s.id = u.store_id AND s.org_id = u.org_id
    LEFT JOIN unit_market_values v ON v.unit_id = u.id AND v.org_id = u.org_id
    WHERE u.org_id = ${orgId} AND u.status = 'in_stock'
      -- Only the stockings that can have crossed in the window, by any of the organization's
      -- thresholds: a range of the (org, status, stocked_on) index, not every unit in stock.
      AND u.stocked_on > date(${today}, '-' || ((SELECT max(max(aged_threshold_days, aged_threshold_days_new)) FROM stores WHERE org_id = ${orgId}) + ${lookbackDays}) || ' days')
      AND u.stocked_on <= date(${today}, '-' || (SELECT min(min(aged_threshold_days, aged_threshold_days_new)) FROM stores WHERE org_id = ${orgId}) || ' days')
      AND julianday(${today}) - julianday(u.stocked_on) >= ${THRESHOLD}
      AND julianday(${today}) - julianday(u.stocked_on) < ${THRESHOLD} + ${lookbackDays}
      AND NOT EXISTS (
        SELECT 1 FROM aged_inventory_alerts a
        WHERE a.org_id = u.org_id AND a.stock_number = u.stock_number AND a.stocked_on = u.stocked_on)
    ORDER BY u.stocked_on
    LIMIT ${limit}`);
  return rows.map((r) => {
    const store = Object.fromEntries(
      Object.entries(r)
        .filter(([k]) => k.startsWith("store_"))
        .map(([k, v]) => [k.slice("store_".length), v]),
    ) as unknown as StoreSettings;
    const unit: AlertUnit = {
      stockNumber: r.stockNumber,
      storeId: r.storeId,
      year: r.year,
      make: r.make,
      model: r.model,
      trim: r.trim,
      condition: r.condition,
      vehicleType: r.vehicleType,
      stockedOn: r.stockedOn,
      cost: r.cost,
      askingPrice: r.askingPrice,
      marketValue: r.marketValue,
    };
    return { orgId: r.orgId, daysOnLot: r.daysOnLot, stockNumber: r.stockNumber, stockedOn: r.stockedOn, storeId: r.storeId, unit, store };
  });
}

/** A unit that crossed its aged threshold, with what its alert is built from. */
export type NewlyAgedUnit = Omit<Awaited<ReturnType<typeof listNewlyAgedUnits>>[number], "orgId">;

/**
 * The markers that make each crossing alert once, for the caller's batch with the alerts' events:
 * a marker that exists already (the same organization's message running twice at once) fails the
 * batch, so its events are not written twice.
 */
export function insertAgedAlertMarkers(
  db: Database,
  orgId: string,
  units: { stockNumber: string; stockedOn: string }[],
  alertedAt: string,
): BatchItem<"sqlite">[] {
  return inChunks(units, (part) =>
    db.insert(agedInventoryAlerts).values(part.map((u) => ({ orgId, stockNumber: u.stockNumber, stockedOn: u.stockedOn, alertedAt }))),
  );
}

/**
 * A moved organization's crossings where its markers are, its object (src/db/org-store.ts
 * `agedAlertStore`, on its alarm): each crossing's marker and its event written in one transaction,
 * a crossing marked already (alerted before, or the move copied its marker) skipped, event and all.
 * The stockings it marked.
 */
export interface AgedAlertStore {
  record(
    crossings: readonly {
      stockNumber: string;
      stockedOn: string;
      event: { event: string; orgId: string; storeId: string | null; data: Record<string, unknown> };
    }[],
    at: string,
  ): number;
}
