import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { InventoryFeedSchema } from "../../src/routes/feeds/feeds.routes";
import type { ErrorBody } from "../helpers/bodies";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";

type Feed = z.infer<typeof InventoryFeedSchema>;

/** An organization with no units yet, two stores, an ingest key and a read key. */
async function emptyOrganization() {
  const org = await createOrg();
  const north = await createStore(org.id, { name: "North Lot" });
  const south = await createStore(org.id, { name: "South Lot" });
  return { org, north, south, key: await createIngestKey(org.id), reader: (await createApiKey(org.id)).key };
}

// What a dealer's manager would try on an organization whose inventory lives in its own object.
describe("an organization in its own storage object, as a manager would use it", () => {
  it("with no units, its first snapshots per store fill it; both stores at once land whole", async () => {
    const { north, south, key, reader } = await emptyOrganization();
    const [a, b] = await Promise.all([
      putInventory(north.id, { key }, { units: [unit(1), unit(2)] }),
      putInventory(south.id, { key }, { units: [unit(3, { stock_number: "SOUTH-3" })] }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const feed = await (await call("/api/v1/inventory", { key: reader })).json<Feed>();
    expect(feed.inventory.map((u) => [u.stock_number, u.store]).sort()).toEqual([
      ["S00001", "North Lot"],
      ["S00002", "North Lot"],
      ["SOUTH-3", "South Lot"],
    ]);
  });

  it("a snapshot that would empty most of a store is refused with the counts, and writes nothing", async () => {
    const { org, north, key } = await emptyOrganization();
    expect((await putInventory(north.id, { key }, { units: [unit(1), unit(2), unit(3)] })).status).toBe(200);
    const refused = await putInventory(north.id, { key }, { units: [unit(1)] });
    expect(refused.status).toBe(422);
    const body = await refused.json<ErrorBody & { in_stock: number; would_remove: number }>();
    expect(body).toMatchObject({ in_stock: 3, would_remove: 2 });
    expect(body.details?.[0].code).toBe("removals_unconfirmed");
    const stock = await rowsInObject<{ n: number }>(org.id, "SELECT count(*) AS n FROM inventory_units WHERE status = 'in_stock'");
    expect(stock[0].n).toBe(3);
  });

  it("updated_since lists what a snapshot changed, the units it sold in `removed`", async () => {
    const { org, north, key, reader } = await emptyOrganization();
    expect((await putInventory(north.id, { key }, { units: [unit(1), unit(2), unit(3)] })).status).toBe(200);
    await rowsInObject(org.id, "UPDATE inventory_units SET updated_at = '2026-01-01T00:00:00.000Z'");
    expect((await putInventory(north.id, { key }, { units: [unit(1), unit(2, { asking_price: 19_500 })] })).status).toBe(200);
    const res = await call("/api/v1/inventory?updated_since=2026-06-01T00:00:00Z", { key: reader });
    const body = await res.json<Feed & { removed: { stock_number: string }[] }>();
    expect(body.inventory.map((u) => [u.stock_number, u.asking_price])).toEqual([["S00002", 19_500]]);
    expect(body.removed.map((r) => r.stock_number)).toEqual(["S00003"]);
  });
});
