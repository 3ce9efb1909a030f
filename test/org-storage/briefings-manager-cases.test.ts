import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { briefingStore, keepBriefing } from "../../src/db/org-store";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { isoDay } from "../../src/engines/dates";
import { listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";

const DAY = 86_400_000;

/** The object's alarm fired until it has passed `through` (its runs come in order). */
async function alarmsThrough(orgId: string, through: number): Promise<void> {
  for (let fired = 0; fired < 8; fired++) {
    const next = await runInDurableObject(orgStore(env, orgId), (_, state) => state.storage.getAlarm());
    if (next === null || next > through) return;
    expect(await runDurableObjectAlarm(orgStore(env, orgId))).toBe(true);
  }
}

describe("an organization's briefings and aged alerts in its object, as its managers meet them", () => {
  it("a briefing asked for before the 06:00 run stands: the run keeps it and raises the other roles' only", async () => {
    const { briefedAt } = nightlyRuns();
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    const ingest = await createIngestKey(org.id);
    expect((await putInventory(store.id, { key: ingest }, { units: [unit(1)] })).status).toBe(200);
    // The GM asks on the run's day, before 06:00: the object builds and stores it (its own day, the run's).
    const key = (await createApiKey(org.id)).key;
    const asked = await call("/api/v1/morning-briefing", {
      method: "POST",
      key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ role: "gm" }),
    });
    expect(asked.status).toBe(200);
    const today = isoDay(Date.now());
    await alarmsThrough(org.id, briefedAt);
    const ready = (await listOutboxEvents(org.id, "morning_briefing.ready")).filter((e) => e.data.day === today);
    const stored = await rowsInObject<{ role: string; generated_at: string }>(
      org.id,
      "SELECT role, generated_at FROM morning_briefings WHERE day = ? ORDER BY role",
      today,
    );
    if (isoDay(briefedAt) === today) {
      expect(stored).toHaveLength(6);
      expect(stored.find((r) => r.role === "gm")?.generated_at).toBe((await asked.json<{ generated_at: string }>()).generated_at);
      expect(ready.map((e) => e.data.role).sort()).toEqual(["bdc_manager", "fi_director", "new_car_manager", "sales_manager", "used_car_manager"]);
    } else expect(stored.map((r) => r.role)).toEqual(["gm"]);
  });

  it("a crossing the object alerted is not sent again the next night; a unit restocked under the same stock number alerts anew", async () => {
    const { agedAt } = nightlyRuns();
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    // Ten days' thresholds keep the feeds' stale check (which fires at the real time) past the nights fired here.
    await rowsInObject(org.id, "UPDATE stores SET inventory_stale_hours = 240, deals_stale_hours = 240 WHERE id = ?", store.id);
    const key = await createIngestKey(org.id);
    const stocked = (i: number, days: number, extra: Record<string, unknown> = {}) =>
      unit(i, { stocked_on: isoDay(agedAt - days * DAY), condition: "used", ...extra });
    expect((await putInventory(store.id, { key }, { units: [stocked(1, 45)] })).status).toBe(200);
    await alarmsThrough(org.id, agedAt);
    expect((await listOutboxEvents(org.id, "inventory.aged_alert")).map((e) => e.data.stock_no)).toEqual(["S00001"]);

    // Sold and taken back in: the same stock number, a new stocking that crosses the next night, is a new crossing.
    expect((await putInventory(store.id, { key }, { units: [stocked(1, 44, { vin: "1FTFW1E50NFA00001" })] })).status).toBe(200);
    await alarmsThrough(org.id, agedAt + DAY);
    const alerts = await listOutboxEvents(org.id, "inventory.aged_alert");
    expect(alerts.map((e) => e.data.stock_no)).toEqual(["S00001", "S00001"]);
  });

  it("a briefing a request stored while the night's run built the same role stands, and the run raises nothing for it", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    await runInDurableObject(orgStore(env, org.id), (_, state) => {
      const briefings = briefingStore(drizzle(state.storage), org.id);
      const row = (role: "gm" | "fi_director", generatedAt: string) => ({
        orgId: org.id,
        storeId: store.id,
        role,
        day: "2026-11-29",
        generatedAt,
        body: { generated_at: generatedAt },
      });
      const ready = (role: string) => ({ event: "morning_briefing.ready", orgId: org.id, storeId: store.id, data: { role } });
      // The request's briefing, stored after the run read which roles the day held.
      expect(briefings.write([row("gm", "05:59")], [ready("gm")], "2026-11-29T05:59:00.000Z")).toEqual(["gm"]);
      expect(
        briefings.write([row("gm", "06:00"), row("fi_director", "06:00")], [ready("gm"), ready("fi_director")], "2026-11-29T06:00:00.000Z"),
      ).toEqual(["fi_director"]);
      const sql = state.storage.sql;
      expect(sql.exec("SELECT role, generated_at FROM morning_briefings ORDER BY role").toArray()).toEqual([
        { role: "fi_director", generated_at: "06:00" },
        { role: "gm", generated_at: "05:59" },
      ]);
      expect(sql.exec("SELECT json_extract(data, '$.role') AS role, occurred_at FROM event_outbox ORDER BY role").toArray()).toEqual([
        { role: "fi_director", occurred_at: "2026-11-29T06:00:00.000Z" },
        { role: "gm", occurred_at: "2026-11-29T05:59:00.000Z" },
      ]);
    });
  });

  it("of two requests that built the same briefing at once, the second answers the one the first stored, not its own", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    await runInDurableObject(orgStore(env, org.id), (_, state) => {
      const db = drizzle(state.storage);
      const row = (generatedAt: string) => ({
        orgId: org.id,
        storeId: store.id,
        role: "gm" as const,
        day: "2026-11-29",
        generatedAt,
        body: { generated_at: generatedAt },
      });
      expect(keepBriefing(db, row("06:01:00"))).toEqual({ generated_at: "06:01:00" });
      // Built from the same rows a moment later: the day's briefing is the first stored, so every manager reads the same one.
      expect(keepBriefing(db, row("06:01:01"))).toEqual({ generated_at: "06:01:00" });
    });
  });
});
