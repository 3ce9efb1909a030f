import { expect, it } from "vitest";
import { listOutboxEvents } from "../helpers/events";
import { createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { objectRefuses, recordingObjectSql } from "../helpers/object-sql";
import { rowsInObject } from "../helpers/org-storage";

/**
 * A write is whole or absent, on an organization in its storage object (where every organization
 * lives): the object writes a request in one transaction, and a fault is injected inside it (a
 * trigger that aborts an insert, `failingObjectInserts`), as a failing statement of D1's batch was.
 */

async function setup() {
  const org = await createOrg();
  const store = await createStore(org.id);
  return { org, store, key: await createIngestKey(org.id) };
}

const countRows = async (table: string, orgId: string) =>
  (await rowsInObject<{ n: number }>(orgId, `SELECT count(*) AS n FROM ${table} WHERE org_id = ?`, orgId))[0].n;

const countUnits = async (orgId: string) =>
  (await rowsInObject<{ n: number }>(orgId, "SELECT count(*) AS n FROM inventory_units WHERE org_id = ? AND status = 'in_stock'", orgId))[0].n;

const fiveThousand = () => Array.from({ length: 5000 }, (_, i) => unit(i));

it("no statement of a 5,000-row ingestion binds more than the object's 100 parameters (D1's limit too)", async () => {
  const { org, store, key } = await setup();
  const recording = await recordingObjectSql(org.id);
  const res = await putInventory(store.id, { key }, { units: fiveThousand() });
  await recording.stop();
  expect(res.status).toBe(200);
  expect(recording.boundCounts.length).toBeGreaterThan(10);
  expect(Math.max(...recording.boundCounts)).toBeLessThanOrEqual(100);
});

it("when any statement of the transaction fails, none of the 5,000 rows is written", async () => {
  const { org, store, key } = await setup();
  // The last unit's insert fails: every row before it was written in the same transaction.
  const undo = await objectRefuses(org.id, "inventory_units", "INSERT", "NEW.stock_number = 'S04999'");
  const res = await putInventory(store.id, { key }, { units: fiveThousand() });
  await undo();
  expect(res.status).toBe(500);
  expect(await countUnits(org.id)).toBe(0);
  expect(await countRows("store_feeds", org.id), "the delivery").toBe(0);
});

it("a read during an ingestion sees the inventory before or after it, never half", async () => {
  const { org, store, key } = await setup();
  await putInventory(store.id, { key }, { units: Array.from({ length: 1000 }, (_, i) => unit(i)) });
  const next = Array.from({ length: 5000 }, (_, i) => unit(i + 1000));
  const reads: Promise<number>[] = [];
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
  // The deals come first in the request's writes, then its stips (the one that fails here), then the events.
  const undo = await objectRefuses(org.id, "deal_stips", "INSERT");
  const deals = Array.from({ length: 1200 }, (_, i) => deal(`A${i}`, store.id, { stips: [{ stip: "proof_of_income", state: "outstanding" }] }));
  const res = await postDeals({ key }, { deals });
  await undo();
  expect(res.status).toBe(500);
  expect(await countRows("deals", org.id)).toBe(0);
  expect(await countRows("deal_stips", org.id)).toBe(0);
  expect(await countRows("event_outbox", org.id), "the object's outbox").toBe(0);
  expect(await listOutboxEvents(org.id)).toEqual([]);

  // The same request without the fault lands whole.
  expect(await (await postDeals({ key }, { deals })).json()).toMatchObject({ created: 1200, stip_alerts: 1200 });
  expect(await countRows("deal_stips", org.id)).toBe(1200);
});
