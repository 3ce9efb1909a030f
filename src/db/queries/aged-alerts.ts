import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { inChunks } from "../batch";
import type { Database } from "../client";
import { agedInventoryAlerts } from "../schema";

/**
 * In-stock units, in every organization, that reached their store's aged threshold within the
 * last `lookbackDays` days and have not been alerted for this stocking (system job: not per org).
 * Days on the lot count from `stocked_on` to `today` (UTC dates).
 */
export async function listNewlyAgedUnits(db: Database, today: string, lookbackDays: number, limit: number) {
  return db.all<{
    orgId: string;
    storeId: string;
    stockNumber: string;
    stockedOn: string;
    daysOnLot: number;
    thresholdDays: number;
    cost: number;
    askingPrice: number;
    holdingCostPerDay: number;
  }>(sql`
    SELECT u.org_id AS orgId, u.store_id AS storeId, u.stock_number AS stockNumber, u.stocked_on AS stockedOn,
           CAST(julianday(${today}) - julianday(u.stocked_on) AS INTEGER) AS daysOnLot,
           s.aged_threshold_days AS thresholdDays, u.cost AS cost, u.asking_price AS askingPrice,
           s.holding_cost_per_day AS holdingCostPerDay
    FROM inventory_units u
    JOIN stores s ON s.id = u.store_id AND s.org_id = u.org_id
    WHERE u.status = 'in_stock'
      AND julianday(${today}) - julianday(u.stocked_on) >= s.aged_threshold_days
      AND julianday(${today}) - julianday(u.stocked_on) < s.aged_threshold_days + ${lookbackDays}
      AND NOT EXISTS (
        SELECT 1 FROM aged_inventory_alerts a
        WHERE a.org_id = u.org_id AND a.stock_number = u.stock_number AND a.stocked_on = u.stocked_on)
    ORDER BY u.org_id, u.stocked_on
    LIMIT ${limit}`);
}

/** The markers that make each crossing alert once (for the caller's batch). */
export function insertAgedAlertMarkers(
  db: Database,
  orgId: string,
  units: { stockNumber: string; stockedOn: string }[],
  alertedAt: string,
): BatchItem<"sqlite">[] {
  return inChunks(units, (part) =>
    db
      .insert(agedInventoryAlerts)
      .values(part.map((u) => ({ orgId, stockNumber: u.stockNumber, stockedOn: u.stockedOn, alertedAt })))
      .onConflictDoNothing(),
  );
}
