import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { listOutboxEvents } from "../helpers/events";
import { createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { createTestApp } from "../helpers/test-app";

/** Calls a native binding's method on the binding itself (a Proxy would otherwise be `this`). */
const passThrough = <T extends object>(target: T, prop: string | symbol) => {
  const value = Reflect.get(target, prop);
  return typeof value === "function" ? value.bind(target) : value;
};

/**
 * The D1 binding with every statement's bound-parameter count recorded, and optionally a failing
 * statement appended to each batch (as if the last write of the request failed), or every insert
 * into one table made to fail (a write in the middle of the request, however it is sent).
 */
function instrumentedD1(options: { failBatches?: boolean; failInsertsInto?: string } = {}) {
  const boundCounts: number[] = [];
  const failing = options.failInsertsInto ? new RegExp(`^\\s*insert into "${options.failInsertsInto}"`, "i") : undefined;
  const wrap = <T extends D1Database | D1DatabaseSession>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === "withSession") return (constraint: D1SessionConstraint) => wrap((t as D1Database).withSession(constraint));
        if (prop === "prepare") {
          return (query: string) => {
            const statement = t.prepare(failing?.test(query) ? query.replace(`"${options.failInsertsInto}"`, '"no_such_table"') : query);
            return new Proxy(statement, {
              get(s, p) {
                if (p === "bind") {
                  return (...values: unknown[]) => {
                    boundCounts.push(values.length);
                    return s.bind(...values);
                  };
                }
                return passThrough(s, p);
              },
            });
          };
        }
        if (prop === "batch" && options.failBatches) {
          return (statements: D1PreparedStatement[]) => t.batch([...statements, t.prepare("INSERT INTO organizations (id) VALUES (NULL)")]);
        }
        return passThrough(t, prop);
      },
    });
  return { d1: wrap(env.DB), boundCounts };
}

async function setup() {
  const org = await createOrg();
  const store = await createStore(org.id);
  return { org, store, key: await createIngestKey(org.id) };
}

const countRows = async (table: string, orgId: string) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE org_id = ?`).bind(orgId).first<{ n: number }>())?.n;

const countUnits = async (orgId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM inventory_units WHERE org_id = ? AND status = 'in_stock'").bind(orgId).first<{ n: number }>())?.n;

it("no statement of a 5,000-row ingestion binds more than D1's 100 parameters", async () => {
  const { store, key } = await setup();
  const { d1, boundCounts } = instrumentedD1();
  const { request } = createTestApp(undefined, { ...env, DB: d1 });
  const res = await request(`/api/v1/ingest/inventory?store_id=${store.id}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json", "X-Service-API-Key": key },
    body: JSON.stringify({ units: Array.from({ length: 5000 }, (_, i) => unit(i)) }),
  });
  expect(res.status).toBe(200);
  expect(boundCounts.length).toBeGreaterThan(10);
  expect(Math.max(...boundCounts)).toBeLessThanOrEqual(100);
});

it("when any statement of the batch fails, none of the 5,000 rows is written", async () => {
  const { org, store, key } = await setup();
  const { d1 } = instrumentedD1({ failBatches: true });
  const { request } = createTestApp(undefined, { ...env, DB: d1 });
  const res = await request(`/api/v1/ingest/inventory?store_id=${store.id}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json", "X-Service-API-Key": key },
    body: JSON.stringify({ units: Array.from({ length: 5000 }, (_, i) => unit(i)) }),
  });
  expect(res.status).toBe(500);
  expect(await countUnits(org.id)).toBe(0);
});

it("a read during an ingestion sees the inventory before or after it, never half", async () => {
  const { org, store, key } = await setup();
  await putInventory(store.id, { key }, { units: Array.from({ length: 1000 }, (_, i) => unit(i)) });
  const next = Array.from({ length: 5000 }, (_, i) => unit(i + 1000));
  const reads: Promise<number | undefined>[] = [];
  const ingestion = putInventory(store.id, { key }, { units: next }, false, { confirm_removals: "1000" });
  for (let i = 0; i < 20; i++) {
    reads.push(countUnits(org.id));
    await new Promise((r) => setTimeout(r, 5));
  }
  expect((await ingestion).status).toBe(200);
  for (const seen of await Promise.all(reads)) expect([1000, 5000]).toContain(seen);
  expect(await countUnits(org.id)).toBe(5000);
});

it("deals too: when a write in the middle of a 1,200-deal request fails, no deal, stip or event is written", async () => {
  const { org, store, key } = await setup();
  // Three statements of deals come first in the request's writes, then its stips (the one that fails here), then the events.
  const { d1 } = instrumentedD1({ failInsertsInto: "deal_stips" });
  const { request } = createTestApp(undefined, { ...env, DB: d1 });
  const deals = Array.from({ length: 1200 }, (_, i) => deal(`A${i}`, store.id, { stips: [{ stip: "proof_of_income", state: "outstanding" }] }));
  const res = await request("/api/v1/ingest/deals", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Service-API-Key": key },
    body: JSON.stringify({ deals }),
  });
  expect(res.status).toBe(500);
  expect(await countRows("deals", org.id)).toBe(0);
  expect(await countRows("deal_stips", org.id)).toBe(0);
  expect(await listOutboxEvents(org.id)).toEqual([]);

  // The same request through the real binding lands whole.
  expect(await (await postDeals({ key }, { deals })).json()).toMatchObject({ created: 1200, stip_alerts: 1200 });
  expect(await countRows("deal_stips", org.id)).toBe(1200);
});
