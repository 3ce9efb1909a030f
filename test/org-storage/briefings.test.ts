import { describe, expect, it } from "vitest";
import { AGED_ALERTS_RETENTION, MORNING_BRIEFINGS_RETENTION } from "../../src/db/queries/retention";
import { isoDay } from "../../src/engines/dates";
import { listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { runAlarmsThrough } from "../helpers/object-sql";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";

const DAY = 86_400_000;

const brief = (key: string, role: string) =>
  call("/api/v1/morning-briefing", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ role }) });

/** An organization in its object with one store and its units. */
async function organization(units: ReturnType<typeof unit>[]) {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  // The feeds' stale check would set the object's alarm before the fourth night's run, and a forced firing for it does not
  // move it (it checks at the real time): ten days' thresholds keep it past the runs the tests fire through.
  await rowsInObject(org.id, "UPDATE stores SET inventory_stale_hours = 240, deals_stale_hours = 240 WHERE id = ?", store.id);
  const ingest = await createIngestKey(org.id);
  expect((await putInventory(store.id, { key: ingest }, { units })).status).toBe(200);
  return { org, store, ingest, key: (await createApiKey(org.id)).key };
}

describe("the briefings group, in the organization's object", () => {
  it("POST /api/v1/morning-briefing answers the day's stored briefing, and builds and stores a missing one, in the object", async () => {
    const { org, store, key } = await organization([unit(1, { stocked_on: isoDay(Date.now() - 60 * DAY), condition: "used" })]);
    const stored = (role: string) =>
      rowsInObject<{ body: string }>(
        org.id,
        "SELECT body FROM morning_briefings WHERE org_id = ? AND role = ? AND day = ?",
        org.id,
        role,
        isoDay(Date.now()),
      );

    const built = await brief(key, "gm");
    expect(built.status, await built.clone().text()).toBe(200);
    const gm = await built.json<{ generated_at: string; total_aged_units: number }>();
    expect(gm.total_aged_units).toBe(1);
    expect((await stored("gm")).map((r) => JSON.parse(r.body).generated_at)).toEqual([gm.generated_at]);
    // A briefing stored for another role (as the nightly run stores it) is what that role's request answers: read in the object.
    const planted = JSON.stringify({ ...gm, role: "fi_director", generated_at: "2026-01-01T06:00:00.000Z" });
    await rowsInObject(
      org.id,
      "INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, ?, 'fi_director', ?, '2026-01-01T06:00:00.000Z', ?)",
      org.id,
      store.id,
      isoDay(Date.now()),
      planted,
    );
    const read = await brief(key, "fi_director");
    expect(read.status).toBe(200);
    expect((await read.json<{ generated_at: string }>()).generated_at).toBe("2026-01-01T06:00:00.000Z");
    expect(await stored("fi_director")).toHaveLength(1);
  });

  it("the aged-alert job raises a crossing once across two nights, its marker in the object", async () => {
    const { agedAt } = nightlyRuns();
    // Used units (45 days): S00001 crossed the night before, S00002 crosses on the first night, S00003 is fresh.
    const stocked = (i: number, days: number) => unit(i, { stocked_on: isoDay(agedAt - days * DAY), condition: "used" });
    const { org } = await organization([stocked(1, 46), stocked(2, 45), stocked(3, 10)]);

    await runAlarmsThrough(org.id, agedAt + DAY);
    const alerted = (await listOutboxEvents(org.id, "inventory.aged_alert")).map((e) => e.data.stock_no);
    expect(alerted.sort()).toEqual(["S00001", "S00002"]);
    const markers = await rowsInObject(org.id, "SELECT stock_number FROM aged_inventory_alerts WHERE org_id = ? ORDER BY stock_number", org.id);
    expect(markers).toEqual([{ stock_number: "S00001" }, { stock_number: "S00002" }]);
  });

  it("the nightly retention deletes the expired briefings and markers in the object, under their rules, and keeps younger ones", async () => {
    const purgeAt = nightlyRuns().agedAt;
    const { org, store } = await organization([unit(1)]);
    const briefingOn = (role: string, days: number) =>
      rowsInObject(
        org.id,
        "INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, ?, ?, ?, ?, '{}')",
        org.id,
        store.id,
        role,
        isoDay(purgeAt - days * DAY),
        new Date(purgeAt - days * DAY).toISOString(),
      );
    const markerOn = (stock: string, days: number) =>
      rowsInObject(
        org.id,
        "INSERT INTO aged_inventory_alerts (org_id, stock_number, stocked_on, alerted_at) VALUES (?, ?, '2026-01-01', ?)",
        org.id,
        stock,
        new Date(purgeAt - days * DAY).toISOString(),
      );
    await briefingOn("gm", MORNING_BRIEFINGS_RETENTION.keptDays + 1);
    await briefingOn("fi_director", MORNING_BRIEFINGS_RETENTION.keptDays - 1);
    await markerOn("OLD", AGED_ALERTS_RETENTION.keptDays + 1);
    await markerOn("YOUNG", AGED_ALERTS_RETENTION.keptDays - 1);

    await runAlarmsThrough(org.id, purgeAt);
    // Of the two briefings written here (the nights before the purge may build today's too, at 06:00).
    const written = [MORNING_BRIEFINGS_RETENTION.keptDays + 1, MORNING_BRIEFINGS_RETENTION.keptDays - 1].map((days) => isoDay(purgeAt - days * DAY));
    expect(await rowsInObject(org.id, "SELECT role FROM morning_briefings WHERE day IN (?, ?)", ...written)).toEqual([{ role: "fi_director" }]);
    expect(await rowsInObject(org.id, "SELECT stock_number FROM aged_inventory_alerts WHERE org_id = ?", org.id)).toEqual([
      { stock_number: "YOUNG" },
    ]);
  });
});
