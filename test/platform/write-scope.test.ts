import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { commitWithEvents } from "../../src/events/emit";
import { createEndpoint } from "../helpers/events";
import { call, createApiKey, createOrg, createStore, createUnit } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { rowsInObject } from "../helpers/org-storage";
import { capturingQueue, consumeOne } from "../helpers/queue-driver";
import { brokerCall, createBrokerToken } from "../helpers/staff";

/**
 * Every write that deletes or replaces rows, on an organization with two stores beside a second
 * organization (issue 34 item 2): the write changes its own store's or endpoint's rows and nothing
 * of the other store's or the other organization's. Every other settings test has one store per
 * organization, so a delete that lost its store scope would pass them all.
 */

/** The tables these writes touch; store-scoped ones are also read for the sibling store. */
const ORG_TABLES = [
  "stores",
  "store_lender_panel",
  "compliance_settings",
  "settings_audit",
  "webhook_endpoints",
  "webhook_deliveries",
  "inventory_units",
];
const STORE_TABLES = ["store_lender_panel", "inventory_units"];

/**
 * Everything of `otherOrg`, and `siblingStore`'s rows of its own organization (`siblingOrg`), as
 * stored: in each organization's object, and the store directory's rows in D1.
 */
async function bystanders(otherOrg: string, siblingOrg: string, siblingStore: string) {
  const out: Record<string, unknown[]> = {};
  for (const table of ORG_TABLES)
    out[`${table} of the other organization`] = await rowsInObject(otherOrg, `SELECT * FROM ${table} WHERE org_id = ? ORDER BY rowid`, otherOrg);
  for (const table of STORE_TABLES)
    out[`${table} of the sibling store`] = await rowsInObject(siblingOrg, `SELECT * FROM ${table} WHERE store_id = ? ORDER BY rowid`, siblingStore);
  out["the sibling store"] = await rowsInObject(siblingOrg, "SELECT * FROM stores WHERE id = ?", siblingStore);
  out["the directory's stores of the other organization and the sibling store"] = (
    await env.DB.prepare("SELECT * FROM stores WHERE org_id = ? OR id = ? ORDER BY rowid").bind(otherOrg, siblingStore).all()
  ).results;
  return out;
}

async function programIds(n: number) {
  return (await env.DB.prepare("SELECT id FROM lender_programs ORDER BY id LIMIT ?").bind(n).all<{ id: string }>()).results.map((p) => p.id);
}

/** Two organizations: `a` with stores a1 and a2, `b` with b1; each store with a panel and units, each organization with thresholds and endpoints with deliveries. */
async function twoOrganizations() {
  const ids = await programIds(4);
  const make = async (storeCount: number) => {
    const org = await createOrg();
    const stores = [];
    for (let i = 0; i < storeCount; i++) stores.push(await createStore(org.id, { isPrimary: i === 0 }));
    const broker = (await createBrokerToken(org.id)).token;
    const key = (await createApiKey(org.id)).key;
    for (const [i, store] of stores.entries()) {
      expect(
        (await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker, { method: "PUT", body: { programs: ids.slice(i, i + 3) } }))
          .status,
      ).toBe(200);
      expect((await brokerCall(`/api/settings/stores/${store.id}`, broker, { method: "PATCH", body: { pack_used: 600 + i } })).status).toBe(200);
      for (let u = 0; u < 3; u++) await createUnit(org.id, store.id, { stockNumber: `${store.id}-${u}`, stockedOn: "2026-10-01" });
    }
    expect((await brokerCall("/api/settings/compliance", broker, { method: "PATCH", body: { flag_score: 86 } })).status).toBe(200);
    const endpoints = [
      await createEndpoint(key, { url: "https://hooks.example.com/one", events: ["deal.stip_alert"] }),
      await createEndpoint(key, { url: "https://hooks.example.com/two", events: ["deal.stip_alert"] }),
    ];
    const queue = capturingQueue();
    await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], new Date());
    await consumeOne(queue.env, queue.sent.splice(0)[0], 1);
    return { org, stores, broker, key, endpoints };
  };
  return { a: await make(2), b: await make(1), ids };
}

describe("writes that delete or replace rows touch only their own store and organization", () => {
  it("settings: a lender panel PUT, a store PATCH and a thresholds PATCH, from the organization and from the operator", async () => {
    const { a, b, ids } = await twoOrganizations();
    const [a1, a2] = a.stores;
    const before = await bystanders(b.org.id, a.org.id, a2.id);
    const operator = await createOperatorToken();
    const writes = [
      () => brokerCall(`/api/settings/stores/${a1.id}/lender-panel`, a.broker, { method: "PUT", body: { programs: [ids[3]] } }),
      () => brokerCall(`/api/settings/stores/${a1.id}/lender-panel`, a.broker, { method: "PUT", body: { programs: [] } }),
      () => brokerCall(`/api/settings/stores/${a1.id}`, a.broker, { method: "PATCH", body: { pack_used: 900, aged_threshold_days: 60 } }),
      () => brokerCall("/api/settings/compliance", a.broker, { method: "PATCH", body: { flag_score: 88 } }),
      () =>
        brokerCall(`/api/operator/organizations/${a.org.id}/settings/stores/${a1.id}/lender-panel`, operator, {
          method: "PUT",
          body: { programs: ids.slice(0, 2) },
        }),
      () => brokerCall(`/api/operator/organizations/${a.org.id}/settings/stores/${a1.id}`, operator, { method: "PATCH", body: { pack_used: 950 } }),
    ];
    for (const write of writes) {
      expect((await write()).status).toBe(200);
      expect(await bystanders(b.org.id, a.org.id, a2.id)).toEqual(before);
    }
    // And the writes did land on a1.
    const panel = await rowsInObject(a.org.id, "SELECT program_id FROM store_lender_panel WHERE store_id = ? ORDER BY program_id", a1.id);
    expect(panel.map((r) => r.program_id)).toEqual(ids.slice(0, 2));
  });

  it("webhooks: deleting an endpoint deletes its own deliveries only, not its sibling endpoint's or the other organization's", async () => {
    const { a, b } = await twoOrganizations();
    const [one, two] = a.endpoints;
    const before = await bystanders(b.org.id, a.org.id, a.stores[1].id);
    const siblingDeliveries = () => rowsInObject(a.org.id, "SELECT * FROM webhook_deliveries WHERE endpoint_id = ?", two.id);
    const sibling = await siblingDeliveries();
    expect(sibling).toHaveLength(1);
    const deleted = await call(`/api/v1/webhooks/${one.id}`, { method: "DELETE", key: a.key });
    expect(deleted.status).toBe(204);
    expect(await rowsInObject(a.org.id, "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?", one.id)).toEqual([{ n: 0 }]);
    expect(await siblingDeliveries()).toEqual(sibling);
    expect(await bystanders(b.org.id, a.org.id, a.stores[1].id)).toEqual(before);
  });

  it("ingestion: an inventory snapshot of one store takes out only that store's absent units", async () => {
    const { a, b } = await twoOrganizations();
    const [a1, a2] = a.stores;
    const before = await bystanders(b.org.id, a.org.id, a2.id);
    const ingest = await createIngestKey(a.org.id);
    const res = await putInventory(a1.id, { key: ingest }, { units: [unit(1)] }, false, { confirm_removals: "3" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ created: 1, removed: 3 });
    expect(await bystanders(b.org.id, a.org.id, a2.id)).toEqual(before);
  });
});
