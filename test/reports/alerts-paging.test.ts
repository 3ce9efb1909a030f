import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ReportsAlertReportSchema } from "../../src/routes/reports/reports.routes";
import type { ErrorBody } from "../helpers/bodies";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, unit as ingestUnit, putInventory } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";
import { createOtherOrgWithAgedUnit, createValuedUnit, daysAgo } from "../helpers/reports";

type Report = z.infer<typeof ReportsAlertReportSchema>;

/** The report keeps each page per isolate for 60 s (docs/reports.md): later reads step past it. */
function laterBy(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + ms);
}
afterEach(() => vi.useRealTimers());

const alertsPath = (params: Record<string, string> = {}) => `/api/v1/inventory-alerts?${new URLSearchParams(params)}`;
async function page(key: string, params: Record<string, string> = {}): Promise<Report> {
  const res = await call(alertsPath(params), { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/** Follows next_cursor from the first page to the last. */
async function walk(key: string, limit: number): Promise<Report[]> {
  const pages = [await page(key, { limit: String(limit) })];
  for (let last = pages[0]; last.next_cursor !== null; ) {
    expect(last.has_more).toBe(true);
    last = await page(key, { limit: String(limit), cursor: last.next_cursor });
    pages.push(last);
  }
  expect(pages.at(-1)?.has_more).toBe(false);
  return pages;
}

describe("GET /api/v1/inventory-alerts, page by page", () => {
  let key: string;
  let otherKey: string;
  let whole: Report;

  // Two stores, 14 units in stock, of which 10 need a decision and 8 are aged (store defaults: aged at 45 days).
  beforeAll(async () => {
    const org = await createOrg();
    const north = await createStore(org.id, { isPrimary: true });
    const south = await createStore(org.id);
    key = (await createApiKey(org.id)).key;
    for (const [i, store] of [north, south].entries()) {
      const unit = (stock: string, days: number, askingPrice: number) =>
        createValuedUnit(org.id, store.id, {
          stockNumber: `${stock}-${i}`,
          stockedOn: daysAgo(days),
          cost: 18_000 + i * 500,
          askingPrice,
          marketValue: 25_000,
        });
      await unit("AGED", 50, 24_995);
      await unit("OLDER", 80, 24_995);
      await unit("BOTH", 46, 26_500);
      await unit("OVER", 10, 26_500);
      await unit("FINE", 5, 24_995);
      await unit("EDGE", 44, 24_995);
    }
    await createValuedUnit(org.id, north.id, {
      stockNumber: "SAME-DAY-A",
      stockedOn: daysAgo(60),
      cost: 15_000,
      askingPrice: 19_995,
      marketValue: 20_000,
    });
    await createValuedUnit(org.id, south.id, {
      stockNumber: "SAME-DAY-B",
      stockedOn: daysAgo(60),
      cost: 15_000,
      askingPrice: 19_995,
      marketValue: 20_000,
    });

    otherKey = await createOtherOrgWithAgedUnit();

    whole = await page(key);
  });

  it("answers a call without parameters with every alert of a small organization, largest exposure first, and no next page", () => {
    expect(whole.alerts).toHaveLength(10);
    expect(whole.has_more).toBe(false);
    expect(whole.next_cursor).toBeNull();
    const exposures = whole.alerts.map((a) => a.exposure_usd);
    expect(exposures).toEqual([...exposures].sort((a, b) => b - a));
  });

  it("reaches every alert exactly once however small the pages, each page largest exposure first", async () => {
    for (const limit of [1, 2, 5]) {
      const pages = await walk(key, limit);
      const seen = pages.flatMap((p) => p.alerts.map((a) => a.stock_no));
      expect(new Set(seen).size, `limit ${limit}`).toBe(seen.length);
      expect(seen.sort()).toEqual(whole.alerts.map((a) => a.stock_no).sort());
      for (const p of pages) {
        expect(p.alerts.length).toBeLessThanOrEqual(limit);
        const exposures = p.alerts.map((a) => a.exposure_usd);
        expect(exposures).toEqual([...exposures].sort((a, b) => b - a));
      }
    }
  });

  it("gives the whole organization's aged totals on every page, not the page's", async () => {
    const aged = whole.alerts.filter((a) => a.days_on_lot >= a.aged_threshold_days);
    expect(whole.total_aged_units).toBe(8);
    expect(whole.total_aged_exposure_usd).toBe(aged.reduce((sum, a) => sum + a.exposure_usd, 0));
    for (const p of await walk(key, 1)) {
      expect(p.total_aged_units).toBe(whole.total_aged_units);
      expect(p.total_aged_exposure_usd).toBe(whole.total_aged_exposure_usd);
    }
  });

  it("never shows another organization's alerts, and refuses its cursor with the house error body", async () => {
    const other = await page(otherKey, { limit: "1" });
    expect(other.alerts.map((a) => a.stock_no)).toEqual(["B-AGED"]);
    expect(other.total_aged_units).toBe(1);
    const first = await page(key, { limit: "1" });
    const res = await call(alertsPath({ cursor: first.next_cursor ?? "" }), { key: otherKey });
    expect(res.status).toBe(422);
    const body = await res.json<ErrorBody>();
    expect(body).toMatchObject({ error: "validation_error", message: expect.any(String), request_id: expect.any(String) });
    expect(body.details?.[0]).toMatchObject({ path: "cursor", code: "cursor_mismatch" });
    expect(JSON.stringify(body)).not.toContain("AGED-");
  });

  it("refuses a damaged cursor, another list's cursor and a limit out of range", async () => {
    const damaged = await call(alertsPath({ cursor: "not-a-cursor" }), { key });
    expect(damaged.status).toBe(422);
    expect((await damaged.json<ErrorBody>()).details?.[0]).toMatchObject({ path: "cursor", code: "invalid_cursor" });
    const feedPage = await (await call("/api/v1/inventory?limit=1", { key })).json<{ next_cursor: string }>();
    const feedCursor = await call(alertsPath({ cursor: feedPage.next_cursor }), { key });
    expect(feedCursor.status).toBe(422);
    expect((await feedCursor.json<ErrorBody>()).details?.[0]).toMatchObject({ path: "cursor", code: "cursor_mismatch" });
    for (const limit of ["0", "501", "ten"]) {
      const res = await call(alertsPath({ limit }), { key });
      expect(res.status, limit).toBe(422);
      expect((await res.json<ErrorBody>()).details?.[0]).toMatchObject({ path: "limit" });
    }
  });
});

// The totals are computed from the units in stock on each page, in the organization's object (docs/reports.md#totals).
describe("the aged totals", () => {
  async function ingestOrg() {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    const ingestKey = await createIngestKey(org.id);
    const readKey = (await createApiKey(org.id)).key;
    return { org, store, ingestKey, readKey };
  }
  const snapshotUnits = [
    ingestUnit(1, { stocked_on: daysAgo(50) }),
    ingestUnit(2, { stocked_on: daysAgo(70) }),
    ingestUnit(3, { stocked_on: daysAgo(44) }),
    ingestUnit(4, { stocked_on: daysAgo(3) }),
  ];

  it("count a unit that reaches its threshold at midnight from that day", async () => {
    const { store, ingestKey, readKey } = await ingestOrg();
    expect((await putInventory(store.id, { key: ingestKey }, { units: snapshotUnits })).status).toBe(200);
    expect((await page(readKey)).total_aged_units).toBe(2);
    laterBy(86_400_000);
    const tomorrow = await page(readKey);
    expect(tomorrow.total_aged_units).toBe(3);
    expect(tomorrow.total_aged_exposure_usd).toBe(
      tomorrow.alerts.filter((a) => a.days_on_lot >= a.aged_threshold_days).reduce((sum, a) => sum + a.exposure_usd, 0),
    );
  });

  it("follow a store's snapshot, and its settings once the report's minute has passed", async () => {
    const { org, store, ingestKey, readKey } = await ingestOrg();
    expect((await putInventory(store.id, { key: ingestKey }, { units: snapshotUnits })).status).toBe(200);
    expect((await page(readKey)).total_aged_units).toBe(2);
    // The unit at 44 days is re-dated 60 days back by the next snapshot; the one at 70 days is sold (absent).
    const next = [snapshotUnits[0], { ...snapshotUnits[2], stocked_on: daysAgo(60) }, snapshotUnits[3]];
    expect((await putInventory(store.id, { key: ingestKey }, { units: next })).status).toBe(200);
    laterBy(61_000);
    expect((await page(readKey)).total_aged_units).toBe(2);
    await rowsInObject(org.id, "UPDATE stores SET aged_threshold_days = 55 WHERE id = ?", store.id);
    laterBy(122_000);
    const after = await page(readKey);
    expect(after.total_aged_units).toBe(1);
    expect(after.alerts.filter((a) => a.days_on_lot >= a.aged_threshold_days).map((a) => a.stock_no)).toEqual(["S00003"]);
  });
});
