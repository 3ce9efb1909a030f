import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { inventoryAlerts, morningBriefing } from "../../src/routes/reports/reports.service";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";
import { daysAgo, today } from "../helpers/reports";

/** A used car's snapshot line, `days` in stock. */
const stocked = (i: number, days: number, overrides: Record<string, unknown> = {}) => unit(i, { stocked_on: daysAgo(days), ...overrides });
const UNITS = [stocked(1, 50), stocked(2, 10, { asking_price: 30_000 }), stocked(3, 5), stocked(4, 70)];

describe("the reports, read in the organization's object", () => {
  it("answer from its units, market values and deals, and follow a snapshot that lands there", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true, name: "North Lot" });
    const key = await createIngestKey(org.id);
    expect((await putInventory(store.id, { key }, { units: UNITS })).status).toBe(200);
    // Two units valued by the feed (the others take the engine's estimate).
    await rowsInObject(
      org.id,
      `INSERT INTO unit_market_values (unit_id, org_id, market_value, as_of, source)
       SELECT id, org_id, asking_price - 1000, ?, 'test' FROM inventory_units WHERE org_id = ? AND stock_number IN ('S00001', 'S00002')`,
      today(),
      org.id,
    );

    // Two used Accords retailed this week and a deal waiting on a stip: the briefing's sales pace, velocity and funding read the deals.
    const recent = today();
    const deals = [
      deal("R-1", store.id, { status: "funded", sold_on: recent, funded_on: recent }),
      deal("R-2", store.id, { status: "funded", sold_on: recent, funded_on: recent }),
      deal("P-1", store.id, { status: "submitted", sold_on: recent, stips: [{ stip: "proof_of_income", state: "outstanding" }] }),
    ];
    expect((await postDeals({ key }, { deals })).status).toBe(200);

    const db = getDb(env.DB);
    const start = Date.now();
    // Each read a minute after the last (past the reports' per-isolate cache), the day's stored briefing removed.
    let reads = 0;
    const reports = async () => {
      const now = new Date(start + 61_000 * reads++);
      await rowsInObject(org.id, "DELETE FROM morning_briefings WHERE org_id = ?", org.id);
      // Without the feeds' ages, which grow by the minute between reads.
      const { data_as_of: _, ...alerts } = await inventoryAlerts(env, db, org.id, {}, now);
      const request = { orgId: org.id, role: "used_car_manager" as const, storeId: undefined, lenderThresholdPts: 0.25 };
      const { generated_at: __, data_as_of: ___, ...briefing } = await morningBriefing(env, db, request, now);
      return { alerts, briefing };
    };

    const before = await reports();
    expect(before.alerts.alerts.map((a) => a.stock_no).sort()).toEqual(["S00001", "S00002", "S00004"]);
    expect(before.alerts.alerts.find((a) => a.stock_no === "S00001")?.market_value_source).toBe("valuation");
    // The pushed deals are in it: the pre-owned days supply counts the three used deals sold this month.
    expect(JSON.stringify(before.briefing)).toContain("3 retailed in 30 days");

    // A snapshot: aged S00004 sold, a new aged S00005 in.
    const snapshot = [UNITS[0], UNITS[1], UNITS[2], stocked(5, 60)];
    expect((await putInventory(store.id, { key }, { units: snapshot })).status).toBe(200);
    const after = await reports();
    expect(after.alerts.alerts.map((a) => a.stock_no).sort()).toEqual(["S00001", "S00002", "S00005"]);
    expect(before.alerts.total_aged_units).toBe(2);
    expect(after.alerts.total_aged_units).toBe(2);
    expect(after.alerts.total_aged_exposure_usd).not.toBe(before.alerts.total_aged_exposure_usd);
    const briefed = (b: typeof before.briefing) => b.alerts.map((a) => a.stock_no).sort();
    expect(briefed(before.briefing)).toEqual(["S00001", "S00002", "S00004"]);
    expect(briefed(after.briefing)).toEqual(["S00001", "S00002", "S00005"]);
  });

  it("a store's briefing counts only that store's funding pipeline, however old its deals", async () => {
    const org = await createOrg();
    const north = await createStore(org.id, { isPrimary: true, name: "North Lot" });
    const south = await createStore(org.id, { name: "South Lot" });
    const ingestKey = await createIngestKey(org.id);
    const waiting = (storeId: string, number: string) =>
      deal(number, storeId, { sold_on: "2025-01-10", submitted_on: "2025-01-11", stips: [{ stip: "proof_of_income", state: "outstanding" }] });
    // Sold long before the briefing's recent-sales window: only the pipeline read finds them, by store.
    const pipeline = [waiting(north.id, "N-1"), waiting(south.id, "S-1"), waiting(south.id, "S-2")];
    expect((await postDeals({ key: ingestKey }, { deals: pipeline })).status).toBe(200);

    const { key } = await createApiKey(org.id);
    const pipelineOf = async (storeId: string) => {
      const body = JSON.stringify({ role: "gm", store_id: storeId });
      const res = await call("/api/v1/morning-briefing", { method: "POST", key, headers: { "Content-Type": "application/json" }, body });
      expect(res.status).toBe(200);
      const briefing = (await res.json()) as { sections: { id: string; figures: { id: string; value: number }[] }[] };
      const figures = briefing.sections.find((s) => s.id === "funding_pipeline")?.figures ?? [];
      return Object.fromEntries(figures.filter((f) => f.id === "deals_waiting" || f.id === "open_stips").map((f) => [f.id, f.value]));
    };
    expect(await pipelineOf(north.id)).toEqual({ deals_waiting: 1, open_stips: 1 });
    expect(await pipelineOf(south.id)).toEqual({ deals_waiting: 2, open_stips: 2 });
  });
});
