/**
 * An organization's nightly work where its data is (docs/scaling.md#jobs-where-the-data-is): the
 * object holding a moved organization's units, deals and lender decisions runs it on its own alarm, at the times the crons run
 * it for an organization in D1 (CRONS, as SCHEDULE lists the jobs), with the same job code; the crons skip it.
 */
import { getDb } from "../db/client";
import type { AgedAlertStore } from "../db/queries/aged-alerts";
import { type AlertUnitRow, type BriefingStore, listStoreIds, type StoreSettingsById } from "../db/queries/reports";
import type { OutcomeStore } from "../db/queries/signals";
import { DAY_MS } from "../engines/dates";
import { raiseAgedAlertsOf } from "./aged-inventory-alerts";
import { buildStoreBriefings } from "./build-morning-briefings";
import { CRONS } from "./crons";
import { raiseOutcomeShiftsOf } from "./lender-outcomes";
import { attemptBodiesKeptFrom } from "./purge-webhook-bodies";

/** The per-organization jobs an object runs, by the name of the cron job that runs them for D1. */
type NightlyJob = "aged-inventory-alerts" | "lender-outcome-shifts" | "build-morning-briefings" | "purge-expired-records" | "purge-webhook-bodies";

/** Minutes past UTC midnight of a daily cron ("M H * * *"). */
function minuteOfDay(cron: string): number {
  const [minute, hour] = cron.split(" ").map(Number);
  return hour * 60 + minute;
}

/** Each nightly job's minute of the day: the cron SCHEDULE runs it under (src/jobs/index.ts). */
const RUN_MINUTES: ReadonlyMap<NightlyJob, number> = new Map([
  ["aged-inventory-alerts", minuteOfDay(CRONS.nightly)],
  // After the market refresh and before the briefings, which name what it finds (as SCHEDULE runs it).
  ["lender-outcome-shifts", minuteOfDay(CRONS.marketData)],
  ["build-morning-briefings", minuteOfDay(CRONS.briefings)],
  // Its part where the data is: the audit trail's expired checks (COMPLIANCE_CHECKS_RETENTION, D1's rule), the briefings group's
  // and the finished webhook deliveries (WEBHOOK_DELIVERIES_RETENTION), deleted in the object.
  ["purge-expired-records", minuteOfDay(CRONS.nightly)],
  // The webhooks group's: its attempts' bodies past WEBHOOK_BODY_RETENTION_DAYS cleared in the object, as the cron clears D1's.
  ["purge-webhook-bodies", minuteOfDay(CRONS.nightly)],
]);

/** The first nightly run strictly after `after` (epoch ms): its time, which the object's alarm is set for. */
export function nextNightlyRun(after: number): number {
  const midnight = Math.floor(after / DAY_MS) * DAY_MS;
  const times = [...RUN_MINUTES.values()].flatMap((m) => [midnight + m * 60_000, midnight + DAY_MS + m * 60_000]);
  return Math.min(...times.filter((t) => t > after));
}

/**
 * The jobs due at `at` (a time nextNightlyRun gave), run as the crons' messages run them with
 * `now` = `at`: a rerun of the same time adds nothing (the crossings' markers, the day's briefings).
 * `read` reads the organization's units in stock and its stores' settings in its object, and deletes
 * its expired compliance checks, briefings, aged-alert markers and finished webhook deliveries there; `outcomes` reads and writes
 * its lender decisions and episodes there; `briefings` and `agedAlerts` read and write its briefings
 * and markers there, each write with its events in the object's outbox (the alarm relays them after
 * the run); `attemptBodies` clears its webhook attempts' bodies made before `keptFrom` there.
 */
export async function runNightly(
  env: Env,
  orgId: string,
  at: number,
  read: {
    inStock: () => Promise<AlertUnitRow[]>;
    /** The stores' settings, kept in the object (the settings group). */
    storeSettings: () => Promise<StoreSettingsById>;
    expiredChecks: (now: Date) => number;
    /** The finished webhook deliveries past their retention, deleted in the object (the webhooks group). */
    expiredDeliveries: (now: Date) => number;
    outcomes: OutcomeStore;
    attemptBodies: (keptFrom: string) => number;
    // The briefings group: the briefings and their rows, the aged crossings' markers, and their retention, in the object.
    briefings: BriefingStore;
    agedAlerts: AgedAlertStore;
    expiredBriefings: (now: Date) => number;
  },
): Promise<void> {
  const now = new Date(at);
  const minute = Math.round((at % DAY_MS) / 60_000);
  const due = [...RUN_MINUTES].filter(([, runMinute]) => runMinute === minute).map(([job]) => job);
  if (due.includes("aged-inventory-alerts")) await raiseAgedAlertsOf(orgId, await read.inStock(), await read.storeSettings(), read.agedAlerts, now);
  if (due.includes("purge-expired-records")) {
    read.expiredChecks(now);
    read.expiredBriefings(now);
    read.expiredDeliveries(now);
  }
  if (due.includes("purge-webhook-bodies")) read.attemptBodies(attemptBodiesKeptFrom(now));
  if (due.includes("lender-outcome-shifts")) await raiseOutcomeShiftsOf(env, orgId, read.outcomes, now);
  if (due.includes("build-morning-briefings"))
    for (const storeId of await listStoreIds(getDb(env.DB), orgId)) await buildStoreBriefings(env, orgId, storeId, now, read.briefings);
}
