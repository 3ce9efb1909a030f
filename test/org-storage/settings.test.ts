import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { settingsDigest } from "../../src/db/queries/org-storage";
import { moveToD1, moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { createDeskOrg, post } from "../helpers/deal-desk";
import { call } from "../helpers/factories";
import { createIngestKey, deal, postDeals } from "../helpers/ingest";
import { PLACES, type Place, placeOrganization } from "../helpers/org-storage";
import { createValuedUnit, daysAgo } from "../helpers/reports";
import { brokerCall, createBrokerToken } from "../helpers/staff";

afterEach(() => vi.useRealTimers());

/** The engines keep settings per isolate for 60 s (docs/settings.md#when-a-change-takes-effect). */
function advancePastEngineCaches() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 61_000);
}

/**
 * A desk organization with one aged unit (50 days, the 45-day default threshold), in D1 or moved.
 * Moved, D1's copy of its store settings is scrambled and its store audit rows deleted (a move
 * keeps them for an undo), so a reader that still read D1 would answer wrongly: only the object can answer right.
 */
async function settingsOrg(place: Place) {
  const desk = await createDeskOrg();
  await createValuedUnit(desk.orgId, desk.storeId, {
    stockNumber: "SET-50",
    stockedOn: daysAgo(50),
    cost: 18_000,
    askingPrice: 24_995,
    marketValue: 25_000,
  });
  const broker = await createBrokerToken(desk.orgId);
  await placeOrganization(desk.orgId, place);
  if (place === "object")
    await env.DB.batch([
      env.DB.prepare("UPDATE stores SET pack_used = 4999, aged_threshold_days = 300, holding_cost_per_day = 0 WHERE org_id = ?").bind(desk.orgId),
      env.DB.prepare("DELETE FROM settings_audit WHERE org_id = ? AND area = 'store'").bind(desk.orgId),
    ]);
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

describe.each(PLACES)("store settings, the organization's data in %s", (place) => {
  it("a PATCH changes what the deal desk and the inventory alerts compute, and its audit rows list the old and new values", async () => {
    const { orgId, storeId, key, broker } = await settingsOrg(place);
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

    // A panel change is D1's (the panel has not moved): the log lists it with the store's rows, newest first, paged.
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
    if (place === "object") {
      // D1's scrambled copy untouched: the change is the object's alone.
      const d1 = await env.DB.prepare("SELECT pack_used FROM stores WHERE id = ?").bind(storeId).first<{ pack_used: number }>();
      expect(d1?.pack_used).toBe(4999);
      expect(await orgStore(env, orgId).storeSettings(orgId, storeId)).toMatchObject({ packUsed: 650, agedThresholdDays: 60 });
    }
  });

  it("of two PATCHes naming the same ETag, one lands and the other is refused with 412; an unknown store is 404", async () => {
    const { storeId, broker } = await settingsOrg(place);
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
    const { storeId, broker } = await settingsOrg(place);
    const values = [510, 520, 530, 540];
    const results = await Promise.all(values.map((v) => patch(storeId, broker, { pack_used: v })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // A chain from the default: each row's old value is another row's new one (rows of one moment are listed in id order, so followed by value).
    const next = new Map((await auditLog(broker)).entries.map((e) => [e.old_value as number, e.new_value as number]));
    const chain = [500];
    while (next.has(chain[chain.length - 1])) chain.push(next.get(chain[chain.length - 1]) as number);
    expect(chain.slice(1).sort()).toEqual(values);
    expect(next.size).toBe(values.length);
    expect(await (await brokerCall(`/api/settings/stores/${storeId}`, broker)).json()).toMatchObject({ pack_used: chain.at(-1) });
  });
});

describe("the settings group moves and comes back", () => {
  it("a PATCH during a move waits for the flip and lands once in the object; the undo writes the settings and their audit rows back to D1", async () => {
    const { orgId, storeId, broker } = await settingsOrg("d1");
    expect((await patch(storeId, broker, { pack_used: 550 })).status).toBe(200);
    const [moved, during] = await Promise.all([
      moveToObject(env, orgId),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return patch(storeId, broker, { pack_used: 575, aged_threshold_days: 50 });
      })(),
    ]);
    expect(during.status).toBe(200);
    expect(moved.tables).toMatchObject({ store_settings: { rows: 1 }, settings_audit: { rows: expect.any(Number) } });
    expect(await orgStore(env, orgId).storeSettings(orgId, storeId)).toMatchObject({ packUsed: 575, agedThresholdDays: 50 });
    // Each change audited once, wherever it landed.
    const entries = (await auditLog(broker)).entries.map((e) => [e.field, e.old_value, e.new_value]);
    expect(entries.sort()).toEqual(
      [
        ["aged_threshold_days", 45, 50],
        ["pack_used", 500, 550],
        ["pack_used", 550, 575],
      ].sort(),
    );

    // After the move: a change in the object, then the undo.
    expect((await patch(storeId, broker, { pack_used: 600 })).status).toBe(200);
    const back = await moveToD1(env, orgId);
    expect(back.storage).toBe("d1");
    const row = await env.DB.prepare("SELECT pack_used, aged_threshold_days FROM stores WHERE id = ?").bind(storeId).first();
    expect(row).toEqual({ pack_used: 600, aged_threshold_days: 50 });
    const inD1 = await env.DB.prepare("SELECT field, old_value, new_value FROM settings_audit WHERE org_id = ? ORDER BY changed_at, id")
      .bind(orgId)
      .all();
    expect(inD1.results).toHaveLength(4);
    expect(await settingsDigest(getDb(env.DB), orgId)).toEqual(
      back.tables.settings_audit && { store_settings: back.tables.store_settings, settings_audit: back.tables.settings_audit },
    );
    // Back in D1, a PATCH writes D1 again.
    expect((await patch(storeId, broker, { pack_used: 625 })).status).toBe(200);
    const after = await env.DB.prepare("SELECT pack_used FROM stores WHERE id = ?").bind(storeId).first<{ pack_used: number }>();
    expect(after?.pack_used).toBe(625);
  });

  it("refuses a copy that loses an audit row: 409, the organization stays in D1", async () => {
    const { orgId, storeId, broker } = await settingsOrg("d1");
    expect((await patch(storeId, broker, { pack_used: 550 })).status).toBe(200);
    const real = orgStore(env, orgId);
    const lossy = {
      ...Object.fromEntries(
        [
          "load",
          "loadDeals",
          "loadChecks",
          "loadLenderDecisions",
          "loadWebhooks",
          "loadBriefings",
          "loadStoreFeeds",
          "digest",
          "lenderDigest",
          "settingsDigest",
          "webhooksDigest",
          "briefingsDigest",
          "feedsDigest",
          "setActive",
        ].map((m) => [m, (...args: unknown[]) => (real as unknown as Record<string, (...a: unknown[]) => unknown>)[m](...args)]),
      ),
      loadSettings: (o: string, settings: unknown, audit: unknown[]) => real.loadSettings(o, settings as never, audit.slice(1) as never),
    };
    const ns = { idFromName: (name: string) => env.ORG_STORE.idFromName(name), get: () => lossy } as unknown as Env["ORG_STORE"];
    await expect(moveToObject({ ...env, ORG_STORE: ns }, orgId)).rejects.toMatchObject({ kind: "conflict" });
    const flag = await env.DB.prepare("SELECT storage FROM organizations WHERE id = ?").bind(orgId).first<{ storage: string }>();
    expect(flag?.storage).toBe("d1");
  });
});

describe.each(PLACES)("the morning briefing reads the store's settings where they are kept, the organization's data in %s", (place) => {
  it("a GM's briefing names the aged threshold the store set, not D1's copy", async () => {
    const { storeId, key, broker } = await settingsOrg(place);
    expect((await patch(storeId, broker, { aged_threshold_days: 40 })).status).toBe(200);
    const res = await call("/api/v1/morning-briefing", {
      method: "POST",
      key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ role: "gm" }),
    });
    expect(res.status).toBe(200);
    // Moved, D1's copy says 300 days (scrambled by settingsOrg): only the object's 40 is the store's.
    expect(JSON.stringify(await res.json())).toContain("aged threshold (used 40 days");
  });
});

describe("an object moved before the settings group (object schema version 8)", () => {
  it("takes D1's settings and store audit rows on its first start serving, once, before any call", async () => {
    const { orgId, storeId, key, broker } = await settingsOrg("d1");
    expect((await patch(storeId, broker, { pack_used: 650 })).status).toBe(200);
    await moveToObject(env, orgId);
    const stub = orgStore(env, orgId);
    type Holding = { holdSettings(): Promise<void> };
    await runInDurableObject(stub, async (instance, state) => {
      // As an object moved on version 7 stood: the new columns at their defaults, no audit rows, never held.
      state.storage.sql.exec("UPDATE stores SET pack_used = 500");
      state.storage.sql.exec("DELETE FROM settings_audit");
      await state.storage.delete("settings_held");
      await (instance as unknown as Holding).holdSettings();
      expect(state.storage.sql.exec("SELECT pack_used FROM stores WHERE id = ?", storeId).one().pack_used).toBe(650);
      expect(state.storage.sql.exec("SELECT count(*) AS n FROM settings_audit WHERE field = 'pack_used'").one().n).toBe(1);
      // Once: a later start keeps what the object was told since.
      state.storage.sql.exec("UPDATE stores SET pack_used = 700");
      await (instance as unknown as Holding).holdSettings();
      expect(state.storage.sql.exec("SELECT pack_used FROM stores WHERE id = ?", storeId).one().pack_used).toBe(700);
    });
    advancePastEngineCaches();
    expect(await grossPack(key)).toBe(700);
  });
});
