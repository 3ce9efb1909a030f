/**
 * An organization's nightly work, run by its storage object on its own alarm where its data is
 * (docs/scaling.md#jobs-where-the-data-is): its aged alerts, lender outcomes, briefings and the
 * retention of its own tables. The crons run only the global jobs (SCHEDULE, src/jobs/index.ts).
 */
import { getDb } from "../db/client";
import type { AgedAlertStore } from "../db/queries/aged-alerts";
import { type AlertUnitRow, type BriefingStore, listStoreIds, type StoreSettingsById } from "../db/queries/reports";
import type { OutcomeStore } from "../db/queries/signals";
import { DAY_MS, daysBefore } from "../engines/dates";
import { WEBHOOK_BODY_RETENTION_DAYS } from "../events/delivery";
import { raiseAgedAlertsOf } from "./aged-inventory-alerts";
import { buildStoreBriefings } from "./build-morning-briefings";
import { CRONS } from "./crons";
import { raiseOutcomeShiftsOf } from "./lender-outcomes";

type NightlyJob = "aged-inventory-alerts" | "lender-outcome-shifts" | "build-morning-briefings" | "purge-expired-records" | "purge-webhook-bodies";

/** Minutes past UTC midnight of a daily cron ("M H * * *"). */
function minuteOfDay(cron: string): number {
  const [minute, hour] = cron.split(" ").map(Number);
  return hour * 60 + minute;
}

/** Each nightly job's minute of the day, set by the global crons whose data it reads. */
const RUN_MINUTES: ReadonlyMap<NightlyJob, number> = new Map([
  // With the global retention, 00:15.
  ["aged-inventory-alerts", minuteOfDay(CRONS.nightly)],
  // With the market refresh, and before the briefings, which name what it finds.
  ["lender-outcome-shifts", minuteOfDay(CRONS.marketData)],
  // An hour after the market refresh, whose pulse they read: 06:00.
  ["build-morning-briefings", minuteOfDay(CRONS.marketData) + 60],
  // The audit trail's expired checks (COMPLIANCE_CHECKS_RETENTION), the briefings group's and the finished webhook deliveries
  // (WEBHOOK_DELIVERIES_RETENTION), deleted in the object.
  ["purge-expired-records", minuteOfDay(CRONS.nightly)],
  // The webhook attempts' bodies past WEBHOOK_BODY_RETENTION_DAYS, cleared in the object.
  ["purge-webhook-bodies", minuteOfDay(CRONS.nightly)],
]);

/** The first attempt time whose bodies are kept at `now`. */
const attemptBodiesKeptFrom = (now: Date) => daysBefore(now, WEBHOOK_BODY_RETENTION_DAYS).toISOString();

/** The first nightly run strictly after `after` (epoch ms): its time, which the object's alarm is set for. */
export function nextNightlyRun(after: number): number {
  const midnight = Math.floor(after / DAY_MS) * DAY_MS;
  const times = [...RUN_MINUTES.values()].flatMap((m) => [midnight + m * 60_000, midnight + DAY_MS + m * 60_000]);
  return Math.min(...times.filter((t) => t > after));
}

/**
 * The jobs due at `at` (a time nextNightlyRun gave), with `now` = `at`: a rerun of the same time
 * adds nothing (the crossings' markers, the day's briefings).
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
