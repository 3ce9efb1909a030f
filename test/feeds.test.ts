import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { upsertDeals, upsertUnits } from "../src/db/queries/ingest";
import type { InventoryFeedSchema, SalesSummaryFeedSchema } from "../src/routes/feeds/feeds.routes";
import { call, createApiKey, createDeal, createLegacyToken, createOrg, createStore, createUnit } from "./helpers/factories";
import { writeInObject } from "./helpers/object-sql";

type InventoryBody = z.infer<typeof InventoryFeedSchema>;
type SalesBody = z.infer<typeof SalesSummaryFeedSchema>;

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

describe("GET /api/v1/inventory", () => {
  it("returns exactly the spec's fields, oldest in stock first, with days derived from the stocked date", async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { name: "North Lot" });
    await createUnit(org.id, store.id, { stockNumber: "N-10", stockedOn: daysAgo(10) });
    await createUnit(org.id, store.id, { stockNumber: "N-95", stockedOn: daysAgo(95) });
    await createUnit(org.id, store.id, { stockNumber: "N-50", stockedOn: daysAgo(50) });
    await createUnit(org.id, store.id, { stockNumber: "N-SOLD", stockedOn: daysAgo(70), status: "sold" });
    const { key } = await createApiKey(org.id);

    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = await res.json<InventoryBody>();
    expect(body.count).toBe(3);
    expect(body.inventory.map((u) => [u.stock_number, u.days_in_stock])).toEqual([
      ["N-95", 95],
      ["N-50", 50],
      ["N-10", 10],
    ]);
    expect(Object.keys(body.inventory[0]).sort()).toEqual([
      "asking_price",
      "condition",
      "days_in_stock",
      "make",
      "model",
      "stock_number",
      "store",
      "trim",
      "vin",
      "year",
    ]);
    expect(body.inventory[0]).toMatchObject({ store: "North Lot", year: 2022, make: "Toyota", condition: "used", asking_price: 24995 });
  });

  it("caps the list at 500 units, keeping the oldest", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const units = Array.from({ length: 520 }, (_, i) => ({
      id: `u-${org.id}-${i}`,
      stock_number: `BULK-${i}`,
      vin: `VINBULK${i}`,
      year: 2021,
      make: "Ford",
      model: "F-150",
      trim: "XLT",
      condition: "used" as const,
      vehicle_type: "truck" as const,
      mileage: 40000,
      stocked_on: daysAgo(i % 200),
      cost: 30000,
      asking_price: 36000,
    }));
    await writeInObject(org.id, (db) => upsertUnits(db, org.id, store.id, units));
    const { key } = await createApiKey(org.id);
    const body = await (await call("/api/v1/inventory", { key })).json<InventoryBody>();
    expect(body.count).toBe(500);
    expect(body.inventory).toHaveLength(500);
    expect(body.inventory[0].days_in_stock).toBe(199);
    const days = body.inventory.map((u) => u.days_in_stock);
    expect(days).toEqual([...days].sort((a, b) => b - a));
  });
});

describe("GET /api/v1/sales-summary", () => {
  it("aggregates units and front+back gross per store and month, most recent month first, without unwound deals", async () => {
    const org = await createOrg();
    const north = await createStore(org.id, { name: "A North" });
    const south = await createStore(org.id, { name: "B South" });
    await createDeal(org.id, north.id, { soldOn: "2026-09-03", frontGross: 1500, backGross: 1200 });
    await createDeal(org.id, north.id, { soldOn: "2026-09-20", frontGross: 900.5, backGross: 1000 });
    await createDeal(org.id, north.id, { soldOn: "2026-09-21", frontGross: 5000, backGross: 5000, status: "unwound" });
    await createDeal(org.id, south.id, { soldOn: "2026-09-10", frontGross: 2000, backGross: 0 });
    await createDeal(org.id, north.id, { soldOn: "2026-10-01", frontGross: 1000, backGross: 500, status: "pending" });
    const { key } = await createApiKey(org.id);

    const res = await call("/api/v1/sales-summary", { key });
    expect(res.status).toBe(200);
    const body = await res.json<SalesBody>();
    expect(body).toEqual({
      count: 3,
      salesSummary: [
        { store: "A North", saleMonth: "2026-10", units: 1, totalGross: 1500 },
        { store: "A North", saleMonth: "2026-09", units: 2, totalGross: 4600.5 },
        { store: "B South", saleMonth: "2026-09", units: 1, totalGross: 2000 },
      ],
      // Each store's deals feed: no delivery recorded (the deals were written directly), so no date and no warning.
      data_as_of: [
        expect.objectContaining({ feed: "deals", as_of: null, stale: false }),
        expect.objectContaining({ feed: "deals", as_of: null, stale: false }),
      ],
      data_warnings: [],
    });
  });

  it("caps the summary at 200 rows, dropping the oldest months", async () => {
    const org = await createOrg();
    const stores = await Promise.all(Array.from({ length: 9 }, (_, i) => createStore(org.id, { name: `Store ${i}` })));
    const rows = stores.flatMap((store) =>
      Array.from({ length: 24 }, (_, m) => ({
        id: `d-${store.id}-${m}`,
        deal_number: `D-${store.id}-${m}`,
        store_id: store.id,
        sold_on: new Date(Date.UTC(2025, m, 15)).toISOString().slice(0, 10),
        submitted_on: null,
        funded_on: null,
        status: "funded" as const,
        vin: "VIN",
        year: 2020,
        make: "Kia",
        model: "Soul",
        condition: "used" as const,
        vehicle_type: "car" as const,
        selling_price: 18000,
        lender: null,
        beacon: null,
        amount_financed: null,
        front_gross: 1000,
        back_gross: 800,
      })),
    );
    await writeInObject(org.id, (db) => upsertDeals(db, org.id, rows));
    const { key } = await createApiKey(org.id);
    const body = await (await call("/api/v1/sales-summary", { key })).json<SalesBody>();
    expect(body.count).toBe(200);
    expect(body.salesSummary[0].saleMonth).toBe("2026-12");
    expect(body.salesSummary.at(-1)?.saleMonth).toBe("2025-02");
    // The cut is stated, with the cursor that reads the 16 rows past it.
    expect(body.has_more).toBe(true);
    const rest = await (await call(`/api/v1/sales-summary?cursor=${body.next_cursor}`, { key })).json<SalesBody>();
    expect(rest).toMatchObject({ count: 16, has_more: false, next_cursor: null });
  });
});

// Units and deals in each organization's own object (docs/scaling.md).
describe("tenant isolation on the feeds", async () => {
  const first = await createOrg();
  const second = await createOrg();
  const firstStore = await createStore(first.id, { name: "First Store" });
  const secondStore = await createStore(second.id, { name: "Second Store" });
  await createUnit(first.id, firstStore.id, { stockNumber: "FIRST-1", stockedOn: daysAgo(5) });
  await createUnit(second.id, secondStore.id, { stockNumber: "SECOND-1", stockedOn: daysAgo(5) });
  await createDeal(first.id, firstStore.id, { soldOn: "2026-08-01", frontGross: 1, backGross: 1 });
  await createDeal(second.id, secondStore.id, { soldOn: "2026-08-01", frontGross: 2, backGross: 2 });

  const credentials = async (orgId: string) => ({
    key: { "X-Service-API-Key": (await createApiKey(orgId)).key },
    legacy: { "X-Api-Token": (await createLegacyToken(orgId)).token },
  });
  const firstCredentials = await credentials(first.id);
  const secondCredentials = await credentials(second.id);

  it.each(["key", "legacy"] as const)("inventory with a %s credential shows only its own organization's units", async (kind) => {
    const a = await (await call("/api/v1/inventory", { headers: firstCredentials[kind] })).json<InventoryBody>();
    const b = await (await call("/api/v1/inventory", { headers: secondCredentials[kind] })).json<InventoryBody>();
    expect(a.inventory.map((u) => u.stock_number)).toEqual(["FIRST-1"]);
    expect(b.inventory.map((u) => u.stock_number)).toEqual(["SECOND-1"]);
  });

  it.each(["key", "legacy"] as const)("sales summary with a %s credential shows only its own organization's stores", async (kind) => {
    const a = await (await call("/api/v1/sales-summary", { headers: firstCredentials[kind] })).json<SalesBody>();
    const b = await (await call("/api/v1/sales-summary", { headers: secondCredentials[kind] })).json<SalesBody>();
    expect(a.salesSummary).toEqual([{ store: "First Store", saleMonth: "2026-08", units: 1, totalGross: 2 }]);
    expect(b.salesSummary).toEqual([{ store: "Second Store", saleMonth: "2026-08", units: 1, totalGross: 4 }]);
  });
});

describe("browser access to the feeds", () => {
  it("answers a preflight from any origin, allowing the key header", async () => {
    const res = await call("/api/v1/inventory", {
      method: "OPTIONS",
      headers: {
        Origin: "https://dealer-tool.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-service-api-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Headers")).toContain("X-Service-API-Key");
  });

  it("lets browser code read the quota headers", async () => {
    const org = await createOrg();
    await createStore(org.id);
    const { key } = await createApiKey(org.id);
    const res = await call("/api/v1/inventory", { key, headers: { Origin: "https://dealer-tool.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const exposed = (res.headers.get("Access-Control-Expose-Headers") ?? "").split(", ");
    expect(exposed).toEqual(expect.arrayContaining(["X-Service-RateLimit-Remaining", "X-Service-RateLimit-Limit", "X-Service-RateLimit-Reset"]));
    expect(res.headers.get("X-Service-RateLimit-Remaining")).not.toBeNull();
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });
});
