import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { InventoryFeedSchema } from "../../src/routes/feeds/feeds.routes";
import type { ErrorBody } from "../helpers/bodies";
import { call, createApiKey, createOrg, createStore, createUnit } from "../helpers/factories";
import { createIngestKey, putInventory, toCsv, unit } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";
import { createBrokerToken } from "../helpers/staff";

/** An organization with a store and an ingest key, and what `seed` writes to it. */
async function setup(seed?: (storeId: string, orgId: string) => Promise<unknown>) {
  const org = await createOrg();
  const store = await createStore(org.id);
  const key = await createIngestKey(org.id);
  await seed?.(store.id, org.id);
  return { org, store, key };
}

const stockOf = (orgId: string, storeId: string) =>
  rowsInObject<{ stock_number: string; status: string; asking_price: number }>(
    orgId,
    "SELECT stock_number, status, asking_price FROM inventory_units WHERE org_id = ? AND store_id = ? ORDER BY stock_number",
    orgId,
    storeId,
  );

describe("PUT /api/v1/ingest/inventory, a snapshot of one store", () => {
  it("upserts the snapshot, takes absent units out of inventory, and a replay changes nothing", async () => {
    const { org, store, key } = await setup((storeId, orgId) => createUnit(orgId, storeId, { stockNumber: "GONE1", stockedOn: "2026-09-01" }));
    // The store's only unit in stock leaves: more than half of it, so the count is confirmed.
    const first = await putInventory(store.id, { key }, { units: [unit(1), unit(2), unit(3)] }, false, { confirm_removals: "1" });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ store_id: store.id, received: 3, created: 3, updated: 0, unchanged: 0, removed: 1 });

    const second = await putInventory(store.id, { key }, { units: [unit(1), unit(2, { asking_price: 19999 })] });
    expect(await second.json()).toMatchObject({ created: 0, updated: 1, unchanged: 1, removed: 1 });
    const before = await stockOf(org.id, store.id);
    expect(before).toEqual([
      { stock_number: "GONE1", status: "sold", asking_price: 24995 },
      { stock_number: "S00001", status: "in_stock", asking_price: 21001 },
      { stock_number: "S00002", status: "in_stock", asking_price: 19999 },
      { stock_number: "S00003", status: "sold", asking_price: 21003 },
    ]);

    const replay = await putInventory(store.id, { key }, { units: [unit(1), unit(2, { asking_price: 19999 })] });
    expect(await replay.json()).toMatchObject({ created: 0, updated: 0, unchanged: 2, removed: 0 });
    expect(await stockOf(org.id, store.id)).toEqual(before);

    // A unit that comes back in a later snapshot is in stock again.
    expect(await (await putInventory(store.id, { key }, { units: [unit(1), unit(2, { asking_price: 19999 }), unit(3)] })).json()).toMatchObject({
      updated: 1,
    });
    const feed = await (await call("/api/v1/inventory", { key: (await createApiKey(org.id)).key })).json<z.infer<typeof InventoryFeedSchema>>();
    expect(feed.count).toBe(3);
    // Each delivery is recorded, wherever the units went: the feed's age is the last one's.
    expect(feed.data_as_of).toEqual([expect.objectContaining({ store_id: store.id, feed: "inventory", as_of: expect.any(String), stale: false })]);
  });

  it("takes CSV with the same fields and the same result", async () => {
    const { org, store, key } = await setup();
    const res = await putInventory(store.id, { key }, toCsv([unit(10), unit(11, { trim: 'LX, "base"' })]), true);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: 2, created: 2 });
    const rows = await rowsInObject(org.id, "SELECT trim, mileage, cost FROM inventory_units WHERE org_id = ? AND stock_number = 'S00011'", org.id);
    expect(rows).toEqual([{ trim: 'LX, "base"', mileage: 20011, cost: 18011 }]);
    // The same rows as JSON: nothing to change.
    expect(await (await putInventory(store.id, { key }, { units: [unit(10), unit(11, { trim: 'LX, "base"' })] })).json()).toMatchObject({
      unchanged: 2,
    });
  });

  it("answers row errors with the row and field, and writes nothing", async () => {
    const { org, store, key } = await setup();
    const units = [unit(1), unit(2, { vin: "SHORT" }), unit(3, { stocked_on: "yesterday" }), unit(1)];
    const res = await putInventory(store.id, { key }, { units });
    expect(res.status).toBe(422);
    const body = await res.json<ErrorBody>();
    expect(body.details?.map((d) => d.path)).toEqual(expect.arrayContaining(["units.1.vin", "units.2.stocked_on"]));
    expect(await stockOf(org.id, store.id)).toEqual([]);

    const csv = toCsv([unit(1), unit(2, { mileage: "lots" })]);
    const csvRes = await putInventory(store.id, { key }, csv, true);
    expect(csvRes.status).toBe(422);
    expect((await csvRes.json<ErrorBody>()).details).toEqual([expect.objectContaining({ path: "units.1.mileage" })]);

    const dup = await putInventory(store.id, { key }, { units: [unit(1), unit(1)] });
    expect(dup.status).toBe(422);
    expect((await dup.json<ErrorBody>()).details?.[0].path).toBe("units.1.stock_number");
    expect((await putInventory(store.id, { key }, 'stock_number,vin\n"unterminated,x', true)).status).toBe(400);
    expect(await stockOf(org.id, store.id)).toEqual([]);
  });

  it("lands 5,000 rows whole, or none of them when one statement fails", async () => {
    const { org, store, key } = await setup();
    const units = Array.from({ length: 5000 }, (_, i) => unit(i));
    const res = await putInventory(store.id, { key }, { units });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: 5000, created: 5000 });
    expect((await stockOf(org.id, store.id)).length).toBe(5000);

    expect((await putInventory(store.id, { key }, { units: [...units, unit(5000)] })).status).toBe(422);
  });

  it("accepts a broker token of the organization; refuses keys without the ingest permission and other organizations' stores", async () => {
    const { org, store } = await setup();
    const { token } = await createBrokerToken(org.id);
    expect((await putInventory(store.id, { broker: token }, { units: [unit(1)] })).status).toBe(200);

    const readOnly = await createApiKey(org.id);
    expect((await putInventory(store.id, { key: readOnly.key }, { units: [unit(1)] })).status).toBe(403);
    const wrongScope = await createIngestKey(org.id, ["inventory"]);
    expect((await putInventory(store.id, { key: wrongScope }, { units: [unit(1)] })).status).toBe(403);

    // Another organization's store reads like no store at all, as on the deal desk.
    const other = await setup();
    const foreign = await putInventory(store.id, { key: other.key }, { units: [unit(7)] });
    const missing = await putInventory("sto_does_not_exist", { key: other.key }, { units: [unit(7)] });
    for (const res of [foreign, missing]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: "not_found", message: "This organization has no store with that id." });
    }
    const { token: otherBroker } = await createBrokerToken(other.org.id);
    expect((await putInventory(store.id, { broker: otherBroker }, { units: [unit(7)] })).status).toBe(404);
    expect(await stockOf(org.id, store.id)).toEqual([{ stock_number: "S00001", status: "in_stock", asking_price: 21001 }]);
    expect(await stockOf(other.org.id, store.id)).toEqual([]);
  });
});

describe("PUT /api/v1/ingest/inventory", () => {
  it("reads RFC 4180 CSV (BOM, CRLF, quoted commas, quotes and line breaks, blank lines) and refuses malformed CSV with a 400 naming where", async () => {
    const { org, store, key } = await setup();
    const header = "stock_number,vin,year,make,model,trim,condition,vehicle_type,mileage,stocked_on,cost,asking_price";
    const csv = `\ufeff${header}\r\n S00020 ,1HGCM82633A000020,2022,Honda,Accord,"EX, ""sport""\r\npack",used,car,20020,2026-10-01,18020,21020\r\n\r\n`;
    const res = await putInventory(store.id, { key }, csv, true);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: 1, created: 1 });
    const rows = await rowsInObject(org.id, "SELECT trim, mileage FROM inventory_units WHERE org_id = ? AND stock_number = 'S00020'", org.id);
    expect(rows).toEqual([{ trim: 'EX, "sport"\r\npack', mileage: 20020 }]);

    const ragged = await putInventory(store.id, { key }, `${header}\nS00021,1HGCM82633A000021,2022\n`, true);
    expect(ragged.status).toBe(400);
    expect((await ragged.json<ErrorBody>()).message).toMatch(/data row 0.*Too few fields/);
    const badQuote = await putInventory(store.id, { key }, `${header}\nS00022,"1HGCM82633A"000022,2022\n`, true);
    expect(badQuote.status).toBe(400);
    expect((await badQuote.json<ErrorBody>()).message).toMatch(/near line 2/);
    const repeated = await putInventory(
      store.id,
      { key },
      `${header},cost\nS00023,1HGCM82633A000023,2022,Honda,Accord,EX,used,car,1,2026-10-01,18023,21023,1\n`,
      true,
    );
    expect(repeated.status).toBe(400);
    expect((await repeated.json<ErrorBody>()).message).toMatch(/names a column more than once: cost/);
    expect((await stockOf(org.id, store.id)).map((u) => u.stock_number)).toEqual(["S00020"]);
  });

  it("refuses bodies that are neither JSON nor CSV, and more than 5,000 rows", async () => {
    const { store, key } = await setup();
    const res = await call(`/api/v1/ingest/inventory?store_id=${store.id}`, {
      method: "PUT",
      key,
      headers: { "Content-Type": "text/plain" },
      body: "x",
    });
    expect(res.status).toBe(400);
    const tooMany = await putInventory(store.id, { key }, { units: Array.from({ length: 5001 }, (_, i) => unit(i)) });
    expect(tooMany.status).toBe(422);
  });
});
