import { describe, expect, it } from "vitest";
import { call, createApiKey, createOrg, createStore, createUnit } from "./helpers/factories";

describe("GET /api/v1/inventory", () => {
  it("lists the key's own units, oldest first", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    await createUnit(org.id, store.id, { stockNumber: "A1", stockedOn: "2026-01-10" });
    await createUnit(org.id, store.id, { stockNumber: "A2", stockedOn: "2025-12-01" });
    const { key } = await createApiKey(org.id);
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(200);
    const body = await res.json<{ count: number; inventory: { stock_number: string }[] }>();
    expect(body.inventory.map((u) => u.stock_number)).toEqual(["A2", "A1"]);
  });
});
