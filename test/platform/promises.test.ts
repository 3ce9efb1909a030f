import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BROKER_TOKEN_PREFIX, generateToken, sha256Hex } from "../../src/credentials/tokens";
import type { OrganizationStore } from "../../src/durable-objects/org-storage";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { FEED_MAX_AGE_SECONDS } from "../../src/routes/feeds/feeds.service";
import { recordingD1 } from "../helpers/d1-recorder";
import { createApiKey, createOrg, createStore, createUnit } from "../helpers/factories";
import { copyingThrough } from "../helpers/org-storage";
import { createBrokerToken } from "../helpers/staff";
import { countingRateLimiter, createTestApp } from "../helpers/test-app";

/** README promises that no other test file holds the code to (docs/promises.md lists them all). */

afterEach(() => vi.useRealTimers());

/**
 * A credential revoked by another instance, i.e. straight in D1 so this instance's cache is not
 * evicted: still served until the cached copy's 60 s are up, refused from then on.
 */
async function expectRefusedOnceTheCachedCopyLapses(status: () => Promise<number>, revokeInD1: (at: string) => Promise<unknown>) {
  vi.useFakeTimers({ toFake: ["Date"] });
  const t0 = Date.now();
  expect(await status()).toBe(200);
  await revokeInD1(new Date(t0).toISOString());
  vi.setSystemTime(t0 + 59_999);
  expect(await status()).toBe(200);
  vi.setSystemTime(t0 + 60_000);
  expect(await status()).toBe(401);
}

describe("README: a feed may be up to 10 s old", () => {
  it("answers repeat reads from memory for 10 s, then reads the organization's storage again", async () => {
    expect(FEED_MAX_AGE_SECONDS).toBe(10);
    const org = await createOrg();
    const store = await createStore(org.id);
    await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
    const { key } = await createApiKey(org.id);
    // The organization is in its object: a read of its inventory is one call there, and none to D1's units.
    const d1 = recordingD1();
    let objectReads = 0;
    const real = orgStore(env, org.id);
    const counted = copyingThrough(real, {
      inventoryPage: (...args: Parameters<typeof real.inventoryPage>) => {
        objectReads++;
        return real.inventoryPage(...args);
      },
    } as unknown as Partial<OrganizationStore>);
    const { request } = createTestApp(undefined, { ...env, DB: d1.DB, ORG_STORE: counted });
    const inventoryReads = async () => {
      d1.clear();
      objectReads = 0;
      expect((await request("/api/v1/inventory", { headers: { "X-Service-API-Key": key } })).status).toBe(200);
      expect(d1.statements.filter((s) => s.sql.includes('"inventory_units"'))).toEqual([]);
      return objectReads;
    };
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    expect(await inventoryReads()).toBe(1);
    vi.setSystemTime(t0 + FEED_MAX_AGE_SECONDS * 1000 - 1);
    expect(await inventoryReads()).toBe(0);
    vi.setSystemTime(t0 + FEED_MAX_AGE_SECONDS * 1000);
    expect(await inventoryReads()).toBe(1);
  });
});

describe("README / OpenAPI: a revoked key is refused everywhere within 60 seconds", () => {
  it("an instance that did not revoke it stops accepting it when its cached copy lapses", async () => {
    const org = await createOrg();
    await createStore(org.id);
    const { id, key } = await createApiKey(org.id);
    const { request } = createTestApp(undefined, env);
    const status = async () => (await request("/api/v1/inventory", { headers: { "X-Service-API-Key": key } })).status;
    await expectRefusedOnceTheCachedCopyLapses(status, (at) => env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(at, id).run());
  });
});

describe("README / docs/consistency.md: broker tokens are checked at most once a minute per instance", () => {
  const storesOf = (request: ReturnType<typeof createTestApp>["request"], token: string) =>
    request("/api/settings/stores", { headers: { Authorization: `Bearer ${token}` } });

  it("an instance that did not revoke it (npm run broker-token -- revoke writes D1 directly) refuses it when its cached copy lapses", async () => {
    const org = await createOrg();
    await createStore(org.id);
    const { id, token } = await createBrokerToken(org.id);
    const { request } = createTestApp(undefined, env);
    const status = async () => (await storesOf(request, token)).status;
    await expectRefusedOnceTheCachedCopyLapses(status, (at) =>
      env.DB.prepare("UPDATE broker_tokens SET revoked_at = ? WHERE id = ?").bind(at, id).run(),
    );
  });

  it("an unknown token is never cached: it works at once when it is issued, and each token reads its own organization", async () => {
    const [a, b] = [await createOrg(), await createOrg()];
    const [storeA, storeB] = [await createStore(a.id), await createStore(b.id)];
    const { token: tokenB } = await createBrokerToken(b.id);
    const { request } = createTestApp(undefined, env);
    const token = generateToken(BROKER_TOKEN_PREFIX);
    expect((await storesOf(request, token)).status).toBe(401);
    expect((await storesOf(request, token)).status).toBe(401);
    await env.DB.prepare("INSERT INTO broker_tokens (id, org_id, token_hash, label) VALUES (?, ?, ?, 'issued after a miss')")
      .bind(`brk_${crypto.randomUUID().slice(0, 8)}`, a.id, await sha256Hex(token))
      .run();
    for (let round = 0; round < 2; round++) {
      const [ownA, ownB] = [await storesOf(request, token), await storesOf(request, tokenB)];
      expect((await ownA.json<{ stores: { store_id: string }[] }>()).stores.map((s) => s.store_id)).toEqual([storeA.id]);
      expect((await ownB.json<{ stores: { store_id: string }[] }>()).stores.map((s) => s.store_id)).toEqual([storeB.id]);
    }
    const other = await request(`/api/settings/stores/${storeB.id}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(other.status).toBe(404);
  });
});

describe("README: login attempts are capped per client address", () => {
  it("counts attempts per CF-Connecting-IP and answers 429 rate_limited with Retry-After once over", async () => {
    const limiter = countingRateLimiter(3);
    const counts = limiter.counts;
    const { request } = createTestApp(undefined, { ...env, PUBLIC_RATE_LIMITER: limiter.binding });
    const attempt = (ip: string) =>
      request("/api/auth/login", { method: "POST", headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip }, body: "{}" });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt("198.51.100.90")).status);
    expect(statuses).toEqual([422, 422, 422, 429]);
    const limited = await attempt("198.51.100.90");
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(await limited.json()).toMatchObject({ error: "rate_limited" });
    expect((await attempt("198.51.100.91")).status).toBe(422);
    expect([...counts.keys()].sort()).toEqual(["login:198.51.100.90", "login:198.51.100.91"]);
  });
});
