import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runBatch } from "../../src/db/batch";
import { getDb } from "../../src/db/client";
import { latestMarketFeed, MARKET_FEED_SIZE } from "../../src/db/queries/market-feed";
import { upsertObservation } from "../../src/db/queries/reports";
import { refreshMarketData } from "../../src/jobs/refresh-market-data";
import { listOutboxEvents } from "../helpers/events";
import { createOrg } from "../helpers/factories";
import { all } from "../helpers/sql";

/** The bindings the job uses, with or without the upstream keys (secrets in production). */
const jobEnv = (
  keys: { FRED_API_KEY?: string; EIA_API_KEY?: string } = {
    FRED_API_KEY: "abcdefghij0123456789abcdefghij01",
    EIA_API_KEY: "EIAtestKey0123456789abcd",
  },
) => {
  // The test's own keys replace whatever the test environment sets for the public feeds.
  const { FRED_API_KEY: _fred, EIA_API_KEY: _eia, ...rest } = env as Env & { FRED_API_KEY?: string; EIA_API_KEY?: string };
  return { ...rest, ...keys } as Env;
};
const NIGHT = new Date("2026-11-26T05:00:00.000Z");

/**
 * An upstream's answer; `fault` makes it fail on the way: `hang` never answers (until the job's
 * timeout aborts the request), `reset` sends `body` then breaks the connection.
 */
type Reply = { status?: number; body: unknown; fault?: "hang" | "reset" };
const fred = (...observations: [string, string][]): Reply => ({
  body: {
    units: "lin",
    sort_order: "desc",
    count: observations.length,
    observations: observations.map(([date, value]) => ({ realtime_start: "2026-11-26", realtime_end: "2026-11-26", date, value })),
  },
});
const eia = (...rows: [string, number | string][]): Reply => ({
  body: {
    response: {
      total: rows.length,
      frequency: "weekly",
      data: rows.map(([period, value]) => ({ period, duoarea: "NUS", series: "EMM_EPMR_PTE_NUS_DPG", value, units: "$/GAL" })),
    },
    apiVersion: "2.1.8",
  },
});

/** What the fake upstream answers, by FRED series id (or `EIA`). */
function healthyUpstream(): Record<string, Reply> {
  return {
    UMCSENT: fred(["2026-10-01", "53.6"], ["2026-09-01", "55.1"], ["2026-08-01", "."], ["2026-07-01", "58.2"]),
    GASREGW: fred(["2026-11-23", "3.12"], ["2026-11-16", "3.16"]),
    // 60-month rate up 0.31 pt over three readings: past the 0.25 threshold, so the lender environment is tightening.
    RIFLPBCIANM60NM: fred(["2026-11-01", "7.90"], ["2026-08-01", "7.75"], ["2026-05-01", "7.62"], ["2026-02-01", "7.59"]),
    RIFLPBCIANM72NM: fred(["2026-11-01", "7.80"], ["2026-08-01", "7.70"]),
    TERMCBAUTO48NS: fred(["2026-11-01", "7.60"], ["2026-08-01", "7.55"]),
    DPRIME: fred(["2026-11-25", "7.00"], ["2026-11-24", "7.00"], ["2026-11-21", "7.25"]),
    SOFR: fred(["2026-11-25", "3.91"], ["2026-11-24", "3.91"]),
    EIA: eia(["2026-11-23", 3.12], ["2026-11-16", "3.16"], ["2026-11-09", 3.17]),
  };
}

let upstream: Record<string, Reply>;
/** An organization that exists before the first refresh, to receive its lender-environment event. */
let watcherOrgId: string;
let requested: URL[];

function installFakeUpstream() {
  requested = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requested.push(url);
    const id = url.hostname === "api.eia.gov" ? "EIA" : (url.searchParams.get("series_id") ?? "");
    const reply = upstream[id];
    if (!reply) return new Response(JSON.stringify({ error_code: 400, error_message: "Bad Request." }), { status: 400 });
    const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    if (reply.fault === "hang") {
      const signal = init?.signal;
      return new Promise<Response>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    }
    const body =
      reply.fault === "reset"
        ? new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(text));
              controller.error(new Error("connection reset"));
            },
          })
        : text;
    return new Response(body, { status: reply.status ?? 200, headers: { "Content-Type": "application/json" } });
  });
}

const counts = async () =>
  (
    await all<{ observations: number; entries: number }>(
      "SELECT (SELECT count(*) FROM market_observations) AS observations, (SELECT count(*) FROM market_feed_entries) AS entries",
    )
  )[0];
/** What GET /api/moat/public publishes, read where it reads it (the endpoint serves a copy up to 60 s old). */
const publicFeed = async () => {
  const { entries, lastRefresh } = await latestMarketFeed(getDb(env.DB), MARKET_FEED_SIZE);
  return { count: entries.length, last_refresh: lastRefresh, entries };
};
const lastRun = async () =>
  (
    await all<{ id: string; status: string; observations_added: number; entries_added: number }>(
      "SELECT * FROM market_refresh_runs ORDER BY started_at DESC, rowid DESC LIMIT 1",
    )
  )[0];
const failuresOf = (runId: string) =>
  all<{ series_id: string; reason: string }>("SELECT series_id, reason FROM market_refresh_failures WHERE run_id = ? ORDER BY series_id", runId);
afterEach(() => {
  vi.restoreAllMocks();
});

describe("the 05:00 market refresh", () => {
  it("stores the readings, skips FRED's '.' values and derives feed entries, a lender-tightening alert among them", async () => {
    // Manheim has no API: an operator enters its readings, and the refresh publishes the newest.
    const db = getDb(env.DB);
    await runBatch(
      db,
      [
        { date: "2025-11-01", value: 205.4 },
        { date: "2026-11-01", value: 209.9 },
      ].map((observation) => upsertObservation(db, "MANHEIM_UVVI", observation, "2026-11-20T00:00:00Z")),
    );
    watcherOrgId = (await createOrg()).id;
    upstream = healthyUpstream();
    installFakeUpstream();
    await refreshMarketData(jobEnv(), NIGHT);

    // The 60-month bank rate rose 0.31 points over three readings (threshold 0.25): every
    // organization hears of it, once.
    const changes = await listOutboxEvents(watcherOrgId, "lender.environment_change");
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ org_id: watcherOrgId, store_id: null });

    const sentiment = await all<{ date: string; value: number }>(
      "SELECT date, value FROM market_observations WHERE series_id = 'UMCSENT' ORDER BY date",
    );
    expect(sentiment).toEqual([
      { date: "2026-07-01", value: 58.2 },
      { date: "2026-09-01", value: 55.1 },
      { date: "2026-10-01", value: 53.6 },
    ]);
    const run = await lastRun();
    expect(run.status).toBe("ok");
    expect(run.entries_added).toBeGreaterThan(0);

    const entries = await all<{ id: string; category: string; severity: string; signal: string }>(
      "SELECT id, category, severity, signal FROM market_feed_entries",
    );
    expect(entries).toHaveLength(run.entries_added);
    const feed = await publicFeed();
    expect(feed.count).toBe(Math.min(20, entries.length));
    expect(feed.last_refresh).toBe(NIGHT.toISOString());
    const categories = new Set(entries.map((e) => e.category));
    expect([...categories].sort()).toEqual(["dealer_market", "lender_environment", "macro", "wholesale_index"]);
    const manheim = entries.find((e) => e.id === "mkt_MANHEIM_UVVI_2026-11-01");
    expect(manheim).toMatchObject({ category: "wholesale_index", severity: "medium" });
    expect(manheim?.signal).toContain("+2.2% year over year");
    const alert = entries.find((e) => e.id === "mkt_RIFLPBCIANM60NM_2026-11-01_alert");
    expect(alert).toMatchObject({ category: "dealer_market", severity: "high" });
    expect(alert?.signal).toContain("tightening");
    // The FRED mirror of EIA's gasoline adds no duplicate of a week EIA already reported.
    expect(entries.some((e) => e.id.startsWith("mkt_GASREGW_"))).toBe(false);
    // A daily rate is news only when it moves: prime's cut, not its unchanged day.
    expect(entries.some((e) => e.id === "mkt_DPRIME_2026-11-24")).toBe(true);
    expect(entries.some((e) => e.id === "mkt_DPRIME_2026-11-25")).toBe(false);
    // The API key travels to the upstream only.
    expect(requested.every((url) => url.protocol === "https:")).toBe(true);
  });

  it("a second run the same night changes nothing", async () => {
    const before = await counts();
    const feedBefore = await publicFeed();
    upstream = healthyUpstream();
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date(NIGHT.getTime() + 60_000));
    expect(await counts()).toEqual(before);
    expect(await listOutboxEvents(watcherOrgId, "lender.environment_change")).toHaveLength(1);
    expect(await publicFeed()).toEqual(feedBefore);
    expect((await lastRun()).entries_added).toBe(0);
  });

  it("a 500 from one series keeps its readings, records the failure and still takes the others' new readings", async () => {
    const before = await counts();
    upstream = {
      ...healthyUpstream(),
      UMCSENT: { status: 500, body: "Internal Server Error" },
      EIA: eia(["2026-11-30", 3.05], ["2026-11-23", 3.12]),
    };
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date("2026-12-01T05:00:00.000Z"));
    const run = await lastRun();
    expect(run.status).toBe("partial");
    expect(await failuresOf(run.id)).toEqual([{ series_id: "UMCSENT", reason: "HTTP 500" }]);
    expect((await all("SELECT date FROM market_observations WHERE series_id = 'UMCSENT'")).length).toBe(3);
    const after = await counts();
    expect(after.entries).toBe(before.entries + 1);
    const feed = await publicFeed();
    expect(feed.entries[0].id).toBe("mkt_EMM_EPMR_PTE_NUS_DPG_2026-11-30");
  });

  it("malformed JSON from every upstream keeps every reading and the whole feed", async () => {
    const before = await counts();
    const feedBefore = await publicFeed();
    upstream = Object.fromEntries(Object.keys(healthyUpstream()).map((id) => [id, { body: "<html>maintenance</html>" }]));
    upstream.DPRIME = { body: { observations: "none" } };
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date("2026-12-02T05:00:00.000Z"));
    const run = await lastRun();
    const failures = await failuresOf(run.id);
    expect(failures).toHaveLength(8);
    expect(failures.find((f) => f.series_id === "UMCSENT")?.reason).toBe("body is not JSON");
    expect(failures.find((f) => f.series_id === "DPRIME")?.reason).toBe("FRED body has no observations array");
    expect(await counts()).toEqual(before);
    expect(await publicFeed()).toEqual(feedBefore);
  });

  it("a missing value ('.') is never stored as a reading, and a series with only missing values is a failure", async () => {
    upstream = { ...healthyUpstream(), UMCSENT: fred(["2026-11-01", "."], ["2026-10-01", "53.6"]), SOFR: fred(["2026-12-02", "."]) };
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date("2026-12-03T05:00:00.000Z"));
    expect(await all("SELECT * FROM market_observations WHERE series_id = 'UMCSENT' AND date = '2026-11-01'")).toEqual([]);
    expect(await all("SELECT * FROM market_feed_entries WHERE id LIKE 'mkt_UMCSENT_2026-11-01%'")).toEqual([]);
    expect(await failuresOf((await lastRun()).id)).toEqual([{ series_id: "SOFR", reason: "no usable readings" }]);
  });

  it("without API keys it asks no upstream, records why, and keeps the feed", async () => {
    const feedBefore = await publicFeed();
    installFakeUpstream();
    await refreshMarketData(jobEnv({}), new Date("2026-12-04T05:00:00.000Z"));
    expect(requested).toEqual([]);
    const failures = await failuresOf((await lastRun()).id);
    expect(failures.find((f) => f.series_id === "UMCSENT")?.reason).toBe("FRED_API_KEY is not configured");
    expect(failures.find((f) => f.series_id === "EMM_EPMR_PTE_NUS_DPG")?.reason).toBe("EIA_API_KEY is not configured");
    expect(await publicFeed()).toEqual(feedBefore);
  });
});

describe("the market upstreams failing at each step", () => {
  /** The job's upstream timeout, shortened so a hung upstream is given up on in milliseconds. */
  function shortenTimeouts() {
    const realTimeout = AbortSignal.timeout.bind(AbortSignal);
    return vi.spyOn(AbortSignal, "timeout").mockImplementation(() => realTimeout(20));
  }

  it("an upstream that never answers is given up on at the timeout: the failure is recorded and logged, the other series and the feed kept", async () => {
    const before = await counts();
    const feedBefore = await publicFeed();
    const timeouts = shortenTimeouts();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    upstream = { ...healthyUpstream(), UMCSENT: { body: "", fault: "hang" }, EIA: { body: "", fault: "hang" } };
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date("2026-12-05T05:00:00.000Z"));
    expect(timeouts).toHaveBeenCalledWith(15_000);
    const run = await lastRun();
    expect(run.status).toBe("partial");
    expect(await failuresOf(run.id)).toEqual([
      { series_id: "EMM_EPMR_PTE_NUS_DPG", reason: "request failed (TimeoutError)" },
      { series_id: "UMCSENT", reason: "request failed (TimeoutError)" },
    ]);
    const logged = warn.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(logged).toContainEqual(
      expect.objectContaining({ event: "market_series_refresh_failed", series: "UMCSENT", reason: "request failed (TimeoutError)" }),
    );
    // The reason never carries the request's URL, which holds the API key.
    expect(JSON.stringify(logged)).not.toContain("api_key");
    expect(await counts()).toEqual(before);
    expect(await publicFeed()).toEqual(feedBefore);
  });

  it.each([
    ["a 503", { status: 503, body: "Service Unavailable" }, "HTTP 503"],
    ["a 429", { status: 429, body: { error_code: 429 } }, "HTTP 429"],
    ["a body cut off mid-way", { body: '{"observations":[{"date":"2026-12-0' }, "body is not JSON"],
    ["a connection reset mid-body", { ...fred(["2026-12-05", "51.0"]), fault: "reset" as const }, "body is not JSON"],
    ["an empty 200", { body: "" }, "body is not JSON"],
    ["a date that is not a date", fred(["yesterday", "51.0"]), "an observation has no YYYY-MM-DD date"],
    ["a value that is not a number", fred(["2026-12-05", "fifty"]), "observation 2026-12-05 has a non-numeric value"],
  ])("%s from FRED keeps the series' readings and records why", async (_label, reply, reason) => {
    const stored = await all("SELECT date, value FROM market_observations WHERE series_id = 'UMCSENT' ORDER BY date");
    const feedBefore = await publicFeed();
    upstream = { ...healthyUpstream(), UMCSENT: reply };
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date("2026-12-06T05:00:00.000Z"));
    const run = await lastRun();
    expect(run.status).toBe("partial");
    expect(await failuresOf(run.id)).toEqual([{ series_id: "UMCSENT", reason }]);
    expect(await all("SELECT date, value FROM market_observations WHERE series_id = 'UMCSENT' ORDER BY date")).toEqual(stored);
    expect(await publicFeed()).toEqual(feedBefore);
  });

  it("garbage from EIA is recorded against EIA's series and keeps its weeks", async () => {
    const stored = await all("SELECT date FROM market_observations WHERE series_id = 'EMM_EPMR_PTE_NUS_DPG' ORDER BY date");
    upstream = { ...healthyUpstream(), EIA: { body: { response: { data: "maintenance" } } } };
    installFakeUpstream();
    await refreshMarketData(jobEnv(), new Date("2026-12-07T05:00:00.000Z"));
    expect(await failuresOf((await lastRun()).id)).toEqual([{ series_id: "EMM_EPMR_PTE_NUS_DPG", reason: "EIA body has no response.data array" }]);
    expect(await all("SELECT date FROM market_observations WHERE series_id = 'EMM_EPMR_PTE_NUS_DPG' ORDER BY date")).toEqual(stored);
  });
});
