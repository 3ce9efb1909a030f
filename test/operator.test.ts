import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createApiKey, createLegacyToken, createOrg, createStore, createUnit } from "./helpers/factories";
import { createOperatorToken } from "./helpers/operator";
import { rowsInObject } from "./helpers/org-storage";
import { brokerCall, createBrokerToken, createStaffUser, logIn, loginRequest, staffCall } from "./helpers/staff";

const operatorCall = (token: string, path: string, init: { method?: string; body?: unknown } = {}) => brokerCall(`/api/operator${path}`, token, init);

async function liveOrg() {
  const org = await createOrg();
  const store = await createStore(org.id);
  await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
  return {
    org,
    key: (await createApiKey(org.id)).key,
    broker: await createBrokerToken(org.id),
    cookie: await logIn(await createStaffUser(org.id)),
  };
}

describe("the operator API", () => {
  it("onboards an organization without SQL: organization, store with the shipped defaults, staff user, broker token → a working key", async () => {
    const operator = await createOperatorToken();
    const id = `org_acme_${Date.now()}`;
    const created = await operatorCall(operator, "/organizations", { method: "POST", body: { id, name: "Acme Motors" } });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ id, name: "Acme Motors", is_sandbox: false, suspended_at: null, expires_at: null });
    expect((await operatorCall(operator, "/organizations", { method: "POST", body: { id, name: "Again" } })).status).toBe(409);

    const store = await operatorCall(operator, `/organizations/${id}/stores`, {
      method: "POST",
      body: { name: "Acme Main", market_zip: "78701", is_primary: true, pack_used: 650 },
    });
    expect(store.status).toBe(201);
    // Settings left out take the column defaults (the shipped figures).
    expect(await store.json()).toMatchObject({
      org_id: id,
      is_primary: true,
      pack_used: 650,
      pack_new: 300,
      aged_threshold_days: 45,
      aged_threshold_days_new: 90,
    });
    const stores = await (await operatorCall(operator, `/organizations/${id}/stores`)).json<{ count: number }>();
    expect(stores.count).toBe(1);

    const email = `gm-${Date.now()}@acme.example`;
    const password = "a-long-staff-password";
    const staff = await operatorCall(operator, `/organizations/${id}/staff-users`, { method: "POST", body: { email, name: "Jordan", password } });
    expect(staff.status).toBe(201);
    const staffText = await staff.text();
    expect(staffText).not.toContain(password);
    expect(staffText).not.toContain("scrypt");
    const cookie = await logIn({ email, password });
    expect((await staffCall("/api/public-api/keys", cookie)).status).toBe(200);
    expect(
      (await operatorCall(operator, `/organizations/${id}/staff-users`, { method: "POST", body: { email, name: "Dup", password } })).status,
    ).toBe(409);

    const issued = await operatorCall(operator, `/organizations/${id}/broker-tokens`, { method: "POST", body: { label: "Acme DMS" } });
    expect(issued.status).toBe(201);
    expect(issued.headers.get("Cache-Control")).toBe("no-store");
    const broker = await issued.json<{ id: string; token: string }>();
    const keyRes = await brokerCall("/api/public-api/keys", broker.token, { method: "POST", body: { label: "first" } });
    expect(keyRes.status).toBe(201);
    const { key } = await keyRes.json<{ key: string }>();
    expect(key).toMatch(/^lak_[0-9A-Za-z]{38}$/);
    expect((await call("/api/v1/inventory", { key })).status).toBe(200);

    const listed = await (await operatorCall(operator, `/organizations/${id}/broker-tokens`)).json<{ broker_tokens: { id: string }[] }>();
    expect(JSON.stringify(listed)).not.toContain(broker.token);
    expect(listed.broker_tokens.map((t) => t.id)).toEqual([broker.id]);
    expect((await operatorCall(operator, `/organizations/${id}/broker-tokens/${broker.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await brokerCall("/api/public-api/keys", broker.token)).status).toBe(401);
    expect((await operatorCall(operator, `/organizations/${id}/broker-tokens/${broker.id}`, { method: "DELETE" })).status).toBe(404);

    const list = await (await operatorCall(operator, "/organizations")).json<{ organizations: { id: string }[] }>();
    expect(list.organizations.map((o) => o.id)).toContain(id);
    expect((await operatorCall(operator, "/organizations/org_nope_nope")).status).toBe(404);
    expect(
      (await operatorCall(operator, "/organizations/org_nope_nope/stores", { method: "POST", body: { name: "x", market_zip: "78701" } })).status,
    ).toBe(404);
  });

  it("a store it creates routes from its first deal: its panel holds every reference program but buy-here-pay-here; a taken id leaves the existing panel alone", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const id = `sto_panel_${Date.now()}`;
    const create = () =>
      operatorCall(operator, `/organizations/${org.id}/stores`, { method: "POST", body: { id, name: "Panel Lot", market_zip: "78701" } });
    expect((await create()).status).toBe(201);
    // The panel is the organization's object's; the programs' types are the matrix's, D1's.
    const { results: programs } = await env.DB.prepare("SELECT id, type FROM lender_programs").all<{ id: string; type: string }>();
    const typeOf = new Map(programs.map((p) => [p.id, p.type]));
    const panelTypes = async () => {
      const ids = await rowsInObject<{ program_id: string }>(org.id, "SELECT program_id FROM store_lender_panel WHERE store_id = ?", id);
      return [...new Set(ids.map((r) => typeOf.get(r.program_id)))].sort();
    };
    expect(await panelTypes()).toEqual(["bank", "captive", "credit_union", "specialty", "subprime"]);
    const { key } = await createApiKey(org.id);
    const route = await call("/api/v1/lender-route", {
      key,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        store_id: id,
        beacon: 720,
        vehicle_price: 24_000,
        down_payment: 3_000,
        vehicle_type: "car",
        vehicle_year: 2023,
        mileage: 20_000,
      }),
    });
    expect(route.status).toBe(200);
    expect((await route.json<{ primary: { lender: string } | null }>()).primary).not.toBeNull();
    const banks = programs.filter((p) => p.type === "bank").map((p) => p.id);
    await rowsInObject(
      org.id,
      "DELETE FROM store_lender_panel WHERE store_id = ? AND program_id NOT IN (SELECT value FROM json_each(?))",
      id,
      JSON.stringify(banks),
    );
    expect((await create()).status).toBe(409);
    expect(await panelTypes()).toEqual(["bank"]);
  });

  it("create-store refuses a setting outside the range the settings PATCH refuses (one schema for both), and creates nothing", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const store = await createStore(org.id);
    const broker = (await createBrokerToken(org.id)).token;
    const outOfRange = [{ pack_used: 50000 }, { holding_high_value_daily_pct: 100 }, { aged_threshold_days: 3650 }];
    for (const setting of outOfRange) {
      const [field] = Object.keys(setting);
      const created = await operatorCall(operator, `/organizations/${org.id}/stores`, {
        method: "POST",
        body: { name: "Out of range", market_zip: "78701", ...setting },
      });
      expect(created.status, field).toBe(422);
      expect(await created.json(), field).toMatchObject({ error: "validation_error", details: [expect.objectContaining({ path: field })] });
      // The settings PATCH answers the same value the same way.
      const patched = await brokerCall(`/api/settings/stores/${store.id}`, broker, { method: "PATCH", body: setting });
      expect(patched.status, field).toBe(422);
    }
    const stores = await (await operatorCall(operator, `/organizations/${org.id}/stores`)).json<{ count: number }>();
    expect(stores.count).toBe(1);
    // The edges of the range are accepted by both.
    const edge = { pack_used: 5000, holding_high_value_daily_pct: 1, aged_threshold_days: 365 };
    expect(
      (await operatorCall(operator, `/organizations/${org.id}/stores`, { method: "POST", body: { name: "Edge", market_zip: "78701", ...edge } }))
        .status,
    ).toBe(201);
    expect((await brokerCall(`/api/settings/stores/${store.id}`, broker, { method: "PATCH", body: edge })).status).toBe(200);
  });

  it("suspends an organization: its key, legacy token, broker token and staff session get 403 organization_suspended; reinstating restores them; another organization is untouched", async () => {
    const operator = await createOperatorToken();
    const target = await liveOrg();
    const other = await liveOrg();
    const legacy = await createLegacyToken(target.org.id);
    const legacyCall = () => call("/api/v1/inventory", { headers: { "X-Api-Token": legacy.token } });
    // Used once first, so the credentials sit in this isolate's credential cache when the suspension lands.
    expect((await call("/api/v1/inventory", { key: target.key })).status).toBe(200);
    expect((await legacyCall()).status).toBe(200);
    expect((await brokerCall("/api/public-api/keys", target.broker.token)).status).toBe(200);

    const suspended = await operatorCall(operator, `/organizations/${target.org.id}/suspend`, { method: "POST" });
    expect(suspended.status).toBe(200);
    expect((await suspended.json<{ suspended_at: string | null }>()).suspended_at).not.toBeNull();
    for (const res of [
      await call("/api/v1/inventory", { key: target.key }),
      await legacyCall(),
      await brokerCall("/api/public-api/keys", target.broker.token),
      await staffCall("/api/public-api/keys", target.cookie),
    ]) {
      expect(res.status).toBe(403);
      expect((await res.json<{ error: string }>()).error).toBe("organization_suspended");
    }
    // A new login is refused too, once the password is right (a wrong one stays a plain 401).
    const user = await createStaffUser(target.org.id);
    const login = await loginRequest(user.email, user.password);
    expect(login.status).toBe(403);
    expect((await loginRequest(user.email, "wrong-password-here")).status).toBe(401);
    expect((await call("/api/v1/inventory", { key: other.key })).status).toBe(200);
    expect((await brokerCall("/api/public-api/keys", other.broker.token)).status).toBe(200);
    expect((await staffCall("/api/public-api/keys", other.cookie)).status).toBe(200);

    expect((await operatorCall(operator, `/organizations/${target.org.id}/reinstate`, { method: "POST" })).status).toBe(200);
    expect((await call("/api/v1/inventory", { key: target.key })).status).toBe(200);
    expect((await legacyCall()).status).toBe(200);
    expect((await brokerCall("/api/public-api/keys", target.broker.token)).status).toBe(200);
  });

  it("operator actions on one organization never touch another's stores or broker tokens", async () => {
    const operator = await createOperatorToken();
    const a = await liveOrg();
    const b = await liveOrg();
    await operatorCall(operator, `/organizations/${a.org.id}/broker-tokens`, { method: "POST", body: { label: "a" } });
    const bTokens = await (await operatorCall(operator, `/organizations/${b.org.id}/broker-tokens`)).json<{ broker_tokens: { id: string }[] }>();
    expect(bTokens.broker_tokens.map((t) => t.id)).toEqual([b.broker.id]);
    // B's token cannot be revoked through A.
    expect((await operatorCall(operator, `/organizations/${a.org.id}/broker-tokens/${b.broker.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await brokerCall("/api/public-api/keys", b.broker.token)).status).toBe(200);
  });
});

describe("operator creates with Idempotency-Key", () => {
  it("replays the first answer (the same broker token) instead of issuing a second", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const issue = () =>
      call(`/api/operator/organizations/${org.id}/broker-tokens`, {
        method: "POST",
        headers: { Authorization: `Bearer ${operator}`, "Content-Type": "application/json", "Idempotency-Key": "issue-once" },
        body: JSON.stringify({ label: "once" }),
      });
    const first = await (await issue()).json<{ id: string; token: string }>();
    const replay = await issue();
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toMatchObject({ id: first.id, token: first.token });
    const listed = await (await operatorCall(operator, `/organizations/${org.id}/broker-tokens`)).json<{ count: number }>();
    expect(listed.count).toBe(1);
  });
});

describe("operator and dealer credentials never stand in for each other", () => {
  it("refuses every dealer credential, none, and a revoked operator token on /api/operator (401)", async () => {
    const dealer = await liveOrg();
    const revoked = await createOperatorToken({ revoked: true });
    const attempts = [
      await call("/api/operator/organizations"),
      await call("/api/operator/organizations", { key: dealer.key }),
      await call("/api/operator/organizations", { headers: { Authorization: `Bearer ${dealer.key}` } }),
      await brokerCall("/api/operator/organizations", dealer.broker.token),
      await staffCall("/api/operator/organizations", dealer.cookie),
      await brokerCall("/api/operator/organizations", revoked),
    ];
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it("refuses an operator token as X-Service-API-Key and on key management", async () => {
    const operator = await createOperatorToken();
    expect((await call("/api/v1/inventory", { key: operator })).status).toBe(401);
    expect((await brokerCall("/api/public-api/keys", operator)).status).toBe(401);
    expect((await brokerCall("/api/public-api/keys", operator, { method: "POST", body: { label: "x" } })).status).toBe(401);
    expect(
      (
        await call("/api/v1/ingest/deals", {
          method: "POST",
          headers: { Authorization: `Bearer ${operator}`, "Content-Type": "application/json" },
          body: "[]",
        })
      ).status,
    ).toBe(401);
  });
});
