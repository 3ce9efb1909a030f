import { env } from "cloudflare:workers";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { version } from "../package.json";
import { call } from "./helpers/factories";
import { createTestApp } from "./helpers/test-app";

describe("GET /health", () => {
  it("says the service is up, which release answers, its clock and that D1 answers; never cached", async () => {
    const before = Date.now();
    const res = await call("/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = await res.json<{ status: string; version: string; time: string; checks: { d1: string } }>();
    expect(body).toMatchObject({ status: "ok", version, checks: { d1: "ok" } });
    expect(Date.parse(body.time)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("shares the public burst limit: the 121st call in a minute from one address is a 429 with Retry-After", async () => {
    // The limit counts fixed one-minute windows: the clock stays in one of them for the whole test.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 10, 26, 12, 0, 30) });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const headers = { "CF-Connecting-IP": "198.51.100.77" };
    const statuses = [];
    for (let i = 0; i < 120; i++) statuses.push((await call("/health", { headers })).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await call("/health", { headers });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("answers 503 with the same body when the database does not answer", async () => {
    const broken = { ...env, DB: { ...env.DB, prepare: () => ({ first: () => Promise.reject(new Error("D1 down")) }) } } as unknown as Env;
    const res = await createTestApp(undefined, broken).request("/health");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "unavailable", checks: { d1: "unreachable" } });
  });
});

describe("X-Service-Version", () => {
  it("names the release on every answer: public, authenticated, an error, the docs page", async () => {
    for (const path of ["/api/public/stats", "/api/v1/inventory", "/no-such-path", "/docs"]) {
      const res = await call(path);
      expect(res.headers.get("X-Service-Version"), path).toBe(version);
    }
  });

  it("is readable by browser code calling the data API", async () => {
    const res = await call("/api/v1/inventory", { headers: { Origin: "https://dms.example" } });
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("X-Service-Version");
  });
});
