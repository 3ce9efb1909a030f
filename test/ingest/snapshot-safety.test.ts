import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { SnapshotRefusedSchema } from "../../src/routes/ingest/ingest.routes";
import { createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, toCsv, unit } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";

const HEADER = Object.keys(unit(0)).join(",");

/** A store with `count` units in stock (S00000…), loaded through the endpoint itself. */
async function storeWithUnits(count: number) {
  const org = await createOrg();
  const store = await createStore(org.id);
  const key = await createIngestKey(org.id);
  const units = Array.from({ length: count }, (_, i) => unit(i));
  expect((await putInventory(store.id, { key }, { units })).status).toBe(200);
  return { org, store, key, units };
}

const inStock = (orgId: string, storeId: string) =>
  rowsInObject<{ stock_number: string; asking_price: number }>(
    orgId,
    "SELECT stock_number, asking_price FROM inventory_units WHERE org_id = ? AND store_id = ? AND status = 'in_stock' ORDER BY stock_number",
    orgId,
    storeId,
  );

type Refusal = z.infer<typeof SnapshotRefusedSchema>;

describe("PUT /api/v1/ingest/inventory refuses what would remove units by accident, and writes nothing when it does", () => {
  it("an empty CSV body (curl's when the @file is missing) is a 400 saying the body is empty", async () => {
    const { org, store, key } = await storeWithUnits(4);
    const before = await inStock(org.id, store.id);
    for (const body of ["", "\ufeff", "\r\n\r\n"]) {
      const res = await putInventory(store.id, { key }, body, true);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_request", message: expect.stringMatching(/CSV body is empty/) });
    }
    // Not even when an empty snapshot is allowed: emptying a store takes a header row.
    expect((await putInventory(store.id, { key }, "", true, { allow_empty: "true" })).status).toBe(400);
    expect(await inStock(org.id, store.id)).toEqual(before);
  });

  it("a header-only CSV and {units: []} are a 422 empty_snapshot naming what would go, unless allow_empty=true", async () => {
    const { org, store, key } = await storeWithUnits(4);
    const before = await inStock(org.id, store.id);
    for (const [body, csv] of [
      [`${HEADER}\n`, true],
      [{ units: [] }, false],
    ] as const) {
      const res = await putInventory(store.id, { key }, body, csv);
      expect(res.status).toBe(422);
      const refusal = await res.json<Refusal>();
      expect(refusal).toMatchObject({ error: "validation_error", in_stock: 4, would_remove: 4 });
      expect(refusal.details).toEqual([expect.objectContaining({ path: "units", code: "empty_snapshot" })]);
      expect(refusal.message).toMatch(/all 4 units in stock .* allow_empty=true/);
      expect(await inStock(org.id, store.id)).toEqual(before);
    }
    expect((await putInventory(store.id, { key }, { units: [] }, false, { allow_empty: "false" })).status).toBe(422);

    const allowed = await putInventory(store.id, { key }, `${HEADER}\n`, true, { allow_empty: "true" });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ received: 0, removed: 4 });
    expect(await inStock(org.id, store.id)).toEqual([]);
    // A store with nothing in stock: the empty snapshot still has to be meant.
    expect((await putInventory(store.id, { key }, { units: [] })).status).toBe(422);
    expect(await (await putInventory(store.id, { key }, { units: [] }, false, { allow_empty: "true" })).json()).toMatchObject({ removed: 0 });
  });

  it("a snapshot removing more than half of the store is a 422 naming the count; a wrong count is refused too; the right one goes through", async () => {
    const { org, store, key, units } = await storeWithUnits(4);
    const before = await inStock(org.id, store.id);
    // One unit kept (repriced) and one new: three of the four would leave inventory.
    const snapshot = { units: [unit(0, { asking_price: 19999 }), unit(99)] };

    const unconfirmed = await putInventory(store.id, { key }, snapshot);
    expect(unconfirmed.status).toBe(422);
    const refusal = await unconfirmed.json<Refusal>();
    expect(refusal).toMatchObject({ in_stock: 4, would_remove: 3 });
    expect(refusal.details).toEqual([expect.objectContaining({ path: "confirm_removals", code: "removals_unconfirmed" })]);
    expect(refusal.message).toMatch(/3 of the 4 units .* confirm_removals=3/);
    expect(await inStock(org.id, store.id)).toEqual(before);

    for (const wrong of ["2", "4", "0"]) {
      const res = await putInventory(store.id, { key }, snapshot, false, { confirm_removals: wrong });
      expect(res.status).toBe(422);
      const body = await res.json<Refusal>();
      expect(body.details).toEqual([expect.objectContaining({ path: "confirm_removals", code: "removals_mismatch" })]);
      expect(body.message).toMatch(new RegExp(`confirm_removals=${wrong}, but this snapshot would take 3 `));
    }
    for (const malformed of ["three", "-1", "1.5"]) {
      const res = await putInventory(store.id, { key }, snapshot, false, { confirm_removals: malformed });
      expect(res.status).toBe(422);
      expect((await res.json<Refusal>()).details?.[0].path).toBe("confirm_removals");
    }
    expect(await inStock(org.id, store.id)).toEqual(before);

    const confirmed = await putInventory(store.id, { key }, toCsv(snapshot.units), true, { confirm_removals: "3" });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ created: 1, updated: 1, removed: 3 });
    expect((await inStock(org.id, store.id)).map((u) => u.stock_number)).toEqual([units[0].stock_number, "S00099"]);
  });

  it("exactly half goes through without a count; one unit more than half does not", async () => {
    const { org, store, key } = await storeWithUnits(4);
    // 4 in stock: removing 2 is half (allowed), removing 3 is more (refused).
    expect((await putInventory(store.id, { key }, { units: [unit(0)] })).status).toBe(422);
    const half = await putInventory(store.id, { key }, { units: [unit(0), unit(1)] });
    expect(half.status).toBe(200);
    expect(await half.json()).toMatchObject({ removed: 2 });
    expect((await inStock(org.id, store.id)).length).toBe(2);

    // 5 in stock (odd): 2 go through, 3 are refused.
    const odd = await storeWithUnits(5);
    expect((await putInventory(odd.store.id, { key: odd.key }, { units: [unit(0), unit(1)] })).status).toBe(422);
    expect(await (await putInventory(odd.store.id, { key: odd.key }, { units: [unit(0), unit(1), unit(2)] })).json()).toMatchObject({ removed: 2 });
  });

  it("a count given where none is needed must still be right", async () => {
    const { org, store, key } = await storeWithUnits(4);
    const snapshot = { units: [unit(0), unit(1), unit(2)] };
    expect((await putInventory(store.id, { key }, snapshot, false, { confirm_removals: "0" })).status).toBe(422);
    expect((await inStock(org.id, store.id)).length).toBe(4);
    expect(await (await putInventory(store.id, { key }, snapshot, false, { confirm_removals: "1" })).json()).toMatchObject({ removed: 1 });
  });
});
