import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { type AppraisalBody, appraise, THIS_YEAR } from "../helpers/appraisal";
import { complianceCheck } from "../helpers/compliance";
import { createDeskOrg, post } from "../helpers/deal-desk";
import { call } from "../helpers/factories";
import { createIngestKey, deal, postDeals } from "../helpers/ingest";
import { createValuedUnit, daysAgo } from "../helpers/reports";
import { brokerCall, createBrokerToken } from "../helpers/staff";

afterEach(() => vi.useRealTimers());

/** The engines keep settings per isolate for 60 s (docs/settings.md#when-a-change-takes-effect). */
function advancePastEngineCaches() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 61_000);
}

/** A desk organization with one aged unit (50 days, the 45-day default threshold), and a broker token. */
async function settingsOrg() {
  const desk = await createDeskOrg();
  await createValuedUnit(desk.orgId, desk.storeId, {
    stockNumber: "SET-50",
    stockedOn: daysAgo(50),
    cost: 18_000,
    askingPrice: 24_995,
    marketValue: 25_000,
  });
  const broker = await createBrokerToken(desk.orgId);
  return { ...desk, broker: broker.token };
}

const patch = (storeId: string, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  brokerCall(`/api/settings/stores/${storeId}`, token, { method: "PATCH", body, headers });

const agedStock = async (key: string) => {
  const res = await call("/api/v1/inventory-alerts", { key });
  expect(res.status).toBe(200);
  return (await res.json<{ alerts: { stock_no: string; alert_type: string }[] }>()).alerts
    .filter((a) => a.alert_type === "aged")
    .map((a) => a.stock_no);
};

const grossPack = async (key: string) =>
  (await (await post("/api/v1/gross-calc", key, { purchase_price: 18_500, selling_price: 22_995 })).json<{ pack: number }>()).pack;

type AuditEntry = { store_id: string | null; area: string; field: string; old_value: unknown; new_value: unknown };
const auditLog = async (token: string, query = "") => {
  const res = await brokerCall(`/api/settings/audit${query}`, token);
  expect(res.status).toBe(200);
  return res.json<{ entries: AuditEntry[]; has_more: boolean; next_cursor: string | null }>();
};

/**
 * The audit rows of simultaneous changes: one chain from `start` (each row's old value is another
 * row's new one; rows of one moment are listed in id order, so followed by value) through every
 * value sent, each once. The value it ends at.
 */
async function auditChainEnd(token: string, start: unknown, sent: readonly unknown[]) {
  const key = (value: unknown) => JSON.stringify(value);
  const next = new Map((await auditLog(token)).entries.map((e) => [key(e.old_value), e.new_value]));
  const chain = [start];
  while (next.has(key(chain.at(-1)))) chain.push(next.get(key(chain.at(-1))));
  expect(chain.slice(1).map(key).sort()).toEqual(sent.map(key).sort());
  expect(next.size).toBe(sent.length);
  return chain.at(-1);
}

describe("store settings", () => {
  it("a PATCH changes what the deal desk and the inventory alerts compute, and its audit rows list the old and new values", async () => {
    const { orgId, storeId, key, broker } = await settingsOrg();
    expect(await grossPack(key)).toBe(500);
    expect(await agedStock(key)).toEqual(["SET-50"]);
    const got = await (await brokerCall(`/api/settings/stores/${storeId}`, broker)).json();
    expect(got).toMatchObject({ pack_used: 500, aged_threshold_days: 45 });

    const res = await patch(storeId, broker, { pack_used: 650, aged_threshold_days: 60, pack_new: 300 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ store_id: storeId, pack_used: 650, aged_threshold_days: 60, pack_new: 300 });
    advancePastEngineCaches();
    expect(await grossPack(key)).toBe(650);
    expect(await agedStock(key)).toEqual([]);
    const list = await (await brokerCall("/api/settings/stores", broker)).json<{ stores: { store_id: string; pack_used: number }[] }>();
    expect(list.stores).toEqual([expect.objectContaining({ store_id: storeId, pack_used: 650 })]);

    // A panel change: the log lists it with the store's rows, newest first, paged, from where the settings are.
    const panel = await brokerCall(`/api/settings/stores/${storeId}/lender-panel`, broker, {
      method: "PUT",
      body: { programs: ["lp_harbor_point_bank"] },
    });
    expect(panel.status).toBe(200);
    const log = await auditLog(broker);
    const rows = log.entries.map((e) => [e.area, e.field, e.old_value, e.new_value]);
    expect(rows[0]).toEqual(["lender_panel", "programs", expect.any(Array), ["lp_harbor_point_bank"]]);
    // The two store rows share their time: in id order, either way round.
    expect(rows.slice(1)).toEqual(
      expect.arrayContaining([
        ["store", "aged_threshold_days", 45, 60],
        ["store", "pack_used", 500, 650],
      ]),
    );
    expect(rows).toHaveLength(3);
    const first = await auditLog(broker, "?limit=2");
    expect(first.has_more).toBe(true);
    const rest = await auditLog(broker, `?limit=2&cursor=${first.next_cursor}`);
    expect([...first.entries, ...rest.entries]).toEqual(log.entries);
    expect(rest.has_more).toBe(false);

    // A PATCH that changes nothing writes nothing.
    expect((await patch(storeId, broker, { pack_used: 650 })).status).toBe(200);
    expect((await auditLog(broker)).entries).toHaveLength(3);
    // A deal push writes the directory's store names where it lands: the settings beside them stay.
    expect((await postDeals({ key: await createIngestKey(orgId) }, { deals: [deal("SET-D1", storeId)] })).status).toBe(200);
    expect(await (await brokerCall(`/api/settings/stores/${storeId}`, broker)).json()).toMatchObject({ pack_used: 650, aged_threshold_days: 60 });
    expect(await orgStore(env, orgId).storeSettings(orgId, storeId)).toMatchObject({ packUsed: 650, agedThresholdDays: 60 });
  });

  it("of two PATCHes naming the same ETag, one lands and the other is refused with 412; an unknown store is 404", async () => {
    const { storeId, broker } = await settingsOrg();
    const etag = (await brokerCall(`/api/settings/stores/${storeId}`, broker)).headers.get("ETag") ?? "";
    const [a, b] = await Promise.all([
      patch(storeId, broker, { pack_used: 600 }, { "If-Match": etag }),
      patch(storeId, broker, { pack_used: 700 }, { "If-Match": etag }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const won = a.status === 200 ? 600 : 700;
    expect(await (await brokerCall(`/api/settings/stores/${storeId}`, broker)).json()).toMatchObject({ pack_used: won });
    // The audit row records exactly the value it replaced, once.
    expect((await auditLog(broker)).entries.map((e) => [e.field, e.old_value, e.new_value])).toEqual([["pack_used", 500, won]]);
    // The stale tag again: 412, nothing written.
    expect((await patch(storeId, broker, { pack_used: 800 }, { "If-Match": etag })).status).toBe(412);
    expect((await patch("sto_nowhere", broker, { pack_used: 800 })).status).toBe(404);
    expect((await brokerCall("/api/settings/stores/sto_nowhere", broker)).status).toBe(404);
  });

  it("without If-Match, simultaneous PATCHes all land, each audit row holding the value its change replaced", async () => {
    const { storeId, broker } = await settingsOrg();
    const values = [510, 520, 530, 540];
    const results = await Promise.all(values.map((v) => patch(storeId, broker, { pack_used: v })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const last = await auditChainEnd(broker, 500, values);
    expect(await (await brokerCall(`/api/settings/stores/${storeId}`, broker)).json()).toMatchObject({ pack_used: last });
  });
});

const putPanel = (storeId: string, token: string, programs: string[]) =>
  brokerCall(`/api/settings/stores/${storeId}/lender-panel`, token, { method: "PUT", body: { programs } });

// A 2024 car, prime: every program of the matrix writes it, so the panel alone decides who ranks.
const PRIME_CAR = { beacon: 760, vehicle_price: 26_000, down_payment: 4_000, vehicle_type: "car", vehicle_year: 2024, mileage: 15_000 };
type Routed = { primary: { lender_id: string } | null; backup: { lender_id: string } | null };
const routed = async (key: string) => {
  const res = await post("/api/v1/lender-route", key, PRIME_CAR);
  expect(res.status).toBe(200);
  const body = await res.json<Routed>();
  return [body.primary?.lender_id, body.backup?.lender_id];
};

describe("lender panels", () => {
  it("a PUT changes the deal desk's routing and its audit row lists the panel before and after; an unknown store is 404", async () => {
    const { storeId, key, broker } = await settingsOrg();
    const [primary, backup] = await routed(key);
    const all = (await env.DB.prepare("SELECT id FROM lender_programs ORDER BY id").all<{ id: string }>()).results.map((r) => r.id);
    expect((await (await brokerCall(`/api/settings/stores/${storeId}/lender-panel`, broker)).json<{ count: number }>()).count).toBe(all.length);

    const without = all.filter((id) => id !== primary);
    const res = await putPanel(storeId, broker, without);
    expect(res.status).toBe(200);
    expect((await res.json<{ count: number }>()).count).toBe(without.length);
    const got = await (await brokerCall(`/api/settings/stores/${storeId}/lender-panel`, broker)).json<{ programs: { id: string }[] }>();
    expect(got.programs.map((p) => p.id).sort()).toEqual(without);
    advancePastEngineCaches();
    // The favourite left the panel: the next in line leads.
    expect(await routed(key)).toEqual([backup, expect.anything()]);

    const log = await auditLog(broker);
    expect(log.entries.map((e) => [e.store_id, e.area, e.field, e.old_value, e.new_value])).toEqual([
      [storeId, "lender_panel", "programs", all, without],
    ]);
    // The same panel again writes nothing.
    expect((await putPanel(storeId, broker, without)).status).toBe(200);
    expect((await auditLog(broker)).entries).toHaveLength(1);
    expect((await putPanel("sto_nowhere", broker, without)).status).toBe(404);
    expect((await brokerCall("/api/settings/stores/sto_nowhere/lender-panel", broker)).status).toBe(404);
  });

  it("simultaneous PUTs all land, each audit row holding the panel its change replaced", async () => {
    const { storeId, broker } = await settingsOrg();
    // Sorted, as the audit rows list them.
    const panels = [["lp_harbor_point_bank"], ["lp_fresh_start_auto_lending"], ["lp_fresh_start_auto_lending", "lp_harbor_point_bank"]];
    const all = (await env.DB.prepare("SELECT id FROM lender_programs ORDER BY id").all<{ id: string }>()).results.map((r) => r.id);
    const results = await Promise.all(panels.map((programs) => putPanel(storeId, broker, programs)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const last = await auditChainEnd(broker, all, panels);
    const final = await (await brokerCall(`/api/settings/stores/${storeId}/lender-panel`, broker)).json<{ programs: { id: string }[] }>();
    expect(final.programs.map((p) => p.id).sort()).toEqual(last);
  });
});

// Twenty years old: past the default minimum age (18), under 21.
const twentyYearsOld = () => {
  const dob = new Date();
  dob.setUTCFullYear(dob.getUTCFullYear() - 20, dob.getUTCMonth(), dob.getUTCDate() - 10);
  return dob.toISOString().slice(0, 10);
};
const screenedFlags = async (key: string) => {
  const res = await call(
    "/api/v1/compliance-check",
    complianceCheck(key, { first_name: "Emily", last_name: "Carter", dob: twentyYearsOld(), ssn_last4: "4821", address_zip: "78704" }),
  );
  expect(res.status).toBe(200);
  return (await res.json<{ red_flags: { code: string }[] }>()).red_flags.map((f) => f.code);
};
const patchThresholds = (token: string, body: Record<string, unknown>) => brokerCall("/api/settings/compliance", token, { method: "PATCH", body });

describe("screening thresholds", () => {
  it("a PATCH changes a screen's result and its audit rows list the old and new values; hold below flag is refused, nothing written", async () => {
    const { key, broker } = await settingsOrg();
    expect(await screenedFlags(key)).toEqual([]);
    const res = await patchThresholds(broker, { minimum_age: 21, flag_score: 88 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ minimum_age: 21, flag_score: 88, hold_score: 95, is_default: false, defaults: { minimum_age: 18 } });
    // The screen reads the organization's thresholds where they are kept, its object, not D1's defaults.
    expect(await screenedFlags(key)).toEqual(["dob_under_minimum_age"]);
    expect(await (await brokerCall("/api/settings/compliance", broker)).json()).toMatchObject({ minimum_age: 21, flag_score: 88, is_default: false });

    const rows = (await auditLog(broker)).entries.map((e) => [e.store_id, e.area, e.field, e.old_value, e.new_value]);
    expect(rows.sort()).toEqual(
      [
        [null, "compliance", "flag_score", 85, 88],
        [null, "compliance", "minimum_age", 18, 21],
      ].sort(),
    );
    // In range (85–100), below the flag line set above: refused by the plan, not the schema.
    const refused = await patchThresholds(broker, { hold_score: 86 });
    expect(refused.status).toBe(422);
    expect((await refused.json<{ details: { code: string }[] }>()).details).toEqual([expect.objectContaining({ code: "hold_below_flag" })]);
    expect((await auditLog(broker)).entries).toHaveLength(2);
    expect(await (await brokerCall("/api/settings/compliance", broker)).json()).toMatchObject({ hold_score: 95, flag_score: 88 });
    // Back to the defaults' values: the audit lists it, the screen follows.
    expect((await patchThresholds(broker, { minimum_age: 18 })).status).toBe(200);
    expect(await screenedFlags(key)).toEqual([]);
    expect((await auditLog(broker)).entries).toHaveLength(3);
  });

  it("simultaneous PATCHes all land, each audit row holding the value its change replaced", async () => {
    const { broker } = await settingsOrg();
    const values = [90, 91, 92, 93];
    const results = await Promise.all(values.map((v) => patchThresholds(broker, { hold_score: v })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const last = await auditChainEnd(broker, 95, values);
    expect(await (await brokerCall("/api/settings/compliance", broker)).json()).toMatchObject({ hold_score: last });
  });
});

describe("the morning briefing reads the store's settings", () => {
  it("a GM's briefing names the aged threshold the store set", async () => {
    const { storeId, key, broker } = await settingsOrg();
    expect((await patch(storeId, broker, { aged_threshold_days: 40 })).status).toBe(200);
    const res = await call("/api/v1/morning-briefing", {
      method: "POST",
      key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ role: "gm" }),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain("aged threshold (used 40 days");
  });
});

describe("the trade appraisal reads the store's settings", () => {
  it("its maximum acquisition takes off the pack the store set", async () => {
    const { storeId, key, broker } = await settingsOrg();
    const maxAcquisition = async () => {
      const res = await appraise(key, {
        year: THIS_YEAR - 5,
        make: "Toyota",
        model: "Camry",
        trim: "SE",
        mileage: 60_000,
        condition_notes: "Clean.",
      });
      expect(res.status).toBe(200);
      return (await res.json<AppraisalBody>()).max_acquisition;
    };
    const before = await maxAcquisition();
    expect((await patch(storeId, broker, { pack_used: 650 })).status).toBe(200);
    advancePastEngineCaches();
    // 150 more pack, 150 less to pay.
    expect(await maxAcquisition()).toBe(before - 150);
  });
});
