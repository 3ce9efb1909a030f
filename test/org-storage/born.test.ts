/**
 * An organization the operator creates is born in its storage object (docs/scaling.md#where-an-organization-is-born):
 * D1 holds its directory rows (the organization, its stores, its credentials), its object everything
 * else from the first write on; an object that cannot be opened leaves no organization behind.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { findOrganization } from "../../src/db/queries/operator";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { createOrganization } from "../../src/routes/operator/operator.service";
import { call } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { copyingThrough } from "../helpers/org-storage";
import { brokerCall } from "../helpers/staff";

const operatorCall = (token: string, path: string, body: unknown) => brokerCall(`/api/operator${path}`, token, { method: "POST", body });

describe("an organization born in its object", () => {
  it("is served from its object from the first write: the operator's store and snapshot are there, D1 holds none of its units", async () => {
    const operator = await createOperatorToken();
    const id = `org_born_${Date.now()}`;
    expect((await operatorCall(operator, "/organizations", { id, name: "Born Motors" })).status).toBe(201);

    const created = await operatorCall(operator, `/organizations/${id}/stores`, {
      name: "Born Main",
      market_zip: "78701",
      is_primary: true,
      pack_used: 650,
    });
    const store = await created.json<{ id: string }>();
    const key = await createIngestKey(id);
    const put = await putInventory(store.id, { key }, { units: [unit(1), unit(2)] });
    expect(put.status).toBe(200);

    const feed = await (await call("/api/v1/inventory", { key })).json<{ inventory: { stock_number: string; store: string }[] }>();
    expect(feed.inventory.map((u) => u.store)).toEqual(["Born Main", "Born Main"]);
    const inObject = await runInDurableObject(orgStore(env, id), (_, state) => ({
      units: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM inventory_units").one().n,
      packUsed: state.storage.sql.exec<{ pack_used: number }>("SELECT pack_used FROM stores").one().pack_used,
    }));
    expect(inObject).toEqual({ units: 2, packUsed: 650 });
    // D1 has no table for them at all (migration 0051).
    expect(await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = 'inventory_units'").first()).toBeNull();
  });

  it("an object that cannot be opened leaves no organization: the same id can be created again", async () => {
    const id = `org_unborn_${Date.now()}`;
    const failing = copyingThrough(orgStore(env, id), {
      seed: async () => {
        throw new Error("object unavailable");
      },
    });
    const db = getDb(env.DB);
    await expect(createOrganization({ ...env, ORG_STORE: failing }, db, { id, name: "Unborn" })).rejects.toThrow("object unavailable");
    expect(await findOrganization(db, id)).toBeNull();
    expect(await createOrganization(env, db, { id, name: "Born at last" })).toMatchObject({ id, name: "Born at last" });
    expect(await orgStore(env, id).isOpen(id)).toBe(true);
  });
});
