import { getDb } from "../db/client";
import { insertAgedAlertMarkers, listNewlyAgedUnits } from "../db/queries/aged-alerts";
import { listOrganizationIds } from "../db/queries/reports";
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

/** Daily: one `aged-inventory-alerts` message per organization on the jobs queue (src/jobs/consumer.ts). */
export async function raiseAgedInventoryAlerts(env: Env, now: Date): Promise<void> {
  const orgIds = await listOrganizationIds(getDb(env.DB));
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
 * stays current across midnight even for stores nothing changed in.
 */
export async function raiseOrganizationAgedAlerts(env: Env, orgId: string, now: Date): Promise<boolean> {
  const db = getDb(env.DB);
  await refreshAlertTotals(db, orgId, now);
  const units = await listNewlyAgedUnits(db, orgId, isoDay(now), LOOKBACK_DAYS, UNITS_PER_MESSAGE);
  if (units.length === 0) return false;
  const events: DomainEvent[] = units.map((u) => ({
    event: "inventory.aged_alert",
    orgId,
    storeId: u.storeId,
    // The same answer the inventory-alerts report gives for the unit (an aged unit always has one).
    data: { stock_no: u.stockNumber, days_on_lot: u.daysOnLot, recommendation: evaluateUnit(u.unit, u.store, now)?.recommendation ?? "" },
  }));
  await commitWithEvents(env, db, insertAgedAlertMarkers(db, orgId, units, now.toISOString()), events, now);
  logEvent("info", { event: "aged_inventory_alerts_raised", org_id: orgId, units: units.length });
  return units.length === UNITS_PER_MESSAGE;
}
