import { getDb } from "../db/client";
import { insertAgedAlertMarkers, listNewlyAgedUnits } from "../db/queries/aged-alerts";
import { isoDay } from "../engines/dates";
import { evaluateUnit } from "../engines/reports/alerts";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { logEvent } from "../lib/log";

/**
 * A crossing is looked for this many days back, so a run missed for a few days still alerts, and
 * a first run does not alert every unit that aged long ago (those are in the inventory-alerts report).
 */
const LOOKBACK_DAYS = 7;
const UNITS_PER_RUN = 5000;

/** Daily: `inventory.aged_alert` for each unit that crossed its aged threshold (new or used); each crossing once. */
export async function raiseAgedInventoryAlerts(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const units = await listNewlyAgedUnits(db, isoDay(now), LOOKBACK_DAYS, UNITS_PER_RUN);
  const byOrg = Map.groupBy(units, (u) => u.orgId);
  for (const [orgId, orgUnits] of byOrg) {
    const events: DomainEvent[] = orgUnits.map((u) => ({
      event: "inventory.aged_alert",
      orgId,
      storeId: u.storeId,
      // The same answer the inventory-alerts report gives for the unit (an aged unit always has one).
      data: { stock_no: u.stockNumber, days_on_lot: u.daysOnLot, recommendation: evaluateUnit(u.unit, u.store, now)?.recommendation ?? "" },
    }));
    await commitWithEvents(env, db, insertAgedAlertMarkers(db, orgId, orgUnits, now.toISOString()), events, now);
  }
  logEvent("info", { event: "aged_inventory_alerts_raised", units: units.length, organizations: byOrg.size });
}
