import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { drizzle } from "drizzle-orm/durable-sqlite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getDb, type SqliteReader } from "../src/db/client";
import * as feeds from "../src/db/queries/feeds";
import { orgStore } from "../src/durable-objects/org-storage-routing";
import type { InventoryFeedSchema, SalesSummaryFeedSchema } from "../src/routes/feeds/feeds.routes";
import { inventoryPage } from "../src/routes/feeds/feeds.service";
import type { ErrorBody } from "./helpers/bodies";
import { call, createApiKey, createDeal, createOrg, createStore, createUnit } from "./helpers/factories";
import { createIngestKey, putInventory, unit } from "./helpers/ingest";
import { rowsInObject } from "./helpers/org-storage";

type InventoryPage = z.infer<typeof InventoryFeedSchema>;
type SalesPage = z.infer<typeof SalesSummaryFeedSchema>;
type SalesRow = SalesPage["salesSummary"][number];

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const query = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))).toString();

async function inventory(key: string, params: Record<string, string | number | undefined> = {}) {
  const res = await call(`/api/v1/inventory?${query(params)}`, { key });
  return { status: res.status, body: await res.json<InventoryPage & ErrorBody>() };
}

async function salesSummary(key: string, params: Record<string, string | number | undefined> = {}) {
  const res = await call(`/api/v1/sales-summary?${query(params)}`, { key });
  return { status: res.status, body: await res.json<SalesPage & ErrorBody>() };
}

/** Follows `next_cursor` until the last page; `between` runs after each page but the last. */
async function walkInventory(key: string, params: Record<string, string | number | undefined>, between?: (page: number) => Promise<void>) {
  const pages: InventoryPage[] = [];
  let cursor: string | undefined;
  do {
    const { status, body } = await inventory(key, { ...params, cursor });
    expect(status).toBe(200);
    pages.push(body);
    cursor = body.next_cursor ?? undefined;
    expect(body.has_more).toBe(cursor !== undefined);
    if (cursor && between) await between(pages.length);
  } while (cursor && pages.length < 50);
  expect(cursor, "a walk that never ends repeats rows").toBeUndefined();
  return pages;
}

/** Five units of one store, two of them stocked the same day so a page boundary falls inside the tie. */
async function orgWithUnits() {
  const org = await createOrg();
  const store = await createStore(org.id, { name: "North Lot" });
  for (const [stockNumber, days] of [
    ["A-40", 40],
    ["B-30", 30],
    ["C-30", 30],
    ["D-20", 20],
    ["E-10", 10],
  ] as const) {
    await createUnit(org.id, store.id, { stockNumber, stockedOn: daysAgo(days) });
  }
  const { key } = await createApiKey(org.id);
  return { org, store, key };
}

describe("inventory paging, the contract's call and pages", () => {
  it("answers a call without parameters as the contract does: no paging or change fields", async () => {
    const { key } = await orgWithUnits();
    const { body } = await inventory(key);
    // The contract's fields, and how old the data is (docs/ingestion.md#when-a-feed-stops).
    expect(Object.keys(body).sort()).toEqual(["count", "data_as_of", "data_warnings", "inventory"]);
    expect(body.inventory[0]).not.toHaveProperty("updated_at");
    expect(body.inventory[0]).not.toHaveProperty("store_id");
  });

  it("walks every unit exactly once, in the unpaged order, across page boundaries that split a tie", async () => {
    const { key, store } = await orgWithUnits();
    const whole = (await inventory(key)).body.inventory.map((u) => u.stock_number);
    for (const limit of [1, 2, 3, 4, 5, 6]) {
      const pages = await walkInventory(key, { limit });
      expect(pages.map((p) => p.count)).toEqual(pages.map((p) => p.inventory.length));
      expect(pages.flatMap((p) => p.inventory.map((u) => u.stock_number))).toEqual(whole);
      expect(pages).toHaveLength(Math.ceil(whole.length / limit));
      expect(pages.at(-1)?.next_cursor).toBeNull();
    }
    const [first] = (await inventory(key, { limit: 2 })).body.inventory;
    expect(first).toMatchObject({ stock_number: "A-40", store_id: store.id });
    expect(first.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("a full last page says there is no more, without an empty extra page", async () => {
    const { key } = await orgWithUnits();
    const { body } = await inventory(key, { limit: 5 });
    expect(body).toMatchObject({ count: 5, has_more: false, next_cursor: null });
  });
});

describe("inventory paging", () => {
  it("a call without parameters that stops at the 500-unit cap says so, and its cursor pages on to the rest", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { name: "Big Lot" });
    const { key } = await createApiKey(org.id);
    await createUnit(org.id, store.id, { stockNumber: "U-0000", stockedOn: daysAgo(100) });
    // 501 more, copies of that one a day apart in stock number only: 502 units in all.
    await rowsInObject(
      org.id,
      `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 501)
       SELECT 'unit_cap_' || i, org_id, store_id, printf('U-%04d', i), vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status
       FROM inventory_units, n WHERE org_id = ? AND stock_number = 'U-0000'`,
      org.id,
    );
    const { body } = await inventory(key);
    expect(body).toMatchObject({ count: 500, has_more: true });
    expect(body.next_cursor).toEqual(expect.any(String));
    const rest = await inventory(key, { cursor: body.next_cursor ?? undefined });
    expect(rest.body).toMatchObject({ count: 2, has_more: false, next_cursor: null });
    const all = [...body.inventory, ...rest.body.inventory].map((u) => u.stock_number);
    expect(new Set(all).size).toBe(502);
  });

  it("a unit stocked while a client pages shows on a later page; one sold meanwhile is not repeated and none is skipped", async () => {
    const { org, store, key } = await orgWithUnits();
    const pages = await walkInventory(key, { limit: 2 }, async (page) => {
      if (page !== 1) return;
      await createUnit(org.id, store.id, { stockNumber: "F-NEW", stockedOn: daysAgo(0) });
      await rowsInObject(org.id, "UPDATE inventory_units SET status = 'sold' WHERE org_id = ? AND stock_number = 'D-20'", org.id);
    });
    expect(pages.flatMap((p) => p.inventory.map((u) => u.stock_number))).toEqual(["A-40", "B-30", "C-30", "E-10", "F-NEW"]);
  });

  it("the plain call is served from the 10 s cache as before; a paged call reads the database", async () => {
    const { org, store, key } = await orgWithUnits();
    expect((await inventory(key)).body.count).toBe(5);
    await createUnit(org.id, store.id, { stockNumber: "F-LATE", stockedOn: daysAgo(1) });
    expect((await inventory(key)).body.count).toBe(5);
    expect((await inventory(key, { limit: 500 })).body.count).toBe(6);
  });

  it("property: for any units (many sharing a stocking day) and any page size, the pages put together are the unpaged list", async () => {
    const db = getDb(env.DB);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[A-Z0-9-]{1,6}$/), { minLength: 0, maxLength: 25 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 25, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        async (stockNumbers, days, limit) => {
          const org = await createOrg();
          const store = await createStore(org.id);
          for (const [i, stockNumber] of stockNumbers.entries()) await createUnit(org.id, store.id, { stockNumber, stockedOn: daysAgo(days[i]) });
          const whole = (await inventoryPage(env, db, org.id, { limit: 500 })).rows.map(([stockNumber]) => stockNumber);
          const walked: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await inventoryPage(env, db, org.id, { limit, cursor });
            expect(page.rows.length).toBeLessThanOrEqual(limit);
            walked.push(...page.rows.map(([stockNumber]) => stockNumber));
            cursor = page.nextCursor ?? undefined;
          } while (cursor && walked.length <= whole.length);
          expect(walked).toEqual(whole);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("limit is bounded: 0 and 501 are 422s that name the parameter", async () => {
    const { key } = await orgWithUnits();
    for (const limit of [0, 501, "ten"]) {
      const { status, body } = await inventory(key, { limit });
      expect(status).toBe(422);
      expect(body.error).toBe("validation_error");
      expect(body.details?.[0].path).toBe("limit");
    }
    expect((await inventory(key, { limit: 500 })).status).toBe(200);
  });

  it("a damaged or invented cursor is a 422 saying to pass next_cursor unchanged", async () => {
    const { key } = await orgWithUnits();
    const { body: first } = await inventory(key, { limit: 2 });
    const cursor = first.next_cursor as string;
    const forged = Buffer.from(JSON.stringify({ feed: "inventory", after: ["x"] })).toString("base64url");
    for (const bad of [`${cursor.slice(0, -4)}!!!!`, "not-a-cursor", forged]) {
      const { status, body } = await inventory(key, { limit: 2, cursor: bad });
      expect(status).toBe(422);
      expect(body.details).toEqual([{ path: "cursor", code: "invalid_cursor", message: expect.stringContaining("next_cursor") }]);
    }
  });

  it("a cursor is bound to its feed and filters: another store_id, updated_since or feed is cursor_mismatch", async () => {
    const { key, store } = await orgWithUnits();
    const cursor = (await inventory(key, { limit: 2 })).body.next_cursor as string;
    for (const params of [{ store_id: store.id }, { updated_since: "2020-01-01T00:00:00Z" }]) {
      const { status, body } = await inventory(key, { limit: 2, cursor, ...params });
      expect(status).toBe(422);
      expect(body.details?.[0]).toMatchObject({ path: "cursor", code: "cursor_mismatch" });
    }
    const { status, body } = await salesSummary(key, { cursor });
    expect(status).toBe(422);
    expect(body.details?.[0].code).toBe("cursor_mismatch");
    // The same instant written another way is the same filter.
    const since = await inventory(key, { limit: 2, updated_since: "2020-01-01T00:00:00Z" });
    const next = await inventory(key, { limit: 2, updated_since: "2020-01-01T02:00:00+02:00", cursor: since.body.next_cursor as string });
    expect(next.status).toBe(200);
  });
});

describe("store_id on the feeds", () => {
  it("lists only that store's units, and pages within it", async () => {
    const { org, store, key } = await orgWithUnits();
    const south = await createStore(org.id, { name: "South Lot" });
    await createUnit(org.id, south.id, { stockNumber: "S-1", stockedOn: daysAgo(50) });
    await createUnit(org.id, south.id, { stockNumber: "S-2", stockedOn: daysAgo(5) });
    const { body } = await inventory(key, { store_id: south.id });
    expect(body).toMatchObject({ count: 2, has_more: false, next_cursor: null });
    expect(body.inventory.map((u) => [u.stock_number, u.store, u.store_id])).toEqual([
      ["S-1", "South Lot", south.id],
      ["S-2", "South Lot", south.id],
    ]);
    const north = await walkInventory(key, { store_id: store.id, limit: 2 });
    expect(north.flatMap((p) => p.inventory.map((u) => u.stock_number))).toEqual(["A-40", "B-30", "C-30", "D-20", "E-10"]);
  });

  it("another organization's store, or none at all, is the 404 the rest of the API gives", async () => {
    const { key } = await orgWithUnits();
    const other = await orgWithUnits();
    for (const storeId of [other.store.id, "sto_nowhere"]) {
      for (const read of [inventory, salesSummary]) {
        // The store is judged before the cursor: with a damaged cursor too, the answer is the 404.
        for (const cursor of [undefined, "damaged"]) {
          const { status, body } = await read(key, { store_id: storeId, cursor });
          expect(status).toBe(404);
          expect(body).toMatchObject({ error: "not_found", message: "This organization has no store with that id." });
        }
      }
    }
  });
});

describe("tenant isolation through filters and cursors", () => {
  it("org B cannot read org A's units with A's store, A's cursor, or a cursor forged to carry B's name and A's position", async () => {
    const a = await orgWithUnits();
    const b = await createOrg();
    const bStore = await createStore(b.id, { name: "B Lot" });
    await createUnit(b.id, bStore.id, { stockNumber: "B-ONLY", stockedOn: daysAgo(60) });
    const bKey = (await createApiKey(b.id)).key;

    const aCursor = (await inventory(a.key, { limit: 1 })).body.next_cursor as string;
    const reused = await inventory(bKey, { cursor: aCursor });
    expect(reused.status).toBe(422);
    expect(reused.body.details?.[0].code).toBe("cursor_mismatch");
    expect(JSON.stringify(reused.body)).not.toContain("A-40");

    // A cursor is not signed; what keeps it harmless is that every query is scoped by the key's org.
    const forged = { ...JSON.parse(Buffer.from(aCursor, "base64url").toString()), org: b.id };
    const forgedRead = await inventory(bKey, { cursor: Buffer.from(JSON.stringify(forged)).toString("base64url") });
    expect(forgedRead.status).toBe(200);
    expect(forgedRead.body.inventory.map((u) => u.stock_number)).toEqual([]);
    const fromStart = await inventory(bKey, { updated_since: "2000-01-01T00:00:00Z" });
    expect(fromStart.body.inventory.map((u) => u.stock_number)).toEqual(["B-ONLY"]);
    expect((await inventory(bKey, { store_id: a.store.id })).status).toBe(404);
    const sales = await salesSummary(bKey, { updated_since: "2000-01-01T00:00:00Z" });
    expect(sales.body.salesSummary).toEqual([]);
  });
});

/** Sets every unit's updated_at of the org to a past instant (the trigger leaves an updated_at-only write alone). */
const ageUnits = (orgId: string, at: string) => rowsInObject(orgId, "UPDATE inventory_units SET updated_at = ? WHERE org_id = ?", at, orgId);

describe("updated_since on inventory", () => {
  it("lists what a DMS snapshot changed, ordered by change, and names the units it took out of stock in `removed`", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { name: "Sync Lot" });
    const broker = { key: await createIngestKey(org.id) };
    const units = [unit(1), unit(2), unit(3)];
    expect((await putInventory(store.id, broker, { units })).status).toBe(200);
    await ageUnits(org.id, "2026-01-01T00:00:00.000Z");
    const { key } = await createApiKey(org.id);
    const since = "2026-06-01T00:00:00Z";
    expect((await inventory(key, { updated_since: since })).body).toMatchObject({ count: 0, inventory: [], removed: [], has_more: false });

    // The same snapshot again changes nothing.
    expect((await putInventory(store.id, broker, { units })).status).toBe(200);
    expect((await inventory(key, { updated_since: since })).body.count).toBe(0);

    // A price cut on unit 2, unit 3 gone, unit 4 new.
    const next = [unit(1), unit(2, { asking_price: 19_500 }), unit(4)];
    expect((await putInventory(store.id, broker, { units: next })).status).toBe(200);
    const { body } = await inventory(key, { updated_since: since });
    expect(body.inventory.map((u) => u.stock_number).sort()).toEqual(["S00002", "S00004"]);
    expect(body.removed).toEqual([{ stock_number: "S00003", store: "Sync Lot", store_id: store.id, updated_at: expect.any(String) }]);
    const stamps = [...body.inventory.map((u) => u.updated_at as string), ...(body.removed ?? []).map((r) => r.updated_at)];
    for (const stamp of stamps) expect(stamp > "2026-06-01").toBe(true);

    // The highest updated_at seen is the next updated_since: the boundary is inclusive, nothing older returns.
    const watermark = stamps.sort().at(-1) as string;
    const again = await inventory(key, { updated_since: watermark });
    expect([...again.body.inventory, ...(again.body.removed ?? [])].every((u) => (u.updated_at as string) >= watermark)).toBe(true);
    expect(again.body.count + (again.body.removed?.length ?? 0)).toBeGreaterThanOrEqual(1);
  });

  it("pages a change list by (updated_at, stock number); a unit changed during the walk comes again at the end with its new values", async () => {
    const { org, key } = await orgWithUnits();
    await ageUnits(org.id, "2026-02-01T00:00:00.000Z");
    await rowsInObject(
      org.id,
      "UPDATE inventory_units SET updated_at = '2026-01-15T00:00:00.000Z' WHERE org_id = ? AND stock_number = 'E-10'",
      org.id,
    );
    const seen: string[] = [];
    const pages = await walkInventory(key, { updated_since: "2026-01-01T00:00:00Z", limit: 2 }, async (page) => {
      if (page === 1) {
        await rowsInObject(org.id, "UPDATE inventory_units SET asking_price = 1 WHERE org_id = ? AND stock_number = 'A-40'", org.id);
      }
    });
    for (const page of pages) seen.push(...page.inventory.map((u) => u.stock_number));
    expect(seen).toEqual(["E-10", "A-40", "B-30", "C-30", "D-20", "A-40"]);
  });

  it("updated_since must be an ISO-8601 date-time", async () => {
    const { key } = await orgWithUnits();
    for (const bad of ["yesterday", "2026-13-01T00:00:00Z", "1732600000"]) {
      const { status, body } = await inventory(key, { updated_since: bad });
      expect(status).toBe(422);
      expect(body.details?.[0].path).toBe("updated_since");
    }
  });
});

describe("the inventory answers, byte for byte", () => {
  /** The exact text of an answer: field order and numbers as stored, which a reader mapping rows by hand must keep. */
  async function text(key: string, params: Record<string, string | number | undefined> = {}) {
    const res = await call(`/api/v1/inventory?${query(params)}`, { key });
    expect(res.status).toBe(200);
    return res.text();
  }

  it("plain, by store and by change: every field in the contract's order, prices fractional or whole as stored", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { name: "Byte Lot" });
    await createUnit(org.id, store.id, { stockNumber: "X-1", stockedOn: daysAgo(12), askingPrice: 24_995.5 });
    await createUnit(org.id, store.id, { stockNumber: "X-2", stockedOn: daysAgo(3), askingPrice: 19_999 });
    await createUnit(org.id, store.id, { stockNumber: "X-3", stockedOn: daysAgo(40), status: "sold" });
    const { key } = await createApiKey(org.id);
    const stamps = new Map(
      (
        await rowsInObject<{ stock_number: string; updated_at: string }>(
          org.id,
          "SELECT stock_number, updated_at FROM inventory_units WHERE org_id = ?",
          org.id,
        )
      ).map((r) => [r.stock_number, r.updated_at]),
    );
    const contract = (stockNumber: string, days: number, price: number) => ({
      stock_number: stockNumber,
      vin: `VIN${stockNumber}`,
      year: 2022,
      make: "Toyota",
      model: "Camry",
      trim: "SE",
      condition: "used",
      days_in_stock: days,
      asking_price: price,
      store: "Byte Lot",
    });
    // Last in every answer: the store's inventory feed, here with no delivery recorded.
    const ages = {
      data_as_of: [{ store_id: store.id, feed: "inventory", as_of: null, age_hours: null, stale_after_hours: 24, stale: false, warning: null }],
      data_warnings: [],
    };
    const paged = (stockNumber: string, days: number, price: number) => ({
      ...contract(stockNumber, days, price),
      store_id: store.id,
      updated_at: stamps.get(stockNumber),
    });

    expect(await text(key)).toBe(JSON.stringify({ count: 2, inventory: [contract("X-1", 12, 24_995.5), contract("X-2", 3, 19_999)], ...ages }));

    const first = await text(key, { store_id: store.id, limit: 1 });
    const cursor = JSON.parse(first).next_cursor as string;
    expect(first).toBe(JSON.stringify({ count: 1, inventory: [paged("X-1", 12, 24_995.5)], has_more: true, next_cursor: cursor, ...ages }));
    expect(await text(key, { store_id: store.id, limit: 1, cursor })).toBe(
      JSON.stringify({ count: 1, inventory: [paged("X-2", 3, 19_999)], has_more: false, next_cursor: null, ...ages }),
    );

    // Fixed change times, so the change list's order is known.
    await rowsInObject(
      org.id,
      "UPDATE inventory_units SET updated_at = '2026-03-0' || substr(stock_number, 3) || 'T00:00:00.000Z' WHERE org_id = ?",
      org.id,
    );
    for (const [stockNumber, at] of [...stamps.keys()].map((s) => [s, `2026-03-0${s.slice(2)}T00:00:00.000Z`] as const)) stamps.set(stockNumber, at);
    expect(await text(key, { updated_since: "2026-01-01T00:00:00Z" })).toBe(
      JSON.stringify({
        count: 2,
        inventory: [paged("X-1", 12, 24_995.5), paged("X-2", 3, 19_999)],
        removed: [{ stock_number: "X-3", store: "Byte Lot", store_id: store.id, updated_at: stamps.get("X-3") }],
        has_more: false,
        next_cursor: null,
        ...ages,
      }),
    );
  });
});

describe("sales-summary paging, store_id and updated_since", () => {
  async function orgWithSales() {
    const org = await createOrg();
    const north = await createStore(org.id, { name: "A North" });
    const south = await createStore(org.id, { name: "B South" });
    await createDeal(org.id, north.id, { soldOn: "2026-09-03", frontGross: 1500, backGross: 1200 });
    await createDeal(org.id, south.id, { soldOn: "2026-09-10", frontGross: 2000, backGross: 0 });
    await createDeal(org.id, north.id, { soldOn: "2026-10-01", frontGross: 1000, backGross: 500 });
    const august = await createDeal(org.id, south.id, { soldOn: "2026-08-11", frontGross: 700, backGross: 300 });
    const { key } = await createApiKey(org.id);
    return { org, north, south, august, key };
  }

  it("pages the rows in the unpaged order, each once", async () => {
    const { key } = await orgWithSales();
    const whole = (await salesSummary(key)).body;
    expect(Object.keys(whole).sort()).toEqual(["count", "data_as_of", "data_warnings", "salesSummary"]);
    const rows: SalesRow[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await salesSummary(key, { limit: 1, cursor });
      expect(status).toBe(200);
      rows.push(...body.salesSummary);
      cursor = body.next_cursor ?? undefined;
    } while (cursor);
    expect(rows.map(({ store, saleMonth, units, totalGross }) => ({ store, saleMonth, units, totalGross }))).toEqual(whole.salesSummary);
    expect(rows.map((r) => `${r.saleMonth} ${r.store}`)).toEqual(["2026-10 A North", "2026-09 A North", "2026-09 B South", "2026-08 B South"]);
  });

  it("filters by store", async () => {
    const { key, south } = await orgWithSales();
    const { body } = await salesSummary(key, { store_id: south.id });
    expect(body.salesSummary.map((r) => [r.saleMonth, r.store_id, r.units, r.totalGross])).toEqual([
      ["2026-09", south.id, 1, 2000],
      ["2026-08", south.id, 1, 1000],
    ]);
  });

  it("with updated_since, re-sends only the months holding a changed deal, recomputed whole; a month whose deals were all unwound comes back with 0 units", async () => {
    const { org, north, august, key } = await orgWithSales();
    await rowsInObject(org.id, "UPDATE deals SET updated_at = '2026-01-01T00:00:00.000Z' WHERE org_id = ?", org.id);
    const since = "2026-06-01T00:00:00Z";
    expect((await salesSummary(key, { updated_since: since })).body.salesSummary).toEqual([]);
    await rowsInObject(org.id, "UPDATE deals SET status = 'unwound' WHERE id = ?", august.id);
    const { body } = await salesSummary(key, { updated_since: since });
    expect(body.salesSummary).toEqual([
      { store: "B South", saleMonth: "2026-08", units: 0, totalGross: 0, store_id: expect.any(String), updated_at: expect.any(String) },
    ]);
    // A change late in a month re-sends the month whole, deals earlier in it included.
    await rowsInObject(
      org.id,
      `INSERT INTO deals (id, org_id, store_id, deal_number, sold_on, status, vin, year, make, model, condition, vehicle_type, selling_price, front_gross, back_gross)
       SELECT 'deal_late', org_id, ?, 'LATE', '2026-09-28', 'funded', vin, year, make, model, condition, vehicle_type, selling_price, 100, 0 FROM deals WHERE id = ?`,
      north.id,
      august.id,
    );
    const september = (await salesSummary(key, { updated_since: "2026-06-01T00:00:00Z", store_id: north.id })).body.salesSummary;
    expect(september.map((r) => [r.saleMonth, r.units, r.totalGross])).toEqual([["2026-09", 2, 2800]]);
    // The unpaged answer leaves the month out, as before.
    expect((await salesSummary(key)).body.salesSummary.map((r) => r.saleMonth)).toEqual(["2026-10", "2026-09", "2026-09"]);
  });
});

/**
 * The plan SQLite picks for a feed query in an organization's object: a storage whose `sql.exec`
 * answers EXPLAIN QUERY PLAN of each statement (and no rows), under the query functions the object runs.
 */
async function plansOf(run: (db: SqliteReader) => Promise<unknown>) {
  const org = await createOrg();
  return runInDurableObject(orgStore(env, org.id), async (_, state) => {
    const plans: string[][] = [];
    const noRows = { toArray: () => [], raw: () => Object.assign([], { toArray: () => [] }), next: () => ({ done: true, value: undefined }) };
    const explaining = {
      sql: {
        exec: (sql: string, ...values: SqlStorageValue[]) => {
          plans.push(
            state.storage.sql
              .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...values)
              .toArray()
              .map((r) => r.detail),
          );
          return noRows;
        },
      },
    } as unknown as DurableObjectStorage;
    await run(drizzle(explaining));
    return plans.flat();
  });
}

describe("indexes: a page is a range read of an index, not a scan and sort of the organization", () => {
  const page = { limit: 101 };

  it.each([
    ["first page", {}, undefined, "inventory_org_status_stocked_stock_idx"],
    ["next page", {}, { stockedOn: "2026-10-01", stockNumber: "S1" }, "inventory_org_status_stocked_stock_idx"],
    ["one store", { storeId: "sto_x" }, { stockedOn: "2026-10-01", stockNumber: "S1" }, "inventory_org_store_status_stocked_idx"],
    [
      "changes",
      { updatedSince: "2026-11-01T00:00:00.000Z" },
      { updatedAt: "2026-11-02T00:00:00.000Z", stockNumber: "S1" },
      "inventory_org_updated_idx",
    ],
  ] as const)("inventory, %s", async (_name, filters, after, index) => {
    const plan = await plansOf((db) => feeds.listInventory(db, "org_x", { ...page, ...filters }, after));
    const units = plan.find((step) => step.includes("inventory_units"));
    expect(units).toContain(`USING INDEX ${index}`);
    expect(plan.join("\n")).not.toMatch(/TEMP B-TREE FOR ORDER BY|SCAN inventory_units/);
  });

  it.each([
    ["next page", {}, "sales_monthly_org_month_idx \\(org_id=\\? AND sale_month<\\?\\)"],
    ["one store", { storeId: "sto_x" }, "sqlite_autoindex_sales_monthly_1 \\(org_id=\\? AND store_id=\\? AND sale_month<\\?\\)"],
  ] as const)("sales summary, %s: reads only the months from the cursor on, from the monthly rollup", async (_name, filters, index) => {
    const plan = await plansOf((db) =>
      feeds.salesSummary(db, "org_x", { ...page, ...filters }, { saleMonth: "2026-09", store: "A", storeId: "sto_a" }),
    );
    expect(plan.find((step) => step.includes("sales_monthly"))).toMatch(new RegExp(`USING (COVERING )?INDEX ${index}`));
    // The deals themselves are not read: a page reads the rows it returns.
    expect(plan.join("\n")).not.toMatch(/\bdeals\b|SCAN sales_monthly|TEMP B-TREE FOR ORDER BY/);
  });

  it("sales summary with updated_since reads the changed (store, month) rows by index", async () => {
    const plan = await plansOf((db) => feeds.salesSummary(db, "org_x", { ...page, updatedSince: "2026-11-01T00:00:00.000Z" }));
    expect(plan.join("\n")).toContain("SEARCH sales_monthly USING INDEX sales_monthly_org_updated_idx (org_id=? AND updated_at>?)");
    expect(plan.join("\n")).not.toMatch(/\bdeals\b|SCAN sales_monthly/);
  });
});
