import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DAY_MS } from "../src/engines/dates";
import { nextResetMs } from "../src/engines/quota/policy";
import { IN_STANDING } from "../src/engines/quota/standing";
import { call, createApiKey, createLegacyToken, createOrg, createStore, createUnit } from "./helpers/factories";
import { probeApp } from "./helpers/test-app";

const counter = (keyId: string) => env.QUOTA.get(env.QUOTA.idFromName(keyId));

const usedToday = async (keyId: string) => (await counter(keyId).usage(Date.now())).used;

const statuses = (responses: Response[]) => {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
};

async function keyWithInventory(dailyLimit: number, scopes?: string[]) {
  const org = await createOrg();
  const store = await createStore(org.id);
  await createUnit(org.id, store.id, { stockedOn: "2026-10-01" });
  return { org, ...(await createApiKey(org.id, { dailyLimit, scopes })) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("daily quota on /api/v1/*", () => {
  it("answers every metered call with the limit, what remains and the next midnight UTC, readable from browsers", async () => {
    const { key } = await keyWithInventory(5);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call("/api/v1/inventory", { key, headers: { Origin: "https://dealer.example" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Service-RateLimit-Limit")).toBe("5");
      expect(Number(res.headers.get("X-Service-RateLimit-Reset"))).toBe(nextResetMs(Date.now()) / 1000);
      const exposed = res.headers.get("Access-Control-Expose-Headers")?.split(/,\s*/) ?? [];
      expect(exposed).toEqual(
        expect.arrayContaining(["X-Service-RateLimit-Limit", "X-Service-RateLimit-Remaining", "X-Service-RateLimit-Reset", "Retry-After"]),
      );
      remaining.push(res.headers.get("X-Service-RateLimit-Remaining") ?? "");
    }
    expect(remaining).toEqual(["4", "3", "2"]);
  });

  it("admits exactly the limit out of many simultaneous requests, and the refusals are not counted", async () => {
    const { id, key } = await keyWithInventory(100);
    const responses = await Promise.all(Array.from({ length: 150 }, () => call("/api/v1/inventory", { key })));
    expect(statuses(responses)).toEqual({ 200: 100, 429: 50 });
    expect(await usedToday(id)).toBe(100);
    expect((await call("/api/v1/inventory", { key })).status).toBe(429);
    expect(await usedToday(id)).toBe(100);
  });

  it("never admits more than the limit while leasing blocks of a large quota", async () => {
    const { id, key } = await keyWithInventory(300);
    const responses = await Promise.all(Array.from({ length: 400 }, () => call("/api/v1/inventory", { key })));
    expect(statuses(responses)).toEqual({ 200: 300, 429: 100 });
    expect(await usedToday(id)).toBe(300);
  });

  it("refuses past the limit with the contract's 429 body, Retry-After and the rate-limit headers", async () => {
    const { key } = await keyWithInventory(2);
    await call("/api/v1/inventory", { key });
    await call("/api/v1/inventory", { key });
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(429);
    const resetAtMs = nextResetMs(Date.now());
    const body = await res.json<Record<string, unknown>>();
    expect(body).toEqual({
      error: "daily_rate_limit_reached",
      message: expect.stringMatching(/^daily rate limit reached: /),
      request_id: res.headers.get("X-Request-Id"),
      reset_at: new Date(resetAtMs).toISOString(),
      limit: 2,
      used: 2,
    });
    expect(body.reset_at).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    // The message says when the quota comes back and how to get a larger one.
    expect(body.message).toContain(`resets at ${body.reset_at}`);
    expect(body.message).toContain("its 2 calls");
    expect(body.message).toContain("rate_limit (POST /api/public-api/keys)");
    const retryAfter = Number(res.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - (resetAtMs - Date.now()) / 1000)).toBeLessThan(5);
    expect(res.headers.get("X-Service-RateLimit-Limit")).toBe("2");
    expect(res.headers.get("X-Service-RateLimit-Remaining")).toBe("0");
    expect(res.headers.get("X-Service-RateLimit-Reset")).toBe(String(resetAtMs / 1000));
  });

  it("does not count requests refused with 401 or 403", async () => {
    const { id, key } = await keyWithInventory(10, ["sales-summary"]);
    expect((await call("/api/v1/inventory", { key })).status).toBe(403);
    const revoked = await createApiKey((await createOrg()).id, { revoked: true, dailyLimit: 10 });
    expect((await call("/api/v1/inventory", { key: revoked.key })).status).toBe(401);
    expect(await usedToday(id)).toBe(0);
    expect(await usedToday(revoked.id)).toBe(0);
    const allowed = await call("/api/v1/sales-summary", { key });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("X-Service-RateLimit-Remaining")).toBe("9");
  });

  it("counts an authenticated request that then fails validation, and gives it the rate-limit headers", async () => {
    const { id, key } = await keyWithInventory(10);
    // No /api/v1 route takes input yet, so a router wired like the real ones stands in for one that does.
    const res = await probeApp("inventory").request("?n=abc", { "X-Service-API-Key": key });
    expect(res.status).toBe(422);
    expect(res.headers.get("X-Service-RateLimit-Remaining")).toBe("9");
    expect(res.headers.get("X-Service-RateLimit-Limit")).toBe("10");
    expect(await usedToday(id)).toBe(1);
  });

  it("does not meter legacy svc_live_ tokens", async () => {
    const org = await createOrg();
    await createStore(org.id);
    const { token } = await createLegacyToken(org.id);
    const res = await call("/api/v1/inventory", { headers: { "X-Api-Token": token } });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Service-RateLimit-Limit")).toBeNull();
    expect(res.headers.get("X-Service-RateLimit-Remaining")).toBeNull();
  });
});

describe("QuotaCounter", () => {
  it("starts the count again at 00:00 UTC", async () => {
    const { id } = await createApiKey((await createOrg()).id, { dailyLimit: 3 });
    const midnight = Date.UTC(2031, 0, 1);
    const before = midnight - 1;
    const grants = [];
    for (let i = 0; i < 4; i++) grants.push((await counter(id).acquire(3, before, 1)).granted);
    expect(grants).toEqual([1, 1, 1, 0]);
    expect(await counter(id).usage(before)).toEqual({ used: 3, limit: 3, resetAtMs: midnight });
    expect(await counter(id).acquire(3, midnight, 1)).toEqual({ granted: 1, used: 1, limit: 3, resetAtMs: midnight + DAY_MS, standing: IN_STANDING });
    expect(await counter(id).usage(midnight + 1)).toEqual({ used: 1, limit: 3, resetAtMs: midnight + DAY_MS });
  });

  it("says a key's end and its organization's suspension in every answer, and grants a refused key nothing", async () => {
    const { id } = await createApiKey((await createOrg()).id, { dailyLimit: 1_000 });
    const noon = Date.UTC(2031, 0, 1, 12);
    await counter(id).end(noon + 1_000, "rotated");
    // A revocation during the overlap brings the end forward; a later end told after it changes nothing.
    await counter(id).end(noon + 500, "revoked");
    await counter(id).end(noon + 2_000, "rotated");
    const before = await counter(id).acquire(1_000, noon, 1);
    expect(before).toMatchObject({ granted: 1, used: 1, standing: { end: { atMs: noon + 500, reason: "revoked" }, suspendedAt: null } });
    expect(await counter(id).acquire(1_000, noon + 500, 5)).toMatchObject({ granted: 0, used: 1 });

    const other = (await createApiKey((await createOrg()).id, { dailyLimit: 1_000 })).id;
    await counter(other).setSuspended("2031-01-01T11:00:00.000Z");
    expect(await counter(other).acquire(1_000, noon, 1)).toMatchObject({
      granted: 0,
      used: 0,
      standing: { suspendedAt: "2031-01-01T11:00:00.000Z" },
    });
    await counter(other).setSuspended(null);
    expect(await counter(other).acquire(1_000, noon, 1)).toMatchObject({ granted: 1, used: 1, standing: IN_STANDING });
  });

  it("caps a lease by the policy, not by what was asked for", async () => {
    const { id } = await createApiKey((await createOrg()).id, { dailyLimit: 1_000_000 });
    const grant = await counter(id).acquire(1_000_000, Date.now(), 10_000);
    expect(grant.granted).toBe(200);
    expect(grant.used).toBe(200);
  });
});

describe("when the quota counter cannot be reached", () => {
  const failingNamespace = (error: Error) =>
    vi.spyOn(env.QUOTA, "get").mockImplementation(
      () =>
        ({
          acquire: () => Promise.reject(error),
        }) as unknown as ReturnType<typeof env.QUOTA.get>,
    );

  it("retries once, then serves the request without a Remaining figure and logs the decision without the key", async () => {
    const { id, key } = await keyWithInventory(10);
    const get = failingNamespace(Object.assign(new Error("Network connection lost."), { retryable: true }));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(200);
    expect(get).toHaveBeenCalledTimes(2);
    expect(res.headers.get("X-Service-RateLimit-Limit")).toBe("10");
    expect(res.headers.get("X-Service-RateLimit-Reset")).toBe(String(nextResetMs(Date.now()) / 1000));
    expect(res.headers.get("X-Service-RateLimit-Remaining")).toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
    const logged = String(warn.mock.calls[0][0]);
    expect(JSON.parse(logged)).toMatchObject({ event: "quota_counter_unavailable", decision: "fail_open", key_id: id });
    expect(logged).not.toContain(key);
  });

  it("does not retry an overloaded counter", async () => {
    const { key } = await keyWithInventory(10);
    const get = failingNamespace(Object.assign(new Error("Durable Object is overloaded."), { overloaded: true, retryable: true }));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(200);
    expect(get).toHaveBeenCalledTimes(1);
  });

  it("does not retry an error the runtime does not mark retryable", async () => {
    const { key } = await keyWithInventory(10);
    const get = failingNamespace(new Error("storage operation failed"));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(200);
    expect(get).toHaveBeenCalledTimes(1);
  });

  it("counts the request when the retry reaches the counter", async () => {
    const { id, key } = await keyWithInventory(10);
    const real = env.QUOTA.get.bind(env.QUOTA);
    const get = vi.spyOn(env.QUOTA, "get");
    get.mockImplementationOnce(
      () => ({ acquire: () => Promise.reject(Object.assign(new Error("transient"), { retryable: true })) }) as unknown as ReturnType<typeof real>,
    );
    get.mockImplementation(real);
    const res = await call("/api/v1/inventory", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Service-RateLimit-Remaining")).toBe("9");
    expect(await usedToday(id)).toBe(1);
  });
});
