import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createApiKey, createOrg, createStore } from "./helpers/factories";

interface Stats {
  demo_sessions: number;
  organizations_evaluated: number;
  unique_orgs: number;
  deals_through_ai: number;
  active_rooftops: number;
  uptime_pct_90d: number;
  last_updated: string;
}

const fromClient = (ip: string, headers: Record<string, string> = {}) => ({ headers: { "CF-Connecting-IP": ip, ...headers } });

async function stats(ip = "198.51.100.1") {
  const res = await call("/api/public/stats", fromClient(ip));
  expect(res.status).toBe(200);
  return res.json<Stats>();
}

describe("GET /api/public/stats", () => {
  it("is open to any origin and cacheable for at most a minute", async () => {
    const res = await call("/api/public/stats", fromClient("198.51.100.2", { Origin: "https://dealer-marketing.example" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get("Cache-Control") ?? "")?.[1]);
    expect(res.headers.get("Cache-Control")).toMatch(/^public/);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(60);
  });

  it("answers a CORS preflight from any origin", async () => {
    const res = await call("/api/public/stats", {
      method: "OPTIONS",
      headers: { Origin: "https://any.example", "Access-Control-Request-Method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("reports live figures computed from authenticated usage", async () => {
    const before = await stats();
    expect(Object.keys(before).sort()).toEqual([
      "active_rooftops",
      "deals_through_ai",
      "demo_sessions",
      "last_updated",
      "organizations_evaluated",
      "unique_orgs",
      "uptime_pct_90d",
    ]);
    expect(Date.now() - Date.parse(before.last_updated)).toBeLessThan(60_000);

    const demo = await createOrg({ isDemo: true });
    await createStore(demo.id);
    await createStore(demo.id);
    const { key } = await createApiKey(demo.id);
    expect((await call("/api/v1/inventory", { key })).status).toBe(200);
    expect((await call("/api/v1/sales-summary", { key })).status).toBe(200);

    const after = await stats();
    expect(after.organizations_evaluated).toBe(before.organizations_evaluated + 1);
    expect(after.unique_orgs).toBe(after.organizations_evaluated);
    expect(after.demo_sessions).toBe(before.demo_sessions + 1);
    expect(after.active_rooftops).toBe(before.active_rooftops + 2);
    // The feeds are not deal tools.
    expect(after.deals_through_ai).toBe(before.deals_through_ai);
  });

  it("derives uptime from the share of requests answered without a 5xx", async () => {
    const today = new Date().toISOString().slice(0, 10);
    await env.DB.prepare(
      "INSERT INTO platform_daily (day, requests, server_errors) VALUES (?, 1000, 10) ON CONFLICT(day) DO UPDATE SET requests = 1000, server_errors = 10",
    )
      .bind(today)
      .run();
    const { uptime_pct_90d } = await stats("198.51.100.3");
    // 1000 seeded requests, 10 of them 5xx, plus the few this test file itself made.
    expect(uptime_pct_90d).toBeGreaterThan(98.9);
    expect(uptime_pct_90d).toBeLessThan(99.1);
  });

  it("has a per-client limit of its own that leaves other clients and keys untouched", async () => {
    const org = await createOrg();
    await createStore(org.id);
    const { key } = await createApiKey(org.id, { dailyLimit: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 125; i++) statuses.push((await call("/api/public/stats", fromClient("192.0.2.77"))).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);

    const limited = await call("/api/public/stats", fromClient("192.0.2.77"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(await limited.json()).toMatchObject({ error: "rate_limited" });

    expect((await call("/api/public/stats", fromClient("192.0.2.78"))).status).toBe(200);
    const keyed = await call("/api/v1/inventory", { key });
    expect(keyed.status).toBe(200);
  });
});

describe("GET /api/moat/public", () => {
  it("returns the 20 most recent entries in the spec's envelope, open to any origin", async () => {
    const statements = Array.from({ length: 25 }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO market_feed_entries (id, category, signal, severity, source, date, refreshed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).bind(
        `mfe-${i}`,
        i % 2 ? "macro" : "lender_environment",
        `Signal ${i}`,
        i % 3 ? "low" : "high",
        "FRED",
        new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
        `2026-11-2${i % 5}T05:00:00.000Z`,
      ),
    );
    await env.DB.batch(statements);

    const res = await call("/api/moat/public", fromClient("198.51.100.9", { Origin: "https://elsewhere.example" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cache-Control")).toMatch(/^public, max-age=([1-5]?\d|60)$/);
    const body = await res.json<{ count: number; last_refresh: string; entries: { id: string; date: string }[] }>();
    expect(body.count).toBe(20);
    expect(body.entries).toHaveLength(20);
    expect(body.entries[0]).toEqual({
      id: "mfe-24",
      category: "lender_environment",
      signal: "Signal 24",
      severity: "high",
      source: "FRED",
      date: "2026-10-25",
    });
    expect(body.entries.at(-1)?.date).toBe("2026-10-06");
    expect(body.last_refresh).toBe("2026-11-24T05:00:00.000Z");
  });
});
