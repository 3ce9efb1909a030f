import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../src/credentials/tokens";
import { getDb } from "../src/db/client";
import { findActiveApiKeyByHash } from "../src/db/queries/credentials";
import type { ApiKeyListSchema, CreatedApiKeySchema, RotatedApiKeySchema } from "../src/routes/keys/keys.routes";
import type { ErrorBody } from "./helpers/bodies";
import { call, createOrg, createStore, createUnit } from "./helpers/factories";
import { brokerCall, createBrokerToken, createStaffUser, logIn, staffCall } from "./helpers/staff";

const KEYS = "/api/public-api/keys";
const HOUR_MS = 3_600_000;

type Rotated = z.infer<typeof RotatedApiKeySchema>;
type KeyList = z.infer<typeof ApiKeyListSchema>;

afterEach(() => vi.useRealTimers());

async function orgWithKey() {
  const org = await createOrg();
  const store = await createStore(org.id);
  await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
  const broker = await createBrokerToken(org.id);
  const created = await brokerCall(KEYS, broker.token, {
    method: "POST",
    body: { label: "DMS sync", permissions: ["read", "ingest"], rate_limit: 250, scopes: ["inventory", "sales-summary"] },
  });
  expect(created.status).toBe(201);
  return { org, broker, old: await created.json<z.infer<typeof CreatedApiKeySchema>>() };
}

const status = async (key: string) => (await call("/api/v1/inventory", { key })).status;

const rotate = (token: string, id: string, body: unknown = {}) => brokerCall(`${KEYS}/${id}/rotate`, token, { method: "POST", body });

describe("POST /api/public-api/keys/{id}/rotate", () => {
  it("answers a new key with the same grants, once, and gives the old key an end; both work until it, then only the new one", async () => {
    const { broker, old } = await orgWithKey();
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const res = await rotate(broker.token, old.id, { overlap_hours: 2 });
    expect(res.status).toBe(201);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const rotated = await res.json<Rotated>();
    expect(rotated).toMatchObject({ label: "DMS sync", permissions: ["read", "ingest"], scopes: ["inventory", "sales-summary"], rate_limit: 250 });
    expect(rotated.id).not.toBe(old.id);
    expect(rotated.key).toMatch(/^lak_/);
    expect(rotated.key).not.toBe(old.key);
    expect(rotated.previous_key).toEqual({ id: old.id, expires_at: new Date(t0 + 2 * HOUR_MS).toISOString() });

    expect(await status(old.key)).toBe(200);
    expect(await status(rotated.key)).toBe(200);
    // The old key's record is now in this isolate's credential cache; its end is checked at each use.
    vi.setSystemTime(t0 + 2 * HOUR_MS - 1);
    expect(await status(old.key)).toBe(200);
    vi.setSystemTime(t0 + 2 * HOUR_MS);
    expect(await status(old.key)).toBe(401);
    expect(await status(rotated.key)).toBe(200);
    // Past the cache's minute the lookup itself no longer finds it.
    vi.setSystemTime(t0 + 2 * HOUR_MS + 61_000);
    expect(await status(old.key)).toBe(401);
  });

  it("the credential lookup itself does not find a key whose end has passed (no cache involved)", async () => {
    const { broker, old } = await orgWithKey();
    const rotated = await (await rotate(broker.token, old.id, { overlap_hours: 1 })).json<Rotated>();
    const hash = await sha256Hex(old.key);
    const end = rotated.previous_key.expires_at;
    expect(await findActiveApiKeyByHash(getDb(env.DB), hash, new Date(Date.parse(end) - 1).toISOString())).toMatchObject({
      id: old.id,
      expiresAt: end,
    });
    expect(await findActiveApiKeyByHash(getDb(env.DB), hash, end)).toBeNull();
  });

  it("defaults to a 24-hour overlap and lists the old key's end; the new key's quota counts from zero", async () => {
    const { broker, old } = await orgWithKey();
    expect(await status(old.key)).toBe(200);
    const before = Date.now();
    const rotated = await (await rotate(broker.token, old.id)).json<Rotated>();
    const end = Date.parse(rotated.previous_key.expires_at);
    expect(end).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
    expect(end).toBeLessThan(Date.now() + 24 * HOUR_MS + 1000);
    const list = await (await brokerCall(KEYS, broker.token)).json<KeyList>();
    const byId = new Map(list.keys.map((k) => [k.id, k]));
    expect(byId.get(old.id)).toMatchObject({ expires_at: rotated.previous_key.expires_at, revoked_at: null, usage_today: 1 });
    expect(byId.get(rotated.id)).toMatchObject({ expires_at: null, usage_today: 0, label: "DMS sync" });
  });

  it("with no overlap the old key is refused at once by this instance", async () => {
    const { broker, old } = await orgWithKey();
    expect(await status(old.key)).toBe(200);
    const rotated = await (await rotate(broker.token, old.id, { overlap_hours: 0 })).json<Rotated>();
    expect(await status(old.key)).toBe(401);
    expect(await status(rotated.key)).toBe(200);
  });

  it("answers 409 conflict for a revoked key or one already rotated, and creates nothing", async () => {
    const { org, broker, old } = await orgWithKey();
    expect((await rotate(broker.token, old.id)).status).toBe(201);
    const again = await rotate(broker.token, old.id);
    expect(again.status).toBe(409);
    expect(await again.json<ErrorBody>()).toMatchObject({ error: "conflict" });

    const fresh = await (await brokerCall(KEYS, broker.token, { method: "POST", body: { label: "to revoke" } })).json<{ id: string }>();
    await brokerCall(`${KEYS}/${fresh.id}`, broker.token, { method: "DELETE" });
    expect((await rotate(broker.token, fresh.id)).status).toBe(409);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(count?.n).toBe(3);
  });

  it("refuses overlaps outside 0–168 hours and unknown fields (422)", async () => {
    const { broker, old } = await orgWithKey();
    for (const body of [{ overlap_hours: -1 }, { overlap_hours: 169 }, { overlap_hours: 1.5 }, { overlap: 2 }]) {
      expect((await rotate(broker.token, old.id, body)).status, JSON.stringify(body)).toBe(422);
    }
  });

  it("works with a staff session under the same CSRF rules as the other key writes", async () => {
    const { org, old } = await orgWithKey();
    const cookie = await logIn(await createStaffUser(org.id));
    const res = await staffCall(`${KEYS}/${old.id}/rotate`, cookie, { method: "POST", body: { overlap_hours: 1 } });
    expect(res.status).toBe(201);
    const stored = await env.DB.prepare("SELECT created_by FROM api_keys WHERE id = ?")
      .bind((await res.json<Rotated>()).id)
      .first<{ created_by: string }>();
    expect(stored?.created_by).toMatch(/^staff:usr_/);
    const foreignOrigin = await staffCall(`${KEYS}/${old.id}/rotate`, cookie, {
      method: "POST",
      body: {},
      headers: { Origin: "https://evil.example" },
    });
    expect(foreignOrigin.status).toBe(403);
  });

  it("another organization's broker or staff gets 404 and the key is left as it was", async () => {
    const { old } = await orgWithKey();
    const stranger = await orgWithKey();
    const strangerCookie = await logIn(await createStaffUser(stranger.org.id));
    expect((await rotate(stranger.broker.token, old.id)).status).toBe(404);
    expect((await staffCall(`${KEYS}/${old.id}/rotate`, strangerCookie, { method: "POST", body: {} })).status).toBe(404);
    const row = await env.DB.prepare("SELECT expires_at FROM api_keys WHERE id = ?").bind(old.id).first<{ expires_at: string | null }>();
    expect(row?.expires_at).toBeNull();
  });
});
