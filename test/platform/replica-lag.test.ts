import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiKeyCache } from "../../src/credentials/credential-cache";
import { sha256Hex } from "../../src/credentials/tokens";
import { createOrg, createStore, createUnit } from "../helpers/factories";
import { laggingReplica } from "../helpers/lagging-replica";
import { createBrokerToken } from "../helpers/staff";
import { createTestApp } from "../helpers/test-app";

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
  const { request } = createTestApp(undefined, { ...env, DB: lag.DB });
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

  it("a key used on a GET before the replica has it works at once: credentials are read at the primary", async () => {
    await lag.catchUp();
    const created = await broker("/api/public-api/keys", { method: "POST", body: { label: "used at once" } });
    const { id, key } = await created.json<{ id: string; key: string }>();
    expect(await env.LAGGING_REPLICA.prepare("SELECT id FROM api_keys WHERE id = ?").bind(id).first()).toBeNull();
    expect((await inventory(key)).status).toBe(200);
  });

  it("a key revoked while the replica lags is refused on a GET at once where no cached copy holds it", async () => {
    const created = await broker("/api/public-api/keys", { method: "POST", body: { label: "to revoke" } });
    const { id, key } = await created.json<{ id: string; key: string }>();
    await lag.catchUp();
    expect((await inventory(key)).status).toBe(200);
    expect((await broker(`/api/public-api/keys/${id}`, { method: "DELETE" })).status).toBeLessThan(300);
    // The replica still shows the key active; the revoking isolate evicted its cached copy.
    expect(await env.LAGGING_REPLICA.prepare("SELECT revoked_at FROM api_keys WHERE id = ?").bind(id).first("revoked_at")).toBeNull();
    expect((await inventory(key)).status).toBe(401);
    // Another isolate without a cached copy: the same.
    apiKeyCache.evict(await sha256Hex(key));
    expect((await inventory(key)).status).toBe(401);
  });

  it("no bookmark was read in any of these requests: none is carried from one request to the next", () => {
    expect(lag.bookmarksRead()).toBe(0);
  });
});
