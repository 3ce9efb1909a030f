import { getDb } from "../db/client";
import { type AgedAlertStore, insertAgedAlertMarkers, listNewlyAgedUnits, type NewlyAgedUnit } from "../db/queries/aged-alerts";
import { isStorageMovedError, readOrgStorage, unlessStorageInD1 } from "../db/queries/org-storage";
import { type AlertUnitRow, listOrganizationIds, type StoreSettingsById } from "../db/queries/reports";
import { isoDay } from "../engines/dates";
import { evaluateUnit } from "../engines/reports/alerts";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { logEvent } from "../lib/log";
import { refreshAlertTotals } from "./alert-totals";
import { enqueueJobs } from "./queue";

/**
 * A crossing is looked for this many days back, so a run missed for a few days still alerts, and
 * a first run does not alert every unit that aged long ago (those are in the inventory-alerts report).
 */
const LOOKBACK_DAYS = 7;
/** Units one message alerts (one D1 batch and its events); an organization with more continues in a next message. */
const UNITS_PER_MESSAGE = 1000;

/** Daily: one `aged-inventory-alerts` message per organization in D1 on the jobs queue (src/jobs/consumer.ts). */
export async function raiseAgedInventoryAlerts(env: Env, now: Date): Promise<void> {
  const orgIds = await listOrganizationIds(getDb(env.DB), "d1");
  await enqueueJobs(
    env,
    orgIds.map((orgId) => ({ job: "aged-inventory-alerts", orgId, scheduledTime: now.getTime() })),
  );
  logEvent("info", { event: "aged_inventory_alerts_enqueued", organizations: orgIds.length });
}

/**
 * `inventory.aged_alert` for each of the organization's units that crossed its aged threshold (new
 * or used), each crossing once: the marker and the event are written together, and a unit with a
 * marker is not found again, so a retried message alerts nothing twice. Returns whether units may
 * be left (a full message), for the consumer to continue. First it recomputes the organization's
 * inventory-alerts totals for today and tomorrow (docs/reports.md#totals), so the report's rollup
 * stays current across midnight even for stores nothing changed in. An organization whose units
 * are in its object is skipped: its object's alarm raises its alerts (`raiseAgedAlertsOf`), and
 * its totals are computed on each report page.
 */
export async function raiseOrganizationAgedAlerts(env: Env, orgId: string, now: Date): Promise<boolean> {
  const db = getDb(env.DB);
  const storage = await readOrgStorage(db, orgId);
  if (storage !== undefined && storage !== "d1") {
    logEvent("info", { event: "aged_inventory_alerts_skipped", org_id: orgId, storage });
    return false;
  }
  await refreshAlertTotals(db, orgId, now);
  const units = await listNewlyAgedUnits(db, orgId, isoDay(now), LOOKBACK_DAYS, UNITS_PER_MESSAGE);
  await commitAgedAlerts(env, orgId, units, now);
  return units.length === UNITS_PER_MESSAGE;
}

/**
 * The same alerts for an organization whose units are in its object, run there by its alarm
 * (src/jobs/org-nightly.ts): `inStock` is every unit it holds in stock, `settings` its stores' (kept
 * there too). A crossing is what listNewlyAgedUnits finds in D1: the unit's threshold reached within
 * LOOKBACK_DAYS; its marker and its event are written in the object in one transaction unless a
 * marker of that stocking is there (`markers`), and the alarm relays the events to D1.
 */
export async function raiseAgedAlertsOf(
  orgId: string,
  inStock: readonly AlertUnitRow[],
  settings: StoreSettingsById,
  markers: AgedAlertStore,
  now: Date,
): Promise<void> {
  const crossed = inStock.flatMap((unit) => {
    const store = settings.get(unit.storeId);
    // The report's own threshold and days on the lot (an aged unit always has an alert).
    const alert = store && evaluateUnit(unit, store, now);
    if (!store || !alert || alert.daysOnLot < alert.agedThresholdDays || alert.daysOnLot >= alert.agedThresholdDays + LOOKBACK_DAYS) return [];
    return [{ daysOnLot: alert.daysOnLot, stockNumber: unit.stockNumber, stockedOn: unit.stockedOn, storeId: unit.storeId, unit, store }];
  });
  const crossings = crossed
    .sort((a, b) => a.stockedOn.localeCompare(b.stockedOn))
    .map((u) => ({ stockNumber: u.stockNumber, stockedOn: u.stockedOn, event: agedAlertEvent(orgId, u, now) }));
  const raised = markers.record(crossings, now.toISOString());
  if (raised > 0) logEvent("info", { event: "aged_inventory_alerts_raised", org_id: orgId, units: raised });
}

/** The same answer the inventory-alerts report gives for the unit (an aged unit always has one). */
function agedAlertEvent(orgId: string, u: NewlyAgedUnit, now: Date): DomainEvent {
  return {
    event: "inventory.aged_alert",
    orgId,
    storeId: u.storeId,
    data: { stock_no: u.stockNumber, days_on_lot: u.daysOnLot, recommendation: evaluateUnit(u.unit, u.store, now)?.recommendation ?? "" },
  };
}

/**
 * Writes the crossings' markers and their `inventory.aged_alert` events in one batch, fenced: a
 * message read before a move began writes nothing to the copy the move left (the object's alarm
 * raises them from its markers).
 */
async function commitAgedAlerts(env: Env, orgId: string, units: readonly NewlyAgedUnit[], now: Date): Promise<void> {
  if (units.length === 0) return;
  const db = getDb(env.DB);
  const events = units.map((u) => agedAlertEvent(orgId, u, now));
  try {
    await commitWithEvents(env, db, [unlessStorageInD1(db, orgId), ...insertAgedAlertMarkers(db, orgId, [...units], now.toISOString())], events, now);
  } catch (error) {
    if (!isStorageMovedError(error)) throw error;
    logEvent("info", { event: "aged_inventory_alerts_skipped", org_id: orgId, storage: "moved" });
    return;
  }
  logEvent("info", { event: "aged_inventory_alerts_raised", org_id: orgId, units: units.length });
}
