import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { type OrgStorage, OrgStorageMismatchError } from "../src/durable-objects/org-storage";
import type { InventoryFeedSchema } from "../src/routes/feeds/feeds.routes";
import type { ErrorBody } from "./helpers/bodies";
import { call, createApiKey, createOrg, createStore, createUnit } from "./helpers/factories";
import { createTestApp } from "./helpers/test-app";

type InventoryPage = z.infer<typeof InventoryFeedSchema>;

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** The production app with the prototype turned on, as `npm run bench:scale` runs it. */
const prototype = createTestApp(undefined, { ...env, ORG_STORAGE_PROTOTYPE: "1" });

async function orgWithUnits(stockedDaysAgo: readonly number[]) {
  const org = await createOrg();
  const store = await createStore(org.id, { name: "North Lot" });
  const { key } = await createApiKey(org.id, { dailyLimit: 100_000 });
  for (const [i, days] of stockedDaysAgo.entries()) await createUnit(org.id, store.id, { stockNumber: `P-${i}`, stockedOn: daysAgo(days) });
  return { org, store, key };
}

const load = (key: string) => prototype.request("/__prototype/org-storage/load", { method: "POST", headers: { "X-Service-API-Key": key } });

async function walk(path: string, key: string, limit: number) {
  const pages: InventoryPage[] = [];
  let cursor: string | undefined;
  do {
    const res = await prototype.request(`${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { headers: { "X-Service-API-Key": key } });
    expect(res.status).toBe(200);
    const page = await res.json<InventoryPage>();
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 20);
  return pages;
}

describe("per-organization storage prototype (docs/scaling.md)", () => {
  it("answers the paged inventory feed from the organization's object exactly as D1 does", async () => {
    const { key } = await orgWithUnits([40, 30, 30, 20, 10, 5, 1]);
    const loaded = await load(key);
    expect(loaded.status).toBe(200);
    expect(await loaded.json()).toEqual({ units: 7 });

    const fromObject = await walk("/__prototype/org-storage/inventory", key, 3);
    const fromD1 = await walk("/api/v1/inventory", key, 3);
    expect(fromObject.map((p) => p.count)).toEqual([3, 3, 1]);
    expect(fromObject.flatMap((p) => p.inventory.map((u) => u.stock_number))).toEqual(["P-0", "P-1", "P-2", "P-3", "P-4", "P-5", "P-6"]);
    // Same rows, same order, same cursors: the query module is the same on both storages.
    expect(fromObject).toEqual(fromD1);
  });

  it("never answers one organization with another's units", async () => {
    const a = await orgWithUnits([12, 6]);
    const b = await orgWithUnits([3]);
    expect((await load(a.key)).status).toBe(200);

    // B's key routes to B's object, which holds nothing until B is loaded, and then only B's unit.
    const before = await walk("/__prototype/org-storage/inventory", b.key, 10);
    expect(before.flatMap((p) => p.inventory)).toEqual([]);
    expect((await load(b.key)).status).toBe(200);
    const after = await walk("/__prototype/org-storage/inventory", b.key, 10);
    expect(after.flatMap((p) => p.inventory.map((u) => u.store_id))).toEqual([b.store.id]);

    // A's object, asked for B (a routing mistake), refuses rather than answering with A's units.
    await runInDurableObject(env.ORG_STORAGE.get(env.ORG_STORAGE.idFromName(a.org.id)), async (objectOfA: OrgStorage) => {
      expect(() => objectOfA.inventory(b.org.id, { limit: 10 })).toThrow(OrgStorageMismatchError);
      expect(() => objectOfA.load(b.org.id, { stores: [], units: [] })).toThrow(OrgStorageMismatchError);
      expect(await objectOfA.inventory(a.org.id, { limit: 10 })).toHaveLength(2);
    });
  });

  it("is not served without ORG_STORAGE_PROTOTYPE=1, nor listed in the OpenAPI document", async () => {
    const { key } = await orgWithUnits([1]);
    const res = await call("/__prototype/org-storage/inventory", { key });
    expect(res.status).toBe(404);
    expect((await res.json<ErrorBody>()).error).toBe("not_found");
    const document = await (await call("/api/openapi.json")).text();
    expect(document).not.toContain("__prototype");
  });
});
