import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type {
  ComplianceSettingsSchema,
  LenderPanelSchema,
  SettingsAuditListSchema,
  StoreSettingsSchema,
} from "../src/routes/settings/settings.routes";
import type { ErrorBody } from "./helpers/bodies";
import { complianceCheck } from "./helpers/compliance";
import { call, createApiKey, createOrg, createStore } from "./helpers/factories";
import { objectRefuses } from "./helpers/object-sql";
import { createOperatorToken } from "./helpers/operator";
import { rowsInObject } from "./helpers/org-storage";
import { createValuedUnit, daysAgo } from "./helpers/reports";
import { brokerCall, createBrokerToken, createStaffUser, logIn, staffCall } from "./helpers/staff";

type Store = z.infer<typeof StoreSettingsSchema>;
type Panel = z.infer<typeof LenderPanelSchema>;
type Compliance = z.infer<typeof ComplianceSettingsSchema>;
type AuditList = z.infer<typeof SettingsAuditListSchema>;

/** The engines keep settings per isolate for 60 s (docs/settings.md#when-a-change-takes-effect). */
function advancePastEngineCaches() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 61_000);
}
afterEach(() => vi.useRealTimers());

async function newOrgWithBroker() {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  const broker = await createBrokerToken(org.id);
  return { org, store, broker };
}

const auditRows = (orgId: string) =>
  rowsInObject(orgId, "SELECT area, field, old_value, new_value, actor FROM settings_audit WHERE org_id = ? ORDER BY field", orgId);

describe("store settings", () => {
  it("lists and reads every store's settings with the shipped defaults", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const second = await createStore(org.id);
    const list = await brokerCall("/api/settings/stores", broker.token);
    expect(list.status).toBe(200);
    expect(list.headers.get("Cache-Control")).toBe("no-store");
    const body = await list.json<{ count: number; stores: Store[] }>();
    expect(body.stores.map((s) => s.store_id).sort()).toEqual([store.id, second.id].sort());
    const one = await (await brokerCall(`/api/settings/stores/${store.id}`, broker.token)).json<Store>();
    expect(one).toMatchObject({ store_id: store.id, pack_used: 500, aged_threshold_days: 45, aged_threshold_days_new: 90, floorplan_apr_used: 8.5 });
  });

  it("PATCH changes only the fields sent, writes one audit row per changed field in the same batch, and none for a no-op", async () => {
    const { org, store } = await newOrgWithBroker();
    const user = await createStaffUser(org.id);
    const cookie = await logIn(user);
    const res = await staffCall(`/api/settings/stores/${store.id}`, cookie, {
      method: "PATCH",
      body: { aged_threshold_days: 60, pack_used: 650, pack_new: 300 },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ aged_threshold_days: 60, pack_used: 650, pack_new: 300, holding_cost_per_day: 35 });
    // pack_new was sent with its current value: not a change, not audited.
    expect(await auditRows(org.id)).toEqual([
      { area: "store", field: "aged_threshold_days", old_value: "45", new_value: "60", actor: `staff:${user.id}` },
      { area: "store", field: "pack_used", old_value: "500", new_value: "650", actor: `staff:${user.id}` },
    ]);
    const again = await staffCall(`/api/settings/stores/${store.id}`, cookie, { method: "PATCH", body: { aged_threshold_days: 60 } });
    expect(again.status).toBe(200);
    expect(await auditRows(org.id)).toHaveLength(2);
  });

  it("writes nothing when the audit row cannot be written: the change and its row are one batch", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const undo = await objectRefuses(org.id, "settings_audit", "INSERT");
    const res = await brokerCall(`/api/settings/stores/${store.id}`, broker.token, { method: "PATCH", body: { aged_threshold_days: 70 } });
    expect(res.status).toBe(500);
    await undo();
    expect(await (await brokerCall(`/api/settings/stores/${store.id}`, broker.token)).json()).toMatchObject({ aged_threshold_days: 45 });
    expect(await auditRows(org.id)).toEqual([]);
  });

  it("refuses out-of-range values and unknown fields with 422, changing nothing", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    for (const body of [
      { aged_threshold_days: 0 },
      { aged_threshold_days: 366 },
      { pack_used: 5001 },
      { floorplan_apr_new: 31 },
      { aged_days: 30 },
    ]) {
      const res = await brokerCall(`/api/settings/stores/${store.id}`, broker.token, { method: "PATCH", body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const unknown = await (
      await brokerCall(`/api/settings/stores/${store.id}`, broker.token, { method: "PATCH", body: { aged_days: 30 } })
    ).json<ErrorBody>();
    expect(unknown.details?.[0]).toMatchObject({ path: "aged_days", code: "unrecognized_keys" });
    expect(await auditRows(org.id)).toEqual([]);
  });

  it("a PATCH of aged_threshold_days changes GET /api/v1/inventory-alerts once the engines' 60 s copies lapse", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const { key } = await createApiKey(org.id);
    await createValuedUnit(org.id, store.id, {
      stockNumber: "SET-50",
      stockedOn: daysAgo(50),
      cost: 18_000,
      askingPrice: 24_995,
      marketValue: 25_000,
    });
    const agedStock = async () => {
      const res = await call("/api/v1/inventory-alerts", { key });
      expect(res.status).toBe(200);
      return (await res.json<{ alerts: { stock_no: string; alert_type: string }[] }>()).alerts
        .filter((a) => a.alert_type === "aged")
        .map((a) => a.stock_no);
    };
    expect(await agedStock()).toEqual(["SET-50"]);
    const res = await brokerCall(`/api/settings/stores/${store.id}`, broker.token, { method: "PATCH", body: { aged_threshold_days: 60 } });
    expect(res.status).toBe(200);
    advancePastEngineCaches();
    expect(await agedStock()).toEqual([]);
  });
});

describe("lender panel", () => {
  it("PUT replaces the panel by program name or id, atomically with one audit row; GET reads it back", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const put = await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token, {
      method: "PUT",
      body: { programs: ["Fresh Start Auto Lending", "lp_harbor_point_bank", "fresh start auto lending"] },
    });
    expect(put.status).toBe(200);
    const panel = await put.json<Panel>();
    expect(panel.programs.map((p) => p.id)).toEqual(["lp_fresh_start_auto_lending", "lp_harbor_point_bank"]);
    expect(await (await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token)).json()).toEqual(panel);
    expect(await auditRows(org.id)).toEqual([
      {
        area: "lender_panel",
        field: "programs",
        old_value: "[]",
        new_value: '["lp_fresh_start_auto_lending","lp_harbor_point_bank"]',
        actor: `broker:${broker.id}`,
      },
    ]);
    // The same panel again is no change.
    await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token, {
      method: "PUT",
      body: { programs: ["lp_harbor_point_bank", "lp_fresh_start_auto_lending"] },
    });
    expect(await auditRows(org.id)).toHaveLength(1);
  });

  it("the writer's own next lender-route uses the panel it just put, without waiting out the 60 s copies", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const { key } = await createApiKey(org.id);
    const put = (programs: string[]) =>
      brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token, { method: "PUT", body: { programs } });
    const route = async () => {
      const res = await call("/api/v1/lender-route", {
        key,
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          store_id: store.id,
          beacon: 760,
          vehicle_price: 26_000,
          down_payment: 4_000,
          vehicle_type: "car",
          vehicle_year: 2024,
          mileage: 15_000,
        }),
      });
      return (await res.json<{ primary: { lender: string } | null }>()).primary?.lender ?? null;
    };
    expect((await put(["lp_harbor_point_bank"])).status).toBe(200);
    expect(await route()).toBe("Harbor Point Bank");
    // No clock moved: the copy this isolate held was dropped by the write itself.
    expect((await put(["Prairie State Bank Auto Finance"])).status).toBe(200);
    expect(await route()).toBe("Prairie State Bank Auto Finance");
  });

  it("a program not in the matrix is a 422 naming it, and the panel is left as it was", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const res = await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token, {
      method: "PUT",
      body: { programs: ["Harbor Point Bank", "Acme Subprime Express"] },
    });
    expect(res.status).toBe(422);
    const body = await res.json<ErrorBody>();
    expect(body.message).toContain("Acme Subprime Express");
    expect(body.details).toEqual([expect.objectContaining({ path: "programs.1", code: "unknown_lender_program" })]);
    expect((await (await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token)).json<Panel>()).count).toBe(0);
    expect(await auditRows(org.id)).toEqual([]);
  });

  it("the new panel is what POST /api/v1/lender-route ranks over", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const { key } = await createApiKey(org.id);
    await brokerCall(`/api/settings/stores/${store.id}/lender-panel`, broker.token, {
      method: "PUT",
      body: { programs: ["Fresh Start Auto Lending"] },
    });
    const res = await call("/api/v1/lender-route", {
      method: "POST",
      key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ beacon: 560, down_payment: 3000, vehicle_price: 20000, vehicle_type: "car", store_id: store.id }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ panel_size: 1 });
  });
});

describe("compliance thresholds", () => {
  it("GET shows the defaults; PATCH overrides them, audited, and GET shows the override", async () => {
    const { org, broker } = await newOrgWithBroker();
    const before = await (await brokerCall("/api/settings/compliance", broker.token)).json<Compliance>();
    expect(before).toMatchObject({
      hold_score: 95,
      flag_score: 85,
      max_list_age_days: 45,
      minimum_age: 18,
      maximum_age: 110,
      is_default: true,
      updated_at: null,
    });
    const res = await brokerCall("/api/settings/compliance", broker.token, { method: "PATCH", body: { flag_score: 82, minimum_age: 21 } });
    expect(res.status).toBe(200);
    const after = await res.json<Compliance>();
    expect(after).toMatchObject({ hold_score: 95, flag_score: 82, minimum_age: 21, is_default: false, defaults: before.defaults });
    expect(await (await brokerCall("/api/settings/compliance", broker.token)).json()).toEqual(after);
    expect(await auditRows(org.id)).toEqual([
      { area: "compliance", field: "flag_score", old_value: "85", new_value: "82", actor: `broker:${broker.id}` },
      { area: "compliance", field: "minimum_age", old_value: "18", new_value: "21", actor: `broker:${broker.id}` },
    ]);
    // Another organization still has the defaults.
    const other = await newOrgWithBroker();
    expect(await (await brokerCall("/api/settings/compliance", other.broker.token)).json()).toMatchObject({ flag_score: 85, is_default: true });
  });

  it("refuses hold below flag and values outside screening.md's ranges", async () => {
    const { org, broker } = await newOrgWithBroker();
    const below = await brokerCall("/api/settings/compliance", broker.token, { method: "PATCH", body: { flag_score: 92, hold_score: 90 } });
    expect(below.status).toBe(422);
    expect((await below.json<ErrorBody>()).details?.[0]).toMatchObject({ path: "hold_score", code: "hold_below_flag" });
    for (const body of [{ flag_score: 50 }, { hold_score: 101 }, { max_list_age_days: 90 }, { minimum_age: 16 }, { sanctions: false }]) {
      expect((await brokerCall("/api/settings/compliance", broker.token, { method: "PATCH", body })).status, JSON.stringify(body)).toBe(422);
    }
    expect(await auditRows(org.id)).toEqual([]);
  });

  it("a threshold change reaches POST /api/v1/compliance-check (its reported thresholds and red flags) within 60 s", async () => {
    const { org, broker } = await newOrgWithBroker();
    const { key } = await createApiKey(org.id);
    const nineteen = `${new Date().getUTCFullYear() - 19}-01-15`;
    const customer = { first_name: "Emily", last_name: "Carter", dob: nineteen, address_zip: "78704" };
    const check = async () => {
      const res = await call("/api/v1/compliance-check", complianceCheck(key, customer));
      expect(res.status).toBe(200);
      return res.json<{ screening: { flag_threshold: number }; red_flags: { code: string }[] }>();
    };
    const before = await check();
    expect(before.screening.flag_threshold).toBe(85);
    expect(before.red_flags.map((f) => f.code)).not.toContain("dob_under_minimum_age");
    await brokerCall("/api/settings/compliance", broker.token, { method: "PATCH", body: { flag_score: 82, minimum_age: 21 } });
    advancePastEngineCaches();
    const after = await check();
    expect(after.screening.flag_threshold).toBe(82);
    expect(after.red_flags.map((f) => f.code)).toContain("dob_under_minimum_age");
  });
});

describe("audit log", () => {
  it("lists changes newest first, a page at a time with next_cursor, with who made each", async () => {
    const { store, broker } = await newOrgWithBroker();
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    for (const [i, days] of [50, 55, 60].entries()) {
      vi.setSystemTime(t0 + i * 1000);
      await brokerCall(`/api/settings/stores/${store.id}`, broker.token, { method: "PATCH", body: { aged_threshold_days: days } });
    }
    vi.useRealTimers();
    const first = await (await brokerCall("/api/settings/audit?limit=2", broker.token)).json<AuditList>();
    expect(first.entries.map((e) => e.new_value)).toEqual([60, 55]);
    expect(first).toMatchObject({ count: 2, has_more: true });
    expect(first.entries[0]).toMatchObject({
      store_id: store.id,
      area: "store",
      field: "aged_threshold_days",
      old_value: 55,
      actor: `broker:${broker.id}`,
    });
    const second = await (await brokerCall(`/api/settings/audit?limit=2&cursor=${first.next_cursor}`, broker.token)).json<AuditList>();
    expect(second).toMatchObject({ count: 1, has_more: false, next_cursor: null });
    expect(second.entries[0]).toMatchObject({ old_value: 45, new_value: 50 });
  });

  it("refuses a cursor that is not this organization's log", async () => {
    const a = await newOrgWithBroker();
    const b = await newOrgWithBroker();
    for (const days of [50, 55]) {
      await brokerCall(`/api/settings/stores/${a.store.id}`, a.broker.token, { method: "PATCH", body: { aged_threshold_days: days } });
    }
    const page = await (await brokerCall("/api/settings/audit?limit=1", a.broker.token)).json<AuditList>();
    const foreign = await brokerCall(`/api/settings/audit?cursor=${page.next_cursor}`, b.broker.token);
    expect(foreign.status).toBe(422);
    expect((await foreign.json<ErrorBody>()).details?.[0]).toMatchObject({ path: "cursor", code: "cursor_mismatch" });
    expect((await brokerCall("/api/settings/audit?cursor=not-a-cursor", a.broker.token)).status).toBe(422);
  });
});

describe("isolation", () => {
  let a: Awaited<ReturnType<typeof newOrgWithBroker>>;
  let b: Awaited<ReturnType<typeof newOrgWithBroker>>;
  let bCookie: string;
  beforeAll(async () => {
    a = await newOrgWithBroker();
    b = await newOrgWithBroker();
    bCookie = await logIn(await createStaffUser(b.org.id));
    await brokerCall(`/api/settings/stores/${a.store.id}`, a.broker.token, { method: "PATCH", body: { pack_used: 700 } });
    await brokerCall("/api/settings/compliance", a.broker.token, { method: "PATCH", body: { flag_score: 83 } });
  });

  it("another organization's broker or staff gets 404 for every store route of a store not theirs, and changes nothing", async () => {
    const paths = [`/api/settings/stores/${a.store.id}`, `/api/settings/stores/${a.store.id}/lender-panel`];
    for (const path of paths) {
      expect((await brokerCall(path, b.broker.token)).status, path).toBe(404);
      expect((await staffCall(path, bCookie)).status, path).toBe(404);
    }
    expect((await brokerCall(paths[0], b.broker.token, { method: "PATCH", body: { pack_used: 1 } })).status).toBe(404);
    expect((await staffCall(paths[0], bCookie, { method: "PATCH", body: { pack_used: 1 } })).status).toBe(404);
    expect((await brokerCall(paths[1], b.broker.token, { method: "PUT", body: { programs: [] } })).status).toBe(404);
    expect(await (await brokerCall(paths[0], a.broker.token)).json()).toMatchObject({ pack_used: 700 });
    const listed = await (await staffCall("/api/settings/stores", bCookie)).json<{ stores: Store[] }>();
    expect(listed.stores.map((s) => s.store_id)).toEqual([b.store.id]);
  });

  it("never shows another organization's audit rows or compliance override", async () => {
    const audit = await (await staffCall("/api/settings/audit", bCookie)).json<AuditList>();
    expect(audit).toMatchObject({ count: 0, entries: [] });
    expect(await (await brokerCall("/api/settings/compliance", b.broker.token)).json()).toMatchObject({ flag_score: 85, is_default: true });
    expect((await brokerCall("/api/settings/audit", a.broker.token)).status).toBe(200);
  });

  it("needs a staff session or a broker token: an API key is not accepted", async () => {
    const { key } = await createApiKey(a.org.id);
    expect((await call("/api/settings/stores", { key })).status).toBe(401);
    expect((await call("/api/settings/audit")).status).toBe(401);
  });

  it("a cookie-authenticated write from another Origin is refused", async () => {
    const res = await staffCall(`/api/settings/stores/${b.store.id}`, bCookie, {
      method: "PATCH",
      body: { pack_used: 1 },
      headers: { Origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
  });
});

describe("the operator's copy (/api/operator/organizations/{org_id}/settings/…)", () => {
  const operatorPath = (orgId: string, path: string) => `/api/operator/organizations/${orgId}/settings${path}`;

  it("reads and changes an organization's settings with the operator token, audited as the operator, seen by the organization", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const operator = await createOperatorToken();
    const read = await brokerCall(operatorPath(org.id, `/stores/${store.id}`), operator);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ store_id: store.id, aged_threshold_days: 45 });

    const changed = await brokerCall(operatorPath(org.id, `/stores/${store.id}`), operator, { method: "PATCH", body: { aged_threshold_days: 30 } });
    expect(changed.status).toBe(200);
    const thresholds = await brokerCall(operatorPath(org.id, "/compliance"), operator, { method: "PATCH", body: { flag_score: 86 } });
    expect(thresholds.status).toBe(200);

    expect(await (await brokerCall(`/api/settings/stores/${store.id}`, broker.token)).json()).toMatchObject({ aged_threshold_days: 30 });
    const audit = await (await brokerCall("/api/settings/audit", broker.token)).json<AuditList>();
    expect(audit.entries.map((e) => [e.field, e.actor.split(":")[0]])).toEqual([
      ["flag_score", "operator"],
      ["aged_threshold_days", "operator"],
    ]);
    const operatorAudit = await (await brokerCall(operatorPath(org.id, "/audit"), operator)).json<AuditList>();
    expect(operatorAudit.entries).toEqual(audit.entries);
  });

  it("answers 404 for an organization that does not exist or a store of another organization", async () => {
    const a = await newOrgWithBroker();
    const b = await newOrgWithBroker();
    const operator = await createOperatorToken();
    expect((await brokerCall(operatorPath("org_nope", "/stores"), operator)).status).toBe(404);
    expect((await brokerCall(operatorPath(a.org.id, `/stores/${b.store.id}`), operator)).status).toBe(404);
    expect((await brokerCall(operatorPath(a.org.id, `/stores/${b.store.id}`), operator, { method: "PATCH", body: { pack_used: 1 } })).status).toBe(
      404,
    );
    expect(await (await brokerCall(`/api/settings/stores/${b.store.id}`, b.broker.token)).json()).toMatchObject({ pack_used: 500 });
  });

  it("takes only the operator token there, and the operator token is not a dealer credential here", async () => {
    const { org, store, broker } = await newOrgWithBroker();
    const cookie = await logIn(await createStaffUser(org.id));
    const { key } = await createApiKey(org.id);
    const path = operatorPath(org.id, `/stores/${store.id}`);
    expect((await brokerCall(path, broker.token)).status).toBe(401);
    expect((await staffCall(path, cookie)).status).toBe(401);
    expect((await call(path, { key })).status).toBe(401);
    expect((await brokerCall(`/api/settings/stores/${store.id}`, await createOperatorToken())).status).toBe(401);
  });
});
