import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AGED_ALERTS_RETENTION, MORNING_BRIEFINGS_RETENTION, RETENTION_RULES } from "../../src/db/queries/retention";
import { moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { isoDay } from "../../src/engines/dates";
import { recordingD1 } from "../helpers/d1-recorder";
import { listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { PLACES, type Place, placeOrganization, rowsWhereStored } from "../helpers/org-storage";
import { runCron } from "../helpers/queue-driver";
import { createTestApp } from "../helpers/test-app";

const DAY = 86_400_000;

/** The first 00:15 UTC (the aged alerts' and retention's run) strictly after now. */
function nextAgedRun(): number {
  const midnight = Math.floor(Date.now() / DAY) * DAY;
  const at = midnight + 15 * 60_000;
  return at > Date.now() ? at : at + DAY;
}

/**
 * The 00:15 jobs (aged alerts, retention) run where the organization's data is, up to and including
 * `through`: the crons for D1, the object's alarm (each of its runs in order) for the object.
 */
async function runNightsThrough(orgId: string, place: Place, runs: readonly number[]): Promise<void> {
  if (place === "d1") {
    for (const at of runs) await runCron("15 0 * * *", at);
    return;
  }
  const stub = orgStore(env, orgId);
  // The object's alarm meets its runs in order (00:15, 05:00, 06:00, the next 00:15): fired until it has passed the last.
  for (;;) {
    const next = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
    if (next === null || next > runs[runs.length - 1]) return;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
  }
}

const brief = (key: string, role: string) =>
  call("/api/v1/morning-briefing", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ role }) });

/** An organization with one store and its units; its rows seeded in D1, then placed (moved, D1's copy of the groups deleted). */
async function organization(units: ReturnType<typeof unit>[]) {
  const org = await createOrg({ place: "d1" });
  const store = await createStore(org.id, { isPrimary: true });
  // The feeds' stale check would set the object's alarm before the fourth night's run, and a forced firing for it does not
  // move it (it checks at the real time): ten days' thresholds keep it past the runs `runNightsThrough` fires through.
  await env.DB.prepare("UPDATE stores SET inventory_stale_hours = 240, deals_stale_hours = 240 WHERE id = ?").bind(store.id).run();
  const ingest = await createIngestKey(org.id);
  expect((await putInventory(store.id, { key: ingest }, { units })).status).toBe(200);
  return { org, store, ingest, key: (await createApiKey(org.id)).key };
}

describe.each(PLACES)("the briefings group, the organization's data in %s", (place) => {
  it("POST /api/v1/morning-briefing answers the day's stored briefing, and builds and stores a missing one, where the data is", async () => {
    const { org, store, key } = await organization([unit(1, { stocked_on: isoDay(Date.now() - 60 * DAY), condition: "used" })]);
    await placeOrganization(org.id, place);
    const stored = (role: string) =>
      rowsWhereStored<{ body: string }>(
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
    // Nothing of the object's organization is written to D1's copy.
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM morning_briefings WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(inD1?.n).toBe(place === "d1" ? 1 : 0);

    // A briefing stored for another role (as the nightly run stores it) is what that role's request answers: read where the data is.
    const planted = JSON.stringify({ ...gm, role: "fi_director", generated_at: "2026-01-01T06:00:00.000Z" });
    await rowsWhereStored(
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

  it("the aged-alert job raises a crossing once across two nights, and not again for one alerted before the organization moved", async () => {
    const agedAt = nextAgedRun();
    // Used units (45 days): S00001 crosses the night before, S00002 on the first night, S00003 is fresh.
    const stocked = (i: number, days: number) => unit(i, { stocked_on: isoDay(agedAt - days * DAY), condition: "used" });
    const { org } = await organization([stocked(1, 46), stocked(2, 45), stocked(3, 10)]);
    await runCron("15 0 * * *", agedAt - DAY);
    // Its marker is in D1; moved, it is in the object only (D1's copy deleted).
    await placeOrganization(org.id, place);
    expect(await rowsWhereStored(org.id, "SELECT stock_number FROM aged_inventory_alerts WHERE org_id = ?", org.id)).toEqual([
      { stock_number: "S00001" },
    ]);

    await runNightsThrough(org.id, place, [agedAt, agedAt + DAY]);
    const alerted = (await listOutboxEvents(org.id, "inventory.aged_alert")).map((e) => e.data.stock_no);
    expect(alerted.sort()).toEqual(["S00001", "S00002"]);
    const markers = await rowsWhereStored(org.id, "SELECT stock_number FROM aged_inventory_alerts WHERE org_id = ? ORDER BY stock_number", org.id);
    expect(markers).toEqual([{ stock_number: "S00001" }, { stock_number: "S00002" }]);
  });

  it("the nightly retention deletes the expired briefings and markers where the data is, under D1's rules, and keeps younger ones", async () => {
    expect(RETENTION_RULES).toEqual(expect.arrayContaining([MORNING_BRIEFINGS_RETENTION, AGED_ALERTS_RETENTION]));
    const purgeAt = nextAgedRun();
    const { org, store } = await organization([unit(1)]);
    const briefingOn = (role: string, days: number) =>
      env.DB.prepare("INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, ?, ?, ?, ?, '{}')")
        .bind(org.id, store.id, role, isoDay(purgeAt - days * DAY), new Date(purgeAt - days * DAY).toISOString())
        .run();
    const markerOn = (stock: string, days: number) =>
      env.DB.prepare("INSERT INTO aged_inventory_alerts (org_id, stock_number, stocked_on, alerted_at) VALUES (?, ?, '2026-01-01', ?)")
        .bind(org.id, stock, new Date(purgeAt - days * DAY).toISOString())
        .run();
    await briefingOn("gm", MORNING_BRIEFINGS_RETENTION.keptDays + 1);
    await briefingOn("fi_director", MORNING_BRIEFINGS_RETENTION.keptDays - 1);
    await markerOn("OLD", AGED_ALERTS_RETENTION.keptDays + 1);
    await markerOn("YOUNG", AGED_ALERTS_RETENTION.keptDays - 1);
    await placeOrganization(org.id, place);

    await runNightsThrough(org.id, place, [purgeAt]);
    expect(await rowsWhereStored(org.id, "SELECT role FROM morning_briefings WHERE org_id = ?", org.id)).toEqual([{ role: "fi_director" }]);
    expect(await rowsWhereStored(org.id, "SELECT stock_number FROM aged_inventory_alerts WHERE org_id = ?", org.id)).toEqual([
      { stock_number: "YOUNG" },
    ]);
  });
});

describe("a morning briefing asked for while its organization moves", () => {
  it("waits for the flip without building or storing anything in D1 meanwhile, then is built and stored once, in the object", async () => {
    const { org, key } = await organization([unit(1, { stocked_on: isoDay(Date.now() - 60 * DAY), condition: "used" })]);
    await env.DB.prepare("UPDATE organizations SET storage = 'moving' WHERE id = ?").bind(org.id).run();
    const d1 = recordingD1();
    const { request } = createTestApp(undefined, { ...env, DB: d1.DB });
    const asked = request("/api/v1/morning-briefing", {
      method: "POST",
      headers: { "X-Service-API-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ role: "gm" }),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Storing is a write: it polls the flag, which D1's copy, unchanged by the move, would answer as a read does; it tries no fenced store there.
    expect(d1.statements.filter((s) => /insert into "morning_briefings"/i.test(s.sql))).toEqual([]);
    expect(d1.statements.filter((s) => /from "deals"|from "inventory_units"/i.test(s.sql))).toEqual([]);

    await moveToObject(env, org.id);
    const res = await asked;
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await rowsWhereStored(org.id, "SELECT role FROM morning_briefings WHERE org_id = ?", org.id)).toEqual([{ role: "gm" }]);
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM morning_briefings WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(inD1?.n).toBe(0);
  });
});
