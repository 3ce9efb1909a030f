import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { apiKeyCache, REVOCATION_WINDOW_MS } from "../../src/credentials/credential-cache";
import { sha256Hex } from "../../src/credentials/tokens";
import { v1Route } from "../../src/http/v1-chain";
import { createOrg, createStore, createUnit } from "../helpers/factories";
import { laggingReplica } from "../helpers/lagging-replica";
import { createOperatorToken } from "../helpers/operator";
import { createBrokerToken } from "../helpers/staff";
import { createTestApp } from "../helpers/test-app";

afterEach(() => {
  vi.useRealTimers();
});

/**
 * D1 read replica lag against docs/consistency.md: a replica that has not yet seen the latest
 * writes (test/helpers/lagging-replica.ts; Miniflare itself has no replicas, see docs/reliability.md).
 */
describe("D1 read replica lag", async () => {
  const org = await createOrg();
  const store = await createStore(org.id);
  await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
  const { token } = await createBrokerToken(org.id);
  const lag = await laggingReplica();
  /** Requests whose handler ran: a refused key must be refused before it. */
  let handled = 0;
  const { request } = createTestApp(
    (app) =>
      app.openapi(
        v1Route({
          endpoint: "inventory",
          reads: "nearest-replica",
          method: "get",
          path: "/api/v1/probe-handled",
          responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } },
        }),
        (c) => {
          handled++;
          return c.json({}, 200);
        },
      ),
    { ...env, DB: lag.DB },
  );
  const broker = (path: string, init: { method?: string; body?: unknown } = {}) =>
    request(path, {
      method: init.method ?? "GET",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.60" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const inventory = (key: string) => request("/api/v1/inventory", { headers: { "X-Service-API-Key": key, "CF-Connecting-IP": "198.51.100.61" } });

  it("a key created while the replica lags is in the key list at once (key management reads the primary)", async () => {
    const created = await broker("/api/public-api/keys", { method: "POST", body: { label: "during lag" } });
    expect(created.status).toBe(201);
    const { id } = await created.json<{ id: string }>();
    const listed = await (await broker("/api/public-api/keys")).json<{ keys: { id: string }[] }>();
    expect(listed.keys.map((k) => k.id)).toContain(id);
    // The replica really lags: it has not got the key.
    expect(await env.LAGGING_REPLICA.prepare("SELECT id FROM api_keys WHERE id = ?").bind(id).first()).toBeNull();
  });

  const probe = (key: string) => request("/api/v1/probe-handled", { headers: { "X-Service-API-Key": key, "CF-Connecting-IP": "198.51.100.62" } });
  const replicaRevokedAt = (id: string) => env.LAGGING_REPLICA.prepare("SELECT revoked_at FROM api_keys WHERE id = ?").bind(id).first("revoked_at");
  const replicaHas = async (id: string) => (await env.LAGGING_REPLICA.prepare("SELECT id FROM api_keys WHERE id = ?").bind(id).first()) !== null;
  /** A key made through the API and replicated: the replica says it is active. */
  async function replicatedKey(label: string) {
    const created = await broker("/api/public-api/keys", { method: "POST", body: { label, rate_limit: 1_000_000 } });
    const made = await created.json<{ id: string; key: string }>();
    await lag.catchUp();
    return made;
  }
  /** What another instance's DELETE does (src/routes/keys/keys.service.ts), without this instance's cache or lease hearing of it. */
  async function revokeElsewhere(id: string, atMs: number) {
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date(atMs).toISOString(), id).run();
    await env.QUOTA.get(env.QUOTA.idFromName(id)).end(atMs, "revoked");
  }

  it("a key used on a GET before the replica has it works at once: a key the replica does not know is read at the primary", async () => {
    await lag.catchUp();
    const created = await broker("/api/public-api/keys", { method: "POST", body: { label: "used at once" } });
    const { id, key } = await created.json<{ id: string; key: string }>();
    expect(await env.LAGGING_REPLICA.prepare("SELECT id FROM api_keys WHERE id = ?").bind(id).first()).toBeNull();
    expect((await inventory(key)).status).toBe(200);
  });

  it("a key revoked while the replica lags is refused on a GET at once where no cached copy holds it", async () => {
    const created = await broker("/api/public-api/keys", { method: "POST", body: { label: "to revoke", rate_limit: 1_000_000 } });
    const { id, key } = await created.json<{ id: string; key: string }>();
    await lag.catchUp();
    // Enough calls for this isolate to hold leased requests of the key (the clock held, so each lease lasts under a second and the next doubles).
    vi.useFakeTimers({ toFake: ["Date"] });
    for (let i = 0; i < 6; i++) expect((await inventory(key)).status).toBe(200);
    expect((await broker(`/api/public-api/keys/${id}`, { method: "DELETE" })).status).toBeLessThan(300);
    // The replica still shows the key active; the revoking isolate evicted its cached copy and dropped its lease.
    expect(await env.LAGGING_REPLICA.prepare("SELECT revoked_at FROM api_keys WHERE id = ?").bind(id).first("revoked_at")).toBeNull();
    expect((await inventory(key)).status).toBe(401);
    // Another isolate without a cached copy: the same, told by the key's quota counter.
    apiKeyCache.evict(await sha256Hex(key));
    expect((await inventory(key)).status).toBe(401);
  });

  it("a revoked key's first call on a fresh instance is refused by its quota counter, before the handler, while the replica still says active", async () => {
    const { id, key } = await replicatedKey("revoked elsewhere");
    await revokeElsewhere(id, Date.now());
    expect(await replicaRevokedAt(id)).toBeNull();
    const before = handled;
    const res = await probe(key);
    expect(res.status).toBe(401);
    expect((await res.json<{ message: string }>()).message).toBe("This API key is unknown or has been revoked.");
    expect(handled).toBe(before);
    // Until the replica catches up the record this instance caches says active; the counter's answer, kept with the lease, still refuses.
    expect((await probe(key)).status).toBe(401);
    expect(handled).toBe(before);
  });

  it("a warm instance serving a key from its cache and lease refuses it within 60 s of a revocation elsewhere, the replica still lagging", async () => {
    const { id, key } = await replicatedKey("warm revoked elsewhere");
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) expect((await probe(key)).status).toBe(200);
    await revokeElsewhere(id, t0);
    vi.setSystemTime(t0 + REVOCATION_WINDOW_MS - 1);
    // Within the minute this instance may still serve it (cached record, tokens held); from the minute on it may not.
    await probe(key);
    vi.setSystemTime(t0 + REVOCATION_WINDOW_MS);
    expect(await replicaRevokedAt(id)).toBeNull();
    const before = handled;
    expect((await probe(key)).status).toBe(401);
    expect(handled).toBe(before);
  });

  it("an organization suspended through the operator API is refused on a fresh instance while the replica lags, and served again once reinstated", async () => {
    const suspendedOrg = await createOrg();
    const { token: orgBroker } = await createBrokerToken(suspendedOrg.id);
    const created = await request("/api/public-api/keys", {
      method: "POST",
      headers: { Authorization: `Bearer ${orgBroker}`, "Content-Type": "application/json" },
      body: JSON.stringify({ label: "suspended org" }),
    });
    const { id, key } = await created.json<{ id: string; key: string }>();
    await lag.catchUp();
    const operator = await createOperatorToken();
    const operatorPost = (path: string) =>
      request(`/api/operator/organizations/${suspendedOrg.id}/${path}`, { method: "POST", headers: { Authorization: `Bearer ${operator}` } });
    expect((await operatorPost("suspend")).status).toBe(200);
    apiKeyCache.evict(await sha256Hex(key));
    expect(await replicaHas(id)).toBe(true);
    const refused = await probe(key);
    expect(refused.status).toBe(403);
    expect((await refused.json<{ error: string }>()).error).toBe("organization_suspended");
    expect((await operatorPost("reinstate")).status).toBe(200);
    apiKeyCache.evict(await sha256Hex(key));
    expect((await probe(key)).status).toBe(200);
  });

  it("no bookmark was read in any of these requests: none is carried from one request to the next", () => {
    expect(lag.bookmarksRead()).toBe(0);
  });
});
