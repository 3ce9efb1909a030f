import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/credentials/tokens";
import type { ApiKeyListSchema, CreatedApiKeySchema } from "../src/routes/keys/keys.routes";
import { call, createApiKey, createOrg, createStore, createUnit } from "./helpers/factories";
import { brokerCall, createBrokerToken, createStaffUser, logIn, staffCall } from "./helpers/staff";

const KEYS = "/api/public-api/keys";

type CreatedKey = z.infer<typeof CreatedApiKeySchema>;
type KeyList = z.infer<typeof ApiKeyListSchema>;

/** An organization with one unit in stock, a staff member's session and a broker token. */
async function orgWithManagers() {
  const org = await createOrg();
  const store = await createStore(org.id);
  const unit = await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
  const cookie = await logIn(await createStaffUser(org.id));
  const broker = await createBrokerToken(org.id);
  return { org, unit, cookie, broker };
}

function storedKey(keyId: string) {
  return env.DB.prepare("SELECT org_id, created_by, key_hash FROM api_keys WHERE id = ?")
    .bind(keyId)
    .first<{ org_id: string; created_by: string; key_hash: string }>();
}

async function inventoryStockNumbers(key: string) {
  const res = await call("/api/v1/inventory", { key });
  expect(res.status).toBe(200);
  return (await res.json<{ inventory: { stock_number: string }[] }>()).inventory.map((u) => u.stock_number);
}

describe("POST /api/public-api/keys", () => {
  it("creates a key with a staff session; the raw key works on its own organization's data", async () => {
    const { org, unit, cookie } = await orgWithManagers();
    const other = await orgWithManagers();
    const res = await staffCall(KEYS, cookie, { method: "POST", body: { label: "DMS sync", permissions: ["read"], rate_limit: 500 } });
    expect(res.status).toBe(201);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const created = await res.json<CreatedKey>();
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^lak_[0-9A-Za-z]{38}$/),
      key_prefix: created.key.slice(0, 12),
      mode: "live",
      label: "DMS sync",
      permissions: ["read"],
      scopes: null,
      rate_limit: 500,
      created_at: expect.any(String),
    });
    const row = await storedKey(created.id);
    expect(row).toMatchObject({ org_id: org.id, created_by: expect.stringMatching(/^staff:usr_/), key_hash: await sha256Hex(created.key) });
    expect(await inventoryStockNumbers(created.key)).toEqual([unit.stockNumber]);
    expect(await inventoryStockNumbers(created.key)).not.toContain(other.unit.stockNumber);
  });

  it("creates a key with a broker token, in the token's organization, with the defaults", async () => {
    const { org, unit, broker } = await orgWithManagers();
    const res = await brokerCall(KEYS, broker.token, { method: "POST", body: { label: "Broker key", scopes: ["inventory", "lender-route"] } });
    expect(res.status).toBe(201);
    const created = await res.json<CreatedKey>();
    expect(created).toMatchObject({ permissions: ["read"], rate_limit: 100, scopes: ["inventory", "lender-route"] });
    expect(await storedKey(created.id)).toMatchObject({ org_id: org.id, created_by: `broker:${broker.id}` });
    expect(await inventoryStockNumbers(created.key)).toEqual([unit.stockNumber]);
  });

  it('accepts permissions as the single string "read" and stores an array', async () => {
    const { broker } = await orgWithManagers();
    const res = await brokerCall(KEYS, broker.token, { method: "POST", body: { label: "x", permissions: "read" } });
    expect(res.status).toBe(201);
    expect((await res.json<CreatedKey>()).permissions).toEqual(["read"]);
  });

  it("needs credentials: none, an unknown, a malformed or a revoked broker token give 401", async () => {
    const org = await createOrg();
    const revoked = await createBrokerToken(org.id, { revoked: true });
    const body = JSON.stringify({ label: "x" });
    const json = { "Content-Type": "application/json" };
    const attempts = [
      call(KEYS, { method: "POST", headers: json, body }),
      call(KEYS, { method: "POST", headers: { ...json, Authorization: `Bearer dbt_${"A".repeat(40)}` }, body }),
      call(KEYS, { method: "POST", headers: { ...json, Authorization: "Bearer lak_notabrokertoken" }, body }),
      call(KEYS, { method: "POST", headers: { ...json, Authorization: "Basic Zm9vOmJhcg==" }, body }),
      call(KEYS, { method: "POST", headers: { ...json, Authorization: `Bearer ${revoked.token}` }, body }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: "unauthorized" });
    }
    const count = await env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("validates the body: label, rate_limit, scopes and permissions give 422 with details", async () => {
    const { broker } = await orgWithManagers();
    const invalid: [Record<string, unknown>, string][] = [
      [{ label: "" }, "label"],
      [{ label: "   " }, "label"],
      [{ label: "x".repeat(101) }, "label"],
      [{}, "label"],
      [{ label: "x", rate_limit: 0 }, "rate_limit"],
      [{ label: "x", rate_limit: 1_000_001 }, "rate_limit"],
      [{ label: "x", rate_limit: 2.5 }, "rate_limit"],
      [{ label: "x", rate_limit: "100" }, "rate_limit"],
      [{ label: "x", scopes: ["nope"] }, "scopes.0"],
      [{ label: "x", scopes: [] }, "scopes"],
      [{ label: "x", permissions: ["write"] }, "permissions"],
    ];
    for (const [body, path] of invalid) {
      const res = await brokerCall(KEYS, broker.token, { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      const error = await res.json<{ error: string; details: { path: string }[] }>();
      expect(error.error).toBe("validation_error");
      expect(
        error.details.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("accepts the limits' end points: 100 characters, 1 and 1,000,000 a day", async () => {
    const { broker } = await orgWithManagers();
    for (const body of [
      { label: "x".repeat(100), rate_limit: 1 },
      { label: "y", rate_limit: 1_000_000 },
    ]) {
      expect((await brokerCall(KEYS, broker.token, { method: "POST", body })).status).toBe(201);
    }
  });

  it("wants a JSON body from a broker too (400 otherwise)", async () => {
    const { broker } = await orgWithManagers();
    const res = await call(KEYS, {
      method: "POST",
      headers: { Authorization: `Bearer ${broker.token}`, "Content-Type": "text/plain" },
      body: "label=x",
    });
    expect(res.status).toBe(400);
  });
});

describe("GET /api/public-api/keys", () => {
  it("lists the organization's keys newest first, with metadata and today's usage, never the key or its hash", async () => {
    const { cookie, broker } = await orgWithManagers();
    const other = await orgWithManagers();
    const foreign = await createApiKey(other.org.id);
    const first = await (await brokerCall(KEYS, broker.token, { method: "POST", body: { label: "first" } })).json<CreatedKey>();
    const second = await (await staffCall(KEYS, cookie, { method: "POST", body: { label: "second", scopes: ["inventory"] } })).json<CreatedKey>();
    await inventoryStockNumbers(first.key);
    await inventoryStockNumbers(first.key);
    await inventoryStockNumbers(first.key);

    const res = await staffCall(KEYS, cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const text = await res.text();
    expect(text).not.toContain(first.key);
    expect(text).not.toContain(await sha256Hex(first.key));
    expect(text).not.toContain("key_hash");
    const list = JSON.parse(text) as KeyList;
    expect(list.count).toBe(2);
    expect(list.keys.map((k) => k.id)).toEqual([second.id, first.id]);
    expect(list.keys.map((k) => k.id)).not.toContain(foreign.id);
    expect(Object.keys(list.keys[0]).sort()).toEqual(
      [
        "id",
        "key_prefix",
        "mode",
        "label",
        "permissions",
        "scopes",
        "rate_limit",
        "created_at",
        "last_used_at",
        "revoked_at",
        "expires_at",
        "usage_today",
      ].sort(),
    );
    expect(list.keys[0]).toMatchObject({ label: "second", scopes: ["inventory"], usage_today: 0, revoked_at: null });
    expect(list.keys[1]).toMatchObject({ label: "first", key_prefix: first.key_prefix, usage_today: 3, revoked_at: null });

    const viaBroker = await (await brokerCall(KEYS, broker.token)).json<KeyList>();
    expect(viaBroker.keys.map((k) => k.id)).toEqual([second.id, first.id]);
  });

  it("needs credentials", async () => {
    expect((await call(KEYS)).status).toBe(401);
  });
});

describe("DELETE /api/public-api/keys/{id}", () => {
  it("revokes: the key is refused at once, listed as revoked, and revoking again is 204", async () => {
    const { cookie } = await orgWithManagers();
    const created = await (await staffCall(KEYS, cookie, { method: "POST", body: { label: "to revoke" } })).json<CreatedKey>();
    await inventoryStockNumbers(created.key); // the key is now in this isolate's credential cache

    const res = await staffCall(`${KEYS}/${created.id}`, cookie, { method: "DELETE" });
    expect(res.status).toBe(204);
    const refused = await call("/api/v1/inventory", { key: created.key });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: "unauthorized" });

    const listed = (await (await staffCall(KEYS, cookie)).json<KeyList>()).keys.find((k) => k.id === created.id);
    expect(listed?.revoked_at).toEqual(expect.any(String));
    const again = await staffCall(`${KEYS}/${created.id}`, cookie, { method: "DELETE" });
    expect(again.status).toBe(204);
    const relisted = (await (await staffCall(KEYS, cookie)).json<KeyList>()).keys.find((k) => k.id === created.id);
    expect(relisted?.revoked_at).toBe(listed?.revoked_at);
  });

  it("answers 404 for another organization's key and leaves that key working", async () => {
    const { broker } = await orgWithManagers();
    const other = await orgWithManagers();
    const foreign = await createApiKey(other.org.id);
    const res = await brokerCall(`${KEYS}/${foreign.id}`, broker.token, { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
    expect(await inventoryStockNumbers(foreign.key)).toEqual([other.unit.stockNumber]);
    expect((await brokerCall(`${KEYS}/key_doesnotexist`, broker.token, { method: "DELETE" })).status).toBe(404);
  });

  it("lets a broker revoke without an Origin", async () => {
    const { broker } = await orgWithManagers();
    const created = await (await brokerCall(KEYS, broker.token, { method: "POST", body: { label: "b" } })).json<CreatedKey>();
    expect((await brokerCall(`${KEYS}/${created.id}`, broker.token, { method: "DELETE" })).status).toBe(204);
  });
});

describe("scopes", () => {
  it("confine a key to its endpoints: 403 elsewhere", async () => {
    const { broker } = await orgWithManagers();
    const created = await (
      await brokerCall(KEYS, broker.token, { method: "POST", body: { label: "sales only", scopes: ["sales-summary"] } })
    ).json<CreatedKey>();
    const inventory = await call("/api/v1/inventory", { key: created.key });
    expect(inventory.status).toBe(403);
    expect(await inventory.json()).toMatchObject({ error: "forbidden" });
    expect((await call("/api/v1/sales-summary", { key: created.key })).status).toBe(200);
  });
});
