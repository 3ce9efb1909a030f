import type { AgedAlertStore } from "../db/queries/aged-alerts";
import type { AlertUnitRow, StoreSettingsById } from "../db/queries/reports";
import { evaluateUnit } from "../engines/reports/alerts";
import type { DomainEvent } from "../events/emit";
import { logEvent } from "../lib/log";

/**
 * A crossing is looked for this many days back, so a run missed for a few days still alerts, and
 * a first run does not alert every unit that aged long ago (those are in the inventory-alerts report).
 */
const LOOKBACK_DAYS = 7;

/**
 * `inventory.aged_alert` for each of the organization's units that crossed its aged threshold (new
 * or used) within LOOKBACK_DAYS, each crossing once, run in its object by its 00:15 alarm
 * (src/jobs/org-nightly.ts): `inStock` is every unit it holds in stock, `settings` its stores'
 * (kept there too). A crossing's marker and its event are written in the object in one transaction
 * unless a marker of that stocking is there (`markers`), and the alarm relays the events to D1.
 */
export async function raiseAgedAlertsOf(
  orgId: string,
  inStock: readonly AlertUnitRow[],
  settings: StoreSettingsById,
  markers: AgedAlertStore,
  now: Date,
): Promise<void> {
  const crossings = inStock
    .flatMap((unit) => {
      const store = settings.get(unit.storeId);
      // The report's own threshold, days on the lot and recommendation (an aged unit always has an alert).
      const alert = store && evaluateUnit(unit, store, now);
      if (!alert || alert.daysOnLot < alert.agedThresholdDays || alert.daysOnLot >= alert.agedThresholdDays + LOOKBACK_DAYS) return [];
      return [{ unit, alert }];
    })
    .sort((a, b) => a.unit.stockedOn.localeCompare(b.unit.stockedOn))
    .map(({ unit, alert }) => {
      const event: DomainEvent = {
        event: "inventory.aged_alert",
        orgId,
        storeId: unit.storeId,
        data: { stock_no: unit.stockNumber, days_on_lot: alert.daysOnLot, recommendation: alert.recommendation },
      };
      return { stockNumber: unit.stockNumber, stockedOn: unit.stockedOn, event };
    });
  const raised = markers.record(crossings, now.toISOString());
  if (raised > 0) logEvent("info", { event: "aged_inventory_alerts_raised", org_id: orgId, units: raised });
}
