import { describe, expect, it } from "vitest";
import type { ErrorBody } from "../helpers/bodies";
import { listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, toCsv, unit } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";
import { createBrokerToken } from "../helpers/staff";

/** An organization with a store and an ingest key. */
async function setup() {
  const org = await createOrg();
  const store = await createStore(org.id);
  const key = await createIngestKey(org.id);
  return { org, store, key };
}

const stipsOf = (orgId: string, dealNumber: string) =>
  rowsInObject(
    orgId,
    `SELECT s.stip, s.state, s.cleared_on FROM deal_stips s JOIN deals d ON d.id = s.deal_id AND d.org_id = s.org_id
     WHERE s.org_id = ? AND d.deal_number = ? ORDER BY s.stip`,
    orgId,
    dealNumber,
  );

const dealOf = async (orgId: string, dealNumber: string, columns: string) =>
  (await rowsInObject(orgId, `SELECT ${columns} FROM deals WHERE org_id = ? AND deal_number = ?`, orgId, dealNumber))[0];

describe("POST /api/v1/ingest/deals", () => {
  it("a deal sent again under another of the organization's stores moves there: updated, and stored at that store", async () => {
    const { org, store, key } = await setup();
    const other = await createStore(org.id);
    expect(await (await postDeals({ key }, { deals: [deal("D-MOVE", store.id)] })).json()).toMatchObject({ created: 1 });
    const moved = await postDeals({ key }, { deals: [deal("D-MOVE", other.id)] });
    expect(await moved.json()).toEqual({ received: 1, created: 0, updated: 1, unchanged: 0, stip_alerts: 0 });
    expect(await dealOf(org.id, "D-MOVE", "store_id")).toEqual({ store_id: other.id });
    // The sales rollup follows the deal to its new store.
    expect(await rowsInObject(org.id, "SELECT store_id, units FROM sales_monthly WHERE org_id = ? ORDER BY units", org.id)).toEqual([
      { store_id: other.id, units: 1 },
    ]);
  });

  it("upserts deals and their stips; a new or cleared stip on a pipeline deal raises deal.stip_alert; a replay changes nothing", async () => {
    const { org, store, key } = await setup();
    const first = await postDeals(
      { key },
      {
        deals: [
          deal("D1", store.id, { stips: [{ stip: "proof_of_income", state: "outstanding" }] }),
          deal("D2", store.id, { status: "funded", funded_on: "2026-11-24", stips: [{ stip: "title", state: "outstanding" }] }),
        ],
      },
    );
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: 2, created: 2, updated: 0, unchanged: 0, stip_alerts: 1 });
    const [added] = await listOutboxEvents(org.id, "deal.stip_alert");
    expect(added).toMatchObject({
      store_id: store.id,
      data: { deal_number: "D1", stip: "proof_of_income", change: "added", state: "outstanding", deal_status: "submitted", lender: "Ally Financial" },
    });

    const cleared = {
      deals: [
        deal("D1", store.id, {
          status: "approved",
          stips: [
            { stip: "proof_of_income", state: "cleared", cleared_on: "2026-11-25" },
            { stip: "proof_of_residence", state: "received" },
          ],
        }),
      ],
    };
    expect(await (await postDeals({ key }, cleared)).json()).toMatchObject({ updated: 1, stip_alerts: 2 });
    const alerts = await listOutboxEvents(org.id, "deal.stip_alert");
    expect(alerts.map((e) => [e.data.stip, e.data.change]).sort()).toEqual(
      [
        ["proof_of_income", "added"],
        ["proof_of_income", "cleared"],
        ["proof_of_residence", "added"],
      ].sort(),
    );
    expect(await stipsOf(org.id, "D1")).toEqual([
      { stip: "proof_of_income", state: "cleared", cleared_on: "2026-11-25" },
      { stip: "proof_of_residence", state: "received", cleared_on: null },
    ]);

    expect(await (await postDeals({ key }, cleared)).json()).toEqual({ received: 1, created: 0, updated: 0, unchanged: 1, stip_alerts: 0 });
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toHaveLength(3);
    expect(await dealOf(org.id, "D1", "status, lender")).toEqual({ status: "approved", lender: "Ally Financial" });
  });

  it("a deal sent again unchanged but with a new stip is updated: the stip is stored and alerted once", async () => {
    const { org, store, key } = await setup();
    expect(await (await postDeals({ key }, { deals: [deal("S1", store.id)] })).json()).toMatchObject({ created: 1, stip_alerts: 0 });
    const withStip = { deals: [deal("S1", store.id, { stips: [{ stip: "insurance", state: "outstanding" }] })] };
    expect(await (await postDeals({ key }, withStip)).json()).toEqual({ received: 1, created: 0, updated: 1, unchanged: 0, stip_alerts: 1 });
    expect(await (await postDeals({ key }, withStip)).json()).toEqual({ received: 1, created: 0, updated: 0, unchanged: 1, stip_alerts: 0 });
    expect(await stipsOf(org.id, "S1")).toEqual([{ stip: "insurance", state: "outstanding", cleared_on: null }]);
  });

  it("takes CSV, with stips as name=state pairs", async () => {
    const { org, store, key } = await setup();
    const csv = toCsv([
      { ...deal("C1", store.id), stips: "proof_of_income=outstanding;insurance=cleared" },
      { ...deal("C2", store.id), lender: "", beacon: "" },
    ]);
    const res = await postDeals({ key }, csv, true);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: 2, created: 2, stip_alerts: 2 });
    expect((await stipsOf(org.id, "C1")).map((s) => s.stip)).toEqual(["insurance", "proof_of_income"]);
    expect(await dealOf(org.id, "C2", "lender, beacon")).toEqual({ lender: null, beacon: null });
  });

  it("reports row errors by row and field and writes nothing, events included", async () => {
    const { org, store, key } = await setup();
    const other = await setup();
    const res = await postDeals(
      { key },
      {
        deals: [
          deal("E1", store.id, { stips: [{ stip: "x", state: "outstanding" }] }),
          deal("E2", store.id, { status: "lost" }),
          deal("E3", other.store.id),
        ],
      },
    );
    expect(res.status).toBe(422);
    expect((await res.json<ErrorBody>()).details?.map((d) => d.path)).toEqual(["deals.1.status"]);

    const foreignStore = await postDeals({ key }, { deals: [deal("E1", store.id), deal("E3", other.store.id)] });
    expect(foreignStore.status).toBe(404);
    expect((await foreignStore.json<ErrorBody>()).message).toBe("This organization has no store with that id (deals.1.store_id).");

    const csv = toCsv([deal("E4", store.id), { ...deal("E5", store.id), year: "20x1" }]);
    const csvRes = await postDeals({ key }, csv, true);
    expect((await csvRes.json<ErrorBody>()).details?.map((d) => d.path)).toEqual(["deals.1.year"]);

    expect(await rowsInObject(org.id, "SELECT id FROM deals WHERE org_id = ?", org.id)).toEqual([]);
    expect(await listOutboxEvents(org.id)).toEqual([]);
  });

  it("keeps each organization's deals apart: the same deal number in two organizations, a broker token bound to one", async () => {
    const a = await setup();
    const b = await setup();
    const { token } = await createBrokerToken(b.org.id);
    expect((await postDeals({ key: a.key }, { deals: [deal("SAME", a.store.id, { front_gross: 100 })] })).status).toBe(200);
    expect((await postDeals({ broker: token }, { deals: [deal("SAME", b.store.id, { front_gross: 200 })] })).status).toBe(200);
    expect(await dealOf(a.org.id, "SAME", "org_id, front_gross")).toEqual({ org_id: a.org.id, front_gross: 100 });
    expect(await dealOf(b.org.id, "SAME", "org_id, front_gross")).toEqual({ org_id: b.org.id, front_gross: 200 });
    expect((await postDeals({ broker: token }, { deals: [deal("X", a.store.id)] })).status).toBe(404);
    expect((await postDeals({ key: (await createApiKey(a.org.id)).key }, { deals: [] })).status).toBe(403);
  });

  it("a store of another organization, or none at all, is the deal desk's 404 on both ingestion endpoints", async () => {
    const { org, key } = await setup();
    const other = await setup();
    const deskKey = (await createApiKey(org.id)).key;
    for (const storeId of [other.store.id, "sto_does_not_exist"]) {
      const desk = await call("/api/v1/lender-route", {
        method: "POST",
        key: deskKey,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ store_id: storeId, beacon: 700, down_payment: 3000, vehicle_price: 20000, vehicle_type: "car" }),
      });
      expect(desk.status).toBe(404);
      const deskAnswer = await desk.json<ErrorBody>();
      const inventory = await putInventory(storeId, { key }, { units: [unit(1)] });
      expect(inventory.status).toBe(404);
      expect(await inventory.json()).toMatchObject({ error: deskAnswer.error, message: deskAnswer.message });
      const deals = await postDeals({ key }, { deals: [deal("F1", storeId)] });
      expect(deals.status).toBe(404);
      expect(await deals.json()).toMatchObject({ error: deskAnswer.error, message: expect.stringContaining(deskAnswer.message.replace(/\.$/, "")) });
    }
  });

  it("refuses a deal that lists a stip twice, naming it; a replay changes nothing and raises nothing", async () => {
    const { org, store, key } = await setup();
    const twice = {
      deals: [
        deal("T1", store.id, {
          stips: [
            { stip: "proof_of_income", state: "outstanding" },
            { stip: "insurance", state: "received" },
            { stip: "proof_of_income", state: "cleared" },
          ],
        }),
      ],
    };
    for (let replay = 0; replay < 3; replay++) {
      const res = await postDeals({ key }, twice);
      expect(res.status).toBe(422);
      const body = await res.json<ErrorBody>();
      expect(body.message).toMatch(/proof_of_income/);
      expect(body.details).toEqual([{ path: "deals.0.stips.2.stip", code: "duplicate", message: "proof_of_income is also stip 0 of this deal." }]);
    }
    const csv = await postDeals({ key }, toCsv([{ ...deal("T2", store.id), stips: "title=outstanding;title=cleared" }]), true);
    expect(csv.status).toBe(422);
    expect((await csv.json<ErrorBody>()).details?.map((d) => d.path)).toEqual(["deals.0.stips.1.stip"]);
    expect(await stipsOf(org.id, "T1")).toEqual([]);
    expect(await listOutboxEvents(org.id)).toEqual([]);

    // Listed once, the same payload replayed twice: the second and third change nothing and raise nothing.
    const once = { deals: [deal("T1", store.id, { stips: [{ stip: "proof_of_income", state: "cleared", cleared_on: "2026-11-25" }] })] };
    expect(await (await postDeals({ key }, once)).json()).toMatchObject({ created: 1, stip_alerts: 1 });
    for (let replay = 0; replay < 2; replay++) {
      expect(await (await postDeals({ key }, once)).json()).toEqual({ received: 1, created: 0, updated: 0, unchanged: 1, stip_alerts: 0 });
    }
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toHaveLength(1);
    expect(await stipsOf(org.id, "T1")).toEqual([{ stip: "proof_of_income", state: "cleared", cleared_on: "2026-11-25" }]);
  });
});
