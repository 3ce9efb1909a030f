import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import * as orgSchema from "../../src/db/org-schema";
import { deleteExpiredRows, RETENTION_RULES } from "../../src/db/queries/retention";
import { explainQueryPlan, TENANT_TABLES, tenantTableScans } from "../../src/db/query-plan";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { deal } from "../helpers/ingest";
import { seedDemoOrgs } from "../helpers/reports";
import { createBrokerToken } from "../helpers/staff";
import { createTestApp } from "../helpers/test-app";

/** A D1 binding that keeps every statement the app binds (SQL and parameters), to explain each afterwards. */
function bindingRecorder(real: D1Database) {
  const statements = new Map<string, unknown[]>();
  const recordOn = (target: D1Database | D1DatabaseSession) => ({
    prepare(sql: string) {
      const statement = target.prepare(sql);
      statements.set(sql, []);
      return new Proxy(statement, {
        get(prepared, property) {
          if (property === "bind")
            return (...params: unknown[]) => {
              statements.set(sql, params);
              return prepared.bind(...params);
            };
          const value = Reflect.get(prepared, property, prepared);
          return typeof value === "function" ? value.bind(prepared) : value;
        },
      });
    },
    batch: <T>(batch: D1PreparedStatement[]) => target.batch<T>(batch),
  });
  const DB = {
    ...recordOn(real),
    exec: (sql: string) => real.exec(sql),
    withSession: (constraint?: D1SessionConstraint) => {
      const session = real.withSession(constraint);
      return { ...recordOn(session), getBookmark: () => session.getBookmark() };
    },
  } as unknown as D1Database;
  return { DB, statements };
}

/**
 * The object's tables that grow with its organization's business: those with `org_id`, but its
 * owner row and its stores (a handful of rows, read whole on purpose).
 */
const OBJECT_TENANT_TABLES: ReadonlySet<string> = new Set(
  (Object.values(orgSchema) as unknown[])
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableConfig(table))
    .filter((config) => config.columns.some((column) => column.name === "org_id"))
    .map((config) => config.name)
    .filter((name) => name !== "storage_owner" && name !== "stores"),
);

/** Every statement the organization's object runs from now on (SQL and parameters), to explain there afterwards. */
async function objectRecorder(orgId: string) {
  const statements = new Map<string, SqlStorageValue[]>();
  const stop = await runInDurableObject(orgStore(env, orgId), (_, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec;
    sql.exec = <T extends Record<string, SqlStorageValue>>(query: string, ...binds: SqlStorageValue[]) => {
      statements.set(query, binds);
      return exec.call<SqlStorage, [string, ...SqlStorageValue[]], SqlStorageCursor<T>>(sql, query, ...binds);
    };
    return () => {
      sql.exec = exec;
    };
  });
  /** Stops recording, then explains each statement recorded. */
  const explainAll = async () => {
    await runInDurableObject(orgStore(env, orgId), () => stop());
    return await runInDurableObject(orgStore(env, orgId), (_, state) =>
      [...statements].map(([sql, binds]) => ({
        sql,
        plan: state.storage.sql.exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...binds).toArray(),
      })),
    );
  };
  return { explainAll };
}

/**
 * Every statement a request runs, on the demo organizations, explained where it ran (D1, or the
 * organization's object): none may read a whole tenant table (docs/retention.md, Indexes), whatever
 * the organization's size.
 */
describe("query plans of the request paths", () => {
  const recorder = bindingRecorder(env.DB);
  const { request } = createTestApp(undefined, { ...env, DB: recorder.DB });
  let key: string;
  let broker: string;

  let inObject: Awaited<ReturnType<typeof objectRecorder>>;

  beforeAll(async () => {
    key = (await seedDemoOrgs()).summitKey;
    broker = (await createBrokerToken("org_summit")).token;
    inObject = await objectRecorder("org_summit");
  }, 30_000);

  const json = (body: unknown) => ({
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Service-API-Key": key },
    body: JSON.stringify(body),
  });
  const get = (path: string) => request(path, { headers: { "X-Service-API-Key": key } });

  it("finds every tenant table, D1's (the directory, the credentials) and the object's", () => {
    for (const table of ["stores", "api_keys", "staff_users", "broker_tokens"]) expect(TENANT_TABLES).toContain(table);
    for (const table of [
      "deals",
      "deal_stips",
      "inventory_units",
      "morning_briefings",
      "compliance_checks",
      "lender_decisions",
      "webhook_deliveries",
    ])
      expect(OBJECT_TENANT_TABLES).toContain(table);
  });

  it("no request-path statement scans a tenant table", async () => {
    const calls: (() => Promise<Response>)[] = [
      () => get("/api/v1/inventory"),
      () => get("/api/v1/inventory?store_id=sto_summit_north&limit=50"),
      () => get("/api/v1/inventory?updated_since=2026-01-01T00:00:00Z&limit=100"),
      () => get("/api/v1/sales-summary"),
      () => get("/api/v1/sales-summary?store_id=sto_summit_north"),
      () => get("/api/v1/sales-summary?store_id=sto_summit_north&updated_since=2026-01-01T00:00:00Z"),
      () => get("/api/v1/inventory-alerts"),
      () => get("/api/v1/inventory-alerts?store_id=sto_summit_south"),
      () => request("/api/v1/morning-briefing", json({ role: "gm" })),
      () => request("/api/v1/morning-briefing", json({ role: "fi_director", store_id: "sto_summit_south" })),
      () => get("/api/v1/market-pulse"),
      () =>
        request("/api/v1/lender-route", json({ beacon: 560, down_payment: 3000, vehicle_price: 20000, vehicle_type: "car", known_issues: ["bk13"] })),
      () => request("/api/v1/stip-check", json({ lender: "Fresh Start Auto Lending", beacon: 548, known_issues: ["bk13"], income_type: "w2" })),
      () => request("/api/v1/gross-calc", json({ purchase_price: 18500, selling_price: 22995, vehicle_type: "suv", days_on_lot: 52 })),
      () =>
        request(
          "/api/v1/deal-coach",
          json({ beacon: 700, vehicle_price: 30000, trade_value: 10000, trade_payoff: 12500, down_payment: 3000, term_months: 60 }),
        ),
      () => request("/api/v1/trade-appraisal", json({ year: 2022, make: "Toyota", model: "RAV4", mileage: 41000, condition_notes: "needs tires" })),
      () =>
        request(
          "/api/v1/compliance-check",
          json({ first_name: "Jane", last_name: "Doe", dob: "1980-01-01", ssn_last4: "1234", address_zip: "78704" }),
        ),
      () => request("/api/v1/webhooks", json({ url: "https://hooks.example.test/a", events: ["deal.stip_alert"] })),
      () => get("/api/v1/webhooks"),
      () => request("/api/public-api/keys", { headers: { Authorization: `Bearer ${broker}` } }),
      () => request("/api/public/stats", { headers: { "CF-Connecting-IP": "198.51.100.7" } }),
      () => request("/api/moat/public", { headers: { "CF-Connecting-IP": "198.51.100.7" } }),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status, await res.clone().text()).toBeLessThan(300);
    }
    const endpoints = (await (await get("/api/v1/webhooks")).json()) as { endpoints: { id: string }[] };
    const endpointId = endpoints.endpoints[0].id;
    expect((await get(`/api/v1/webhooks/${endpointId}/deliveries`)).status).toBe(200);
    expect((await request(`/api/v1/webhooks/${endpointId}/trigger`, json({ event: "deal.stip_alert" }))).status).toBeLessThan(300);
    const check = (await (await request("/api/v1/compliance-check", json({ first_name: "Ann", last_name: "Lee", dob: "1970-02-03" }))).json()) as {
      check_id: string;
    };
    expect((await get(`/api/v1/compliance-checks/${check.check_id}`)).status).toBe(200);
    const brokerJson = (method: string, body: unknown) => ({
      method,
      headers: { Authorization: `Bearer ${broker}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const submitted = deal("QP-1", "sto_summit_north", { stips: [{ stip: "proof_of_income", state: "outstanding" }] });
    for (const body of [
      { deals: [submitted] },
      { deals: [{ ...submitted, status: "funded", stips: [{ stip: "proof_of_income", state: "cleared" }] }] },
    ])
      expect((await request("/api/v1/ingest/deals", brokerJson("POST", body))).status).toBeLessThan(300);
    const created = (await (await request("/api/public-api/keys", brokerJson("POST", { label: "plan", rate_limit: 10 }))).json()) as { id: string };
    expect(
      (await request(`/api/public-api/keys/${created.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${broker}` } })).status,
    ).toBeLessThan(300);

    const scans: string[] = [];
    const lines: string[] = [];
    for (const [sql, params] of recorder.statements) {
      const plan = await explainQueryPlan(env.DB, sql, params);
      lines.push(...plan.map((line) => line.detail));
      for (const scan of tenantTableScans(plan)) scans.push(`${scan}  ←  ${sql}`);
    }
    const objectPlans = await inObject.explainAll();
    expect(objectPlans.length).toBeGreaterThan(0);
    for (const { sql, plan } of objectPlans) {
      lines.push(...plan.map((line) => line.detail));
      for (const scan of tenantTableScans(plan, { sql, tenantTables: OBJECT_TENANT_TABLES })) scans.push(`${scan}  ←  ${sql} (object)`);
    }
    expect(scans).toEqual([]);
    // The reads that grew with the organization (issue 21) use the indexes made for them (migration 0023).
    for (const search of [
      "SEARCH deal_stips USING INDEX deal_stips_org_open_idx (org_id=?)",
      "SEARCH deals USING INDEX deals_org_store_sold_idx (org_id=? AND store_id=? AND sold_on>?)",
      "SEARCH deals USING INDEX deals_org_store_status_idx (org_id=? AND store_id=? AND status=?)",
      "SEARCH lender_decisions USING COVERING INDEX lender_decisions_store_calibration_idx (org_id=? AND store_id=?)",
      "SEARCH inventory_units USING INDEX inventory_org_make_model_idx (org_id=? AND <expr>=? AND <expr>=? AND year>? AND year<?)",
      "SEARCH deals USING INDEX deals_org_make_model_idx (org_id=? AND <expr>=? AND <expr>=? AND sold_on>?)",
      "SEARCH inventory_units USING INDEX inventory_org_vin_idx (org_id=? AND vin=?)",
      "SEARCH sales_monthly USING INDEX sales_monthly_org_month_idx (org_id=?)",
    ])
      expect(lines).toContain(search);
    expect(lines.join("\n")).not.toMatch(/SEARCH deal_stips USING INDEX deal_stips_org_deal_idx \(org_id=\?\)$/m);
  });

  it("each retention rule finds its expired rows by an index, never by reading its whole table", async () => {
    const purging = bindingRecorder(env.DB);
    for (const rule of RETENTION_RULES) await deleteExpiredRows(getDb(purging.DB), rule, new Date(), 500);
    expect(purging.statements.size).toBeGreaterThanOrEqual(RETENTION_RULES.length);
    const scans: string[] = [];
    for (const [sql, params] of purging.statements) {
      const plan = await explainQueryPlan(env.DB, sql, params);
      for (const line of plan) if (/^SCAN (?!CONSTANT ROW)/.test(line.detail)) scans.push(`${line.detail}  ←  ${sql}`);
    }
    expect(scans).toEqual([]);
  });
});
