import { describe, expect, it } from "vitest";
import type { ErrorBody } from "./helpers/bodies";
import { call, createApiKey, createLegacyToken, createOrg, createStore } from "./helpers/factories";
import { probeApp } from "./helpers/test-app";

async function errorOf(res: Response) {
  return await res.json<ErrorBody>();
}

describe("key authentication on /api/v1/*", async () => {
  const org = await createOrg();
  await createStore(org.id);

  it("refuses a request without credentials", async () => {
    const res = await call("/api/v1/inventory");
    expect(res.status).toBe(401);
    expect((await errorOf(res)).error).toBe("unauthorized");
  });

  it("refuses a malformed key", async () => {
    const res = await call("/api/v1/inventory", { key: "lak_short" });
    expect(res.status).toBe(401);
  });

  it("refuses a key whose checksum does not match, before any lookup", async () => {
    const { key } = await createApiKey(org.id);
    const lastChar = key.at(-1) === "A" ? "B" : "A";
    const res = await call("/api/v1/inventory", { key: key.slice(0, -1) + lastChar });
    expect(res.status).toBe(401);
  });

  it("refuses a well-formed key that was never issued", async () => {
    const { generateApiKey } = await import("../src/credentials/tokens");
    const res = await call("/api/v1/inventory", { key: generateApiKey() });
    expect(res.status).toBe(401);
  });

  it("refuses a revoked key", async () => {
    const { key } = await createApiKey(org.id, { revoked: true });
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(401);
    expect((await errorOf(res)).message).toMatch(/revoked/);
  });

  it("tells a caller sending a svc_live_ token as X-Service-API-Key to replace it", async () => {
    const { token } = await createLegacyToken(org.id);
    const res = await call("/api/v1/inventory", { key: token });
    expect(res.status).toBe(401);
    expect((await errorOf(res)).message).toMatch(/replaced/);
  });

  it("answers 403 for a valid key whose scopes lack the endpoint", async () => {
    const { key } = await createApiKey(org.id, { scopes: ["sales-summary"] });
    const denied = await call("/api/v1/inventory", { key });
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).error).toBe("forbidden");
    expect((await call("/api/v1/sales-summary", { key })).status).toBe(200);
  });

  it("lets a key without scopes reach every endpoint of its organization", async () => {
    const { key } = await createApiKey(org.id, { scopes: null });
    expect((await call("/api/v1/inventory", { key })).status).toBe(200);
    expect((await call("/api/v1/sales-summary", { key })).status).toBe(200);
  });

  it("never echoes the presented key in an error", async () => {
    const { key } = await createApiKey(org.id, { revoked: true });
    const res = await call("/api/v1/inventory", { key });
    expect(await res.text()).not.toContain(key.slice(4));
  });
});

describe("legacy svc_live_ tokens", async () => {
  const org = await createOrg();
  await createStore(org.id);
  const { token } = await createLegacyToken(org.id);

  it.each(["/api/v1/inventory", "/api/v1/sales-summary"])("are accepted on %s with Deprecation and Sunset headers", async (path) => {
    const res = await call(path, { headers: { "X-Api-Token": token } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Deprecation")).toMatch(/^@\d+$/);
    expect(new Date(res.headers.get("Sunset") ?? "").getTime()).toBeGreaterThan(Date.now());
    expect(res.headers.get("X-Service-RateLimit-Limit")).toBeNull();
  });

  it("are refused on any /api/v1 endpoint outside the two legacy feeds, with a pointer to the right header", async () => {
    const res = await probeApp("market-pulse").request("", { "X-Api-Token": token });
    expect(res.status).toBe(401);
    const body = await errorOf(res);
    expect(body.error).toBe("unauthorized");
    expect(body.message).toMatch(/X-Service-API-Key/);
    const { key } = await createApiKey(org.id);
    expect((await probeApp("market-pulse").request("", { "X-Service-API-Key": key })).status).toBe(200);
  });

  it("are refused outside /api/v1 too", async () => {
    const res = await call("/api/public-api/keys", { headers: { "X-Api-Token": token } });
    expect(res.status).toBe(401);
  });

  it("are refused when unknown", async () => {
    const res = await call("/api/v1/inventory", { headers: { "X-Api-Token": "svc_live_doesnotexist0000000000000000" } });
    expect(res.status).toBe(401);
  });
});
