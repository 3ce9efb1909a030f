import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { isoDay } from "../../src/engines/dates";
import { SCHEDULE } from "../../src/jobs";
import { nextNightlyRun } from "../../src/jobs/org-nightly";
import { listOutboxEvents } from "../helpers/events";
import { createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";
import { runCron } from "../helpers/queue-driver";

const DAY = 86_400_000;
const alarmOf = (orgId: string) => runInDurableObject(orgStore(env, orgId), (_, state) => state.storage.getAlarm());

describe("an organization's nightly jobs run on its object's alarm", () => {
  it("at 00:15, 05:00 and 06:00 UTC; no cron runs them", () => {
    const times = nightlyRuns().order.map((t) => new Date(t).toISOString().slice(11, 16));
    expect(times.sort()).toEqual(["00:15", "05:00", "06:00"]);
    const scheduled = Object.values(SCHEDULE).flatMap((jobs) => jobs.map((job) => job.name));
    for (const job of ["aged-inventory-alerts", "lender-outcome-shifts", "build-morning-briefings", "stale-feeds", "purge-webhook-bodies"])
      expect(scheduled).not.toContain(job);
  });

  it("raises the aged alerts and builds the briefings from the object, once; the cron of the same night adds nothing", async () => {
    // The object's three runs after now: the aged alerts (00:15 UTC), the lender outcomes (05:00) and the briefings (06:00), in the order they come.
    const { order, agedAt, briefedAt } = nightlyRuns();
    // Days on the lot on the aged run's day: S00001 crossed 45 two days before (inside the look-back), S00002 is fresh,
    // S00003 aged long ago (past it), S00005 crosses that day exactly, S00006 too but is sold before the run.
    const stocked = (i: number, days: number) => unit(i, { stocked_on: isoDay(agedAt - days * DAY), condition: "used" });
    const units = [stocked(1, 47), stocked(2, 10), stocked(3, 100), stocked(5, 45), stocked(6, 45)];

    // Born in its object: its nightly alarm is set from the start, for the first run.
    const org = await createOrg();
    expect(await alarmOf(org.id)).toBe(order[0]);
    const store = await createStore(org.id, { isPrimary: true });
    // The feeds' stale check would set the alarm before a nightly run (store-feeds.test.ts tests it): ten days' threshold keeps it past these three.
    await rowsInObject(org.id, "UPDATE stores SET inventory_stale_hours = 240 WHERE id = ?", store.id);
    const key = await createIngestKey(org.id);
    expect((await putInventory(store.id, { key }, { units })).status).toBe(200);
    expect(await alarmOf(org.id)).toBe(order[0]);
    // S00004 comes with the next snapshot, and S00006 is sold in it: the jobs read what the object holds at their run.
    const snapshot = [...units.filter((u) => u.stock_number !== "S00006"), stocked(4, 46)];
    expect((await putInventory(store.id, { key }, { units: snapshot })).status).toBe(200);

    for (const next of [order[1], order[2], nextNightlyRun(order[2])]) {
      expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
      expect(await alarmOf(org.id)).toBe(next);
    }

    const alerted = async () => (await listOutboxEvents(org.id, "inventory.aged_alert")).map((e) => e.data.stock_no).sort();
    const briefed = async () => {
      const rows = await rowsInObject<{ role: string }>(
        org.id,
        "SELECT role FROM morning_briefings WHERE org_id = ? AND day = ?",
        org.id,
        isoDay(briefedAt),
      );
      const ready = await listOutboxEvents(org.id, "morning_briefing.ready");
      return { stored: rows.length, ready: ready.length, aged: ready.map((e) => e.data.total_aged_units).sort() };
    };
    expect(await alerted()).toEqual(["S00001", "S00004", "S00005"]);
    const day = await briefed();
    // Six roles; each used-side briefing counts the object's aged units (S00001, S00003, S00004, and S00005 from the aged
    // run's day on); the new-car manager's, none.
    const aged = briefedAt > agedAt ? 4 : 3;
    expect(day).toEqual({ stored: 6, ready: 6, aged: [0, aged, aged, aged, aged, aged] });

    // The same night's 00:15 cron, through the jobs queue, runs only the global jobs.
    await runCron("15 0 * * *", agedAt);
    expect(await alerted()).toEqual(["S00001", "S00004", "S00005"]);
    expect(await briefed()).toEqual(day);
  });
});
