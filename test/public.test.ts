import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { inChunks, runBatch } from "../src/db/batch";
import { getDb } from "../src/db/client";
import { computePlatformStatistics } from "../src/db/queries/public-stats";
import { recordUsage } from "../src/db/queries/usage";
import { marketFeedEntries, platformDaily } from "../src/db/schema";
import { ClientWindowCounter, PUBLIC_REQUESTS_PER_MINUTE } from "../src/http/public-access";
import { usageBuffer } from "../src/http/usage";
import type { MarketFeedSchema, PlatformStatsSchema } from "../src/routes/public/public.routes";
import { SharedAnswer } from "../src/routes/public/public.service";
import { call, createApiKey, createOrg, createStore } from "./helpers/factories";
import { figuresByDefinition, isoDaysAgo, recordingDb, usageSnapshot } from "./helpers/public";

type Stats = z.infer<typeof PlatformStatsSchema>;

const fromClient = (ip: string, headers: Record<string, string> = {}) => ({ headers: { "CF-Connecting-IP": ip, ...headers } });

describe("GET /api/public/stats", () => {
  // The first stats request of this file: every later one in the next minute gets this copy.
  it("serves the running totals, then the same copy for up to 60 s, kept in the Cache API too", async () => {
    const demo = await createOrg({ isDemo: true });
    await createStore(demo.id);
    await createStore(demo.id);
    await recordUsage(getDb(env.DB), usageSnapshot([{ day: isoDaysAgo(0), keyId: "key_first", orgId: demo.id, dealToolCalls: 2 }]));

    const res = await call("/api/public/stats", fromClient("198.51.100.1"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const first = await res.json<Stats>();
    expect(Object.keys(first).sort()).toEqual([
      "active_rooftops",
      "deals_through_ai",
      "demo_sessions",
      "last_updated",
      "organizations_evaluated",
      "unique_orgs",
      "uptime_pct_90d",
    ]);
    const defined = await figuresByDefinition();
    expect(first).toMatchObject({
      organizations_evaluated: defined.organizationsEvaluated,
      unique_orgs: defined.organizationsEvaluated,
      demo_sessions: defined.demoSessions,
      deals_through_ai: defined.dealsThroughAi,
      active_rooftops: defined.activeRooftops,
    });
    expect(first.deals_through_ai).toBeGreaterThanOrEqual(2);
    expect(Date.now() - Date.parse(first.last_updated)).toBeLessThan(60_000);

    // New usage reaches the totals, but callers keep getting the copy until it is 60 s old.
    const other = await createOrg();
    await recordUsage(getDb(env.DB), usageSnapshot([{ day: isoDaysAgo(0), keyId: "key_second", orgId: other.id }]));
    const again = await call("/api/public/stats", fromClient("198.51.100.1"));
    expect(await again.json()).toEqual(first);
    const age = Number(again.headers.get("Age"));
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual(60);
    expect((await computePlatformStatistics(getDb(env.DB), new Date())).organizationsEvaluated).toBe(first.organizations_evaluated + 1);

    // Other isolates of the data center find the copy in the Cache API.
    const shared = await caches.default.match("https://api.test/api/public/stats");
    expect(await shared?.json()).toEqual(first);
  });

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

  it("has a per-client limit of its own that leaves other clients and keys untouched", async () => {
    const org = await createOrg();
    await createStore(org.id);
    const { key } = await createApiKey(org.id, { dailyLimit: 5 });
    // The count is per minute: start the flood just after a minute begins, so it cannot straddle two.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Math.ceil(Date.now() / 60_000) * 60_000 + 1_000);
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const statuses: number[] = [];
    for (let i = 0; i < 125; i++) statuses.push((await call("/api/public/stats", fromClient("192.0.2.77"))).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);

    const limited = await call("/api/public/stats", fromClient("192.0.2.77"));
    expect(limited.status).toBe(429);
    // Until the minute's window ends.
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ error: "rate_limited" });

    expect((await call("/api/public/stats", fromClient("192.0.2.78"))).status).toBe(200);
    const keyed = await call("/api/v1/inventory", { key });
    expect(keyed.status).toBe(200);
  });
});

describe("platform statistics from the running totals", () => {
  it("equal DESIGN.md §3's definitions after overlapping flushes from many isolates", async () => {
    const orgs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const org = await createOrg({ isDemo: i % 2 === 0 });
      for (let s = 0; s <= i % 3; s++) await createStore(org.id);
      orgs.push(org.id);
    }
    // A fixed pseudo-random sequence: the same (day, credential) pairs and organizations recur
    // across isolates, some days fall outside the 30-day window, and every flush runs at once.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const flushes = Array.from({ length: 12 }, () =>
      usageSnapshot(
        Array.from({ length: 8 }, () => {
          const org = next(orgs.length);
          return {
            day: isoDaysAgo([0, 1, 5, 29, 30, 45][next(6)]),
            keyId: `key_iso_${org}_${next(3)}`,
            orgId: orgs[org],
            requests: 1 + next(4),
            dealToolCalls: next(3),
          };
        }),
      ),
    );
    await Promise.all(flushes.map((snapshot) => recordUsage(getDb(env.DB), snapshot)));

    const figures = await computePlatformStatistics(getDb(env.DB), new Date());
    expect(figures).toMatchObject(await figuresByDefinition());
  });

  it("still count when a flush holds calls of an organization deleted since (a purged sandbox): its rows are dropped, not the batch", async () => {
    const gone = await createOrg();
    const live = await createOrg();
    const day = isoDaysAgo(0);
    const before = await env.DB.prepare("SELECT requests FROM platform_daily WHERE day = ?").bind(day).first<{ requests: number }>();
    await env.DB.prepare("DELETE FROM organizations WHERE id = ?").bind(gone.id).run();
    await recordUsage(
      getDb(env.DB),
      usageSnapshot([
        { day, keyId: "key_of_a_purged_sandbox", orgId: gone.id, requests: 3 },
        { day, keyId: "key_live", orgId: live.id, requests: 2 },
      ]),
    );
    const rows = await env.DB.prepare("SELECT org_id, requests FROM key_usage_daily WHERE key_id IN ('key_of_a_purged_sandbox', 'key_live')").all();
    expect(rows.results).toEqual([{ org_id: live.id, requests: 2 }]);
    const after = await env.DB.prepare("SELECT requests FROM platform_daily WHERE day = ?").bind(day).first<{ requests: number }>();
    expect(after?.requests).toBe((before?.requests ?? 0) + 5);
    // The running totals agree with the rows: the deleted organization is counted in neither.
    expect(await computePlatformStatistics(getDb(env.DB), new Date())).toMatchObject(await figuresByDefinition());
  });

  it("count what the Worker's own usage tracking records for authenticated calls", async () => {
    await usageBuffer.flush(getDb(env.DB), Date.now()); // what earlier tests' calls left in the buffer
    const before = await computePlatformStatistics(getDb(env.DB), new Date());
    const demo = await createOrg({ isDemo: true });
    await createStore(demo.id);
    await createStore(demo.id);
    const { key } = await createApiKey(demo.id);
    expect((await call("/api/v1/inventory", { key })).status).toBe(200);
    expect((await call("/api/v1/sales-summary", { key })).status).toBe(200);
    await usageBuffer.flush(getDb(env.DB), Date.now());

    const after = await computePlatformStatistics(getDb(env.DB), new Date());
    expect(after.organizationsEvaluated).toBe(before.organizationsEvaluated + 1);
    // One key, one day: one session however many calls.
    expect(after.demoSessions).toBe(before.demoSessions + 1);
    expect(after.activeRooftops).toBe(before.activeRooftops + 2);
    // The feeds are not deal tools.
    expect(after.dealsThroughAi).toBe(before.dealsThroughAi);
  });

  it("derive uptime from the share of the last 90 days' requests answered without a 5xx", async () => {
    const now = new Date("2031-03-01T12:00:00.000Z");
    const day = (daysAgo: number) => isoDaysAgo(daysAgo, now.getTime());
    await getDb(env.DB)
      .insert(platformDaily)
      .values([
        { day: day(0), requests: 1000, serverErrors: 10 },
        { day: day(89), requests: 1000, serverErrors: 0 },
        { day: day(90), requests: 1000, serverErrors: 1000 }, // outside the 90 days
      ]);
    const { uptimePct90d } = await computePlatformStatistics(getDb(env.DB), now);
    expect(uptimePct90d).toBe(99.5);
  });

  it("read as many rows with thousands of usage rows as with a few (O(1) in the usage tables)", async () => {
    const org = await createOrg({ isDemo: true });
    await createStore(org.id);
    const days = Array.from({ length: 20 }, (_, i) => isoDaysAgo(i));
    const flushKeys = (keys: string[]) =>
      recordUsage(getDb(env.DB), usageSnapshot(keys.flatMap((keyId) => days.map((day) => ({ day, keyId, orgId: org.id, dealToolCalls: 1 })))));
    const measure = async () => {
      const { db, batches } = recordingDb();
      await computePlatformStatistics(db, new Date());
      return batches;
    };

    await flushKeys(["key_o1_0"]);
    const few = await measure();
    // 2,000 more usage rows of the same organization, on the same days.
    for (let batch = 0; batch < 10; batch++) await flushKeys(Array.from({ length: 10 }, (_, i) => `key_o1_${batch}_${i}`));
    const many = await measure();

    expect(few).toHaveLength(1);
    expect(few[0].rowsRead).toBeGreaterThan(0);
    expect(many).toEqual(few);
    expect(await computePlatformStatistics(getDb(env.DB), new Date())).toMatchObject(await figuresByDefinition());
  });
});

describe("SharedAnswer (the per-isolate copy and the Cache API)", () => {
  const counter = () => {
    let computed = 0;
    return { compute: async () => ({ n: ++computed }), computed: () => computed };
  };
  const background = () => {
    const pending: Promise<unknown>[] = [];
    return { waitUntil: (promise: Promise<unknown>) => void pending.push(promise), settled: () => Promise.all(pending) };
  };

  it("computes once a minute for an isolate, and other isolates reuse that copy without stretching its age", async () => {
    const path = `/test/shared-${crypto.randomUUID()}`;
    const url = "https://api.test/anything";
    const t0 = Date.now();
    const { compute, computed } = counter();
    const work = background();

    // A copy as the caller reads it: the JSON text and when it was computed.
    const read = async (answer: Promise<{ json: Uint8Array; computedAtMs: number }>) => {
      const { json, computedAtMs } = await answer;
      return { json: new TextDecoder().decode(json), computedAtMs };
    };
    const isolateA = new SharedAnswer<{ n: number }>({ path, maxAgeMs: 60_000 });
    expect(await read(isolateA.get({ url, nowMs: t0, compute, waitUntil: work.waitUntil }))).toEqual({ json: '{"n":1}', computedAtMs: t0 });
    await work.settled();
    expect(await read(isolateA.get({ url, nowMs: t0 + 59_999, compute, waitUntil: work.waitUntil }))).toEqual({ json: '{"n":1}', computedAtMs: t0 });

    const isolateB = new SharedAnswer<{ n: number }>({ path, maxAgeMs: 60_000 });
    expect(await read(isolateB.get({ url, nowMs: t0 + 30_000, compute, waitUntil: work.waitUntil }))).toEqual({ json: '{"n":1}', computedAtMs: t0 });
    expect(computed()).toBe(1);

    // 60 s after the computation, wherever it ran, the copy is not served any more.
    expect(await read(isolateB.get({ url, nowMs: t0 + 60_000, compute, waitUntil: work.waitUntil }))).toEqual({
      json: '{"n":2}',
      computedAtMs: t0 + 60_000,
    });
    expect(JSON.parse((await read(isolateA.get({ url, nowMs: t0 + 60_001, compute, waitUntil: work.waitUntil }))).json).n).toBeGreaterThan(1);
    await work.settled();
  });
});

describe("GET /api/moat/public", () => {
  it("returns the 20 most recent entries in the spec's envelope, open to any origin", async () => {
    const entries = Array.from({ length: 25 }, (_, i) => ({
      id: `mfe-${i}`,
      category: i % 2 ? "macro" : "lender_environment",
      signal: `Signal ${i}`,
      severity: i % 3 ? ("low" as const) : ("high" as const),
      source: "FRED",
      date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
      refreshedAt: `2026-11-2${i % 5}T05:00:00.000Z`,
    }));
    const db = getDb(env.DB);
    await runBatch(
      db,
      inChunks(entries, (part) => db.insert(marketFeedEntries).values(part)),
    );

    const res = await call("/api/moat/public", fromClient("198.51.100.9", { Origin: "https://elsewhere.example" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cache-Control")).toMatch(/^public, max-age=([1-5]?\d|60)$/);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = await res.json<z.infer<typeof MarketFeedSchema>>();
    expect(body.count).toBe(20);
    expect(body.entries).toHaveLength(20);
    expect(body.entries[0]).toEqual({
      id: "mfe-24",
      category: "lender_environment",
      signal: "Signal 24",
      severity: "high",
      source: "FRED",
      date: "2026-10-25",
      demo: false,
    });
    expect(body.entries.at(-1)?.date).toBe("2026-10-06");
    expect(body.last_refresh).toBe("2026-11-24T05:00:00.000Z");

    // A newer entry waits for the copy to expire (at most 60 s).
    await db.insert(marketFeedEntries).values({
      id: "mfe-new",
      category: "macro",
      signal: "New",
      severity: "low",
      source: "FRED",
      date: "2026-11-20",
      refreshedAt: "2026-11-25T05:00:00.000Z",
    });
    const again = await call("/api/moat/public", fromClient("198.51.100.9"));
    expect(await again.json()).toEqual(body);
    expect(Number(again.headers.get("Age"))).toBeLessThanOrEqual(60);
  });
});

describe("ClientWindowCounter", () => {
  const minute = Date.UTC(2026, 10, 26, 4, 0);

  it("admits 120 requests a client a minute, then says how long until the next minute", () => {
    const counter = new ClientWindowCounter();
    for (let i = 0; i < PUBLIC_REQUESTS_PER_MINUTE; i++) expect(counter.take("a", minute + 15_000)).toBe(0);
    expect(counter.take("a", minute + 15_000)).toBe(45);
    expect(counter.take("b", minute + 15_000)).toBe(0);
    expect(counter.take("a", minute + 60_000)).toBe(0);
  });
});
