/**
 * `npm run bench:latency [-- --calls=40] [-- --only=name,name] [-- --json]`
 *
 * What a dealer far from the database's primary waits for (issue 37): the production app with its
 * bindings wrapped in the latency model (./entry.ts, ./model.ts), each endpoint served by an isolate
 * of its own, so its first call is a fresh isolate's. For every endpoint it prints the sequential
 * round trips on the request's path (D1 primary, D1 replica, the quota's Durable Object, the
 * organization's storage object, queue, Cache API),
 * cold (the first call) and warm (the median of `--calls` calls one after another), the warm
 * calls' median and p99, and the first call against the warm median, with the model and again
 * without it (a second fresh isolate, every round trip 0 ms: the CPU and local I/O alone). Then a
 * busy key: how many of 1,000 metered calls reached the quota's Durable Object. Each endpoint is
 * held to the limits of issue 37; a miss names its reason (./limits.ts). The organization's object
 * is a hop of its own (`org object`), and a request that calls it more than once misses (issue 39:
 * one object call per request).
 *
 * `--first-calls=name,name [--isolates=10] [--against=<dir>/entry.js] [--profile]` measures (or
 * profiles) only the first calls' CPU, on many fresh isolates (./first-calls.ts).
 */
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { runWrangler } from "../../lib/local-d1";
import { requestInit, type Scenario } from "../scenario";
import { benchScenarios } from "../scenarios";
import { compatibilityDate, median } from "../startup";
import { IN_MEMORY_RATE_LIMITER, machine, migrateAndSeed } from "../worker";
import { firstCalls } from "./first-calls";
import { checkLimits, FIRST_CALL_WITHIN_MS, latencyEndpoints } from "./limits";
import { type Call, HOPS, type Hop, ROUND_TRIP_MS, sequentialRoundTrips } from "./model";
import { buildFrameworkFloor, FRAMEWORK_FLOOR, FRAMEWORK_FLOOR_SCENARIO, latencyWorkers } from "./workers";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const OUT_DIR = path.join(ROOT, ".bench/dist-latency");
const COUNT_PATH = "/__latency/count";
const BUSY_KEY_CALLS = 1_000;
const BUSY_KEY_CONCURRENCY = 10;

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const warmCalls = Number(option("calls") ?? 40);
const only = option("only")?.split(",");
const json = args.includes("--json");

type Counts = Record<Hop, number>;
interface Observed {
  ms: number;
  counts: Counts;
  /** The organization's object's methods called on the request's path, overlapping or not. */
  orgCalls: string[];
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

let client = 0;
async function call(mf: Miniflare, worker: string, scenario: Scenario): Promise<Observed> {
  const fetcher = await mf.getWorker(worker);
  const init = requestInit(scenario);
  // Public endpoints limit each client: every call from another address, as a site's visitors.
  const headers = scenario.manyClients ? { ...init.headers, "CF-Connecting-IP": `10.9.${(client >> 8) & 255}.${client++ & 255}` } : init.headers;
  const started = performance.now();
  const res = await fetcher.fetch(new URL(scenario.path, "https://api.bench.test").href, { ...init, headers });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${scenario.name} answered ${res.status}`);
  const log = JSON.parse(res.headers.get("X-Latency-Calls") ?? "null") as { calls: Call[]; answeredAt: number } | null;
  if (!log) throw new Error(`${scenario.name}: no X-Latency-Calls header (not the latency Worker?)`);
  if (process.env.LATENCY_TRACE) console.error(scenario.name, JSON.stringify(log));
  // Calls that began before this request are an earlier request's background work.
  const own = log.calls.filter((c) => c.start >= 0);
  return {
    ms,
    counts: sequentialRoundTrips(own, log.answeredAt),
    orgCalls: own.filter((c) => c.hop === "org_object" && c.end <= log.answeredAt).map((c) => c.what),
  };
}

/** The floor of a first call: a Worker with none of our code, served by the same Miniflare. */
const FLOOR_WORKER = 'export default { fetch() { return new Response("ok"); } };';

/** Fresh isolates of the framework's floor (./first-calls.ts `framework_floor`): one first call is one sample. */
const FRAMEWORK_FLOOR_ISOLATES = 5;

async function firstOverWarm(mf: Miniflare, worker: string, url: string, init?: ReturnType<typeof requestInit>): Promise<number> {
  const fetcher = await mf.getWorker(worker);
  const timed = async () => {
    const started = performance.now();
    const res = await fetcher.fetch(url, init);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${worker} answered ${res.status}`);
    return performance.now() - started;
  };
  const first = await timed();
  const warm: number[] = [];
  for (let i = 0; i < 10; i++) warm.push(await timed());
  return Math.round(first - median(warm));
}

/** The warm calls' typical object calls: those of the call whose count is the median. */
const medianOrgCalls = (observed: Observed[]) => {
  const n = median(observed.map((o) => o.orgCalls.length));
  return observed.find((o) => o.orgCalls.length >= n)?.orgCalls ?? [];
};

const medianCounts = (observed: Observed[]) => Object.fromEntries(HOPS.map((hop) => [hop, median(observed.map((o) => o.counts[hop]))])) as Counts;

const describe = (counts: Counts) =>
  HOPS.filter((hop) => counts[hop] > 0)
    .map((hop) => `${counts[hop]} ${hop.replace("_", " ")}`)
    .join(", ") || "none";

async function main() {
  runWrangler(["deploy", "scripts/bench/latency/entry.ts", "--dry-run", "--outdir", OUT_DIR], { captureStdout: true });
  const date = compatibilityDate();
  // The scenarios need the fixtures' keys, which seeding makes: the names are fixed, the isolates made before.
  const names = latencyEndpoints.map((e) => e.scenario).filter((name) => !only || only.includes(name));
  const scriptPath = path.join(OUT_DIR, "entry.js");
  const frameworkFloorScript = buildFrameworkFloor();
  const workers = latencyWorkers(date);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        workers.first(scriptPath, "on"),
        ...names.flatMap((name) => [workers.copy(`model-${name}`, scriptPath, "on"), workers.copy(`bare-${name}`, scriptPath, "off")]),
        { name: "bench-ratelimit", modules: true, script: IN_MEMORY_RATE_LIMITER, compatibilityDate: date },
        { name: "floor", modules: true, script: FLOOR_WORKER, compatibilityDate: date },
        ...Array.from({ length: FRAMEWORK_FLOOR_ISOLATES }, (_, i) => workers.frameworkFloor(`${FRAMEWORK_FLOOR}-${i}`, frameworkFloorScript)),
      ],
    }),
  );
  try {
    await mf.ready;
    const { platform, areas } = await migrateAndSeed(mf);
    const floor = await firstOverWarm(mf, "floor", "https://floor.bench.test/");
    const frameworkFloors = [];
    for (let i = 0; i < FRAMEWORK_FLOOR_ISOLATES; i++) {
      const url = new URL(FRAMEWORK_FLOOR_SCENARIO.path, "https://floor.bench.test").href;
      frameworkFloors.push(await firstOverWarm(mf, `${FRAMEWORK_FLOOR}-${i}`, url, requestInit(FRAMEWORK_FLOOR_SCENARIO)));
    }
    const frameworkFloor = median(frameworkFloors);
    const scenarios = new Map(benchScenarios(platform, areas).map((s) => [s.name, s]));
    const rows = [];
    for (const name of names) {
      const scenario = scenarios.get(name);
      if (!scenario) throw new Error(`bench:latency names ${name}, which no bench area defines`);
      const cold = await call(mf, `model-${name}`, scenario);
      const warm: Observed[] = [];
      for (let i = 0; i < warmCalls; i++) warm.push(await call(mf, `model-${name}`, scenario));
      const bareCold = await call(mf, `bare-${name}`, scenario);
      const bareWarm: number[] = [];
      for (let i = 0; i < 10; i++) bareWarm.push((await call(mf, `bare-${name}`, scenario)).ms);
      const warmMs = warm.map((o) => o.ms);
      const row = {
        endpoint: name,
        method: scenario.method ?? "GET",
        path: scenario.path.split("?")[0],
        cold: cold.counts,
        warm: medianCounts(warm),
        warm_org_calls: medianOrgCalls(warm),
        cold_org_calls: cold.orgCalls,
        p50_ms: Math.round(median(warmMs)),
        p99_ms: Math.round(percentile(warmMs, 99)),
        first_ms: Math.round(cold.ms),
        first_over_warm_ms: Math.round(cold.ms - median(warmMs)),
        bare_first_over_warm_ms: Math.round(bareCold.ms - median(bareWarm)),
      };
      rows.push({ ...row, verdict: checkLimits(name, row) });
      console.error(
        `${name}: warm ${describe(row.warm)}; object calls warm [${row.warm_org_calls}] cold [${row.cold_org_calls}]; ${row.p50_ms}/${row.p99_ms} ms; first call +${row.first_over_warm_ms} ms`,
      );
    }

    // A busy key: metered calls from one isolate, ten at a time; every call to the counter counted,
    // background ones too. The first thousand include the leases' ramp from one request; the next
    // thousand are the busy key's steady state.
    const fetcher = await mf.getWorker("api");
    const metered = scenarios.get("metered_v1") as Scenario;
    const quotaCallsIn = async () => {
      await fetcher.fetch(`https://api.bench.test${COUNT_PATH}?reset=1`);
      let sent = 0;
      await Promise.all(
        Array.from({ length: BUSY_KEY_CONCURRENCY }, async () => {
          for (; sent < BUSY_KEY_CALLS; sent++) {
            const res = await fetcher.fetch(new URL(metered.path, "https://api.bench.test").href, requestInit(metered));
            await res.arrayBuffer();
          }
        }),
      );
      return ((await (await fetcher.fetch(`https://api.bench.test${COUNT_PATH}`)).json()) as Partial<Counts>).durable_object ?? 0;
    };
    const rampCalls = await quotaCallsIn();
    const quotaCalls = await quotaCallsIn();

    console.log(
      `\nbench:latency — ${machine()}; model: ${HOPS.map((hop) => `${hop.replace("_", " ")} ${ROUND_TRIP_MS[hop]} ms`).join(", ")}; ${warmCalls} warm calls per endpoint, one at a time\n`,
    );
    console.log(
      "| endpoint | warm round trips | cold round trips | warm p50 ms | warm p99 ms | first call ms | first − warm (model) | first − warm (no model) | limits |",
    );
    console.log("|---|---|---|---:|---:|---:|---:|---:|---|");
    for (const r of rows) {
      console.log(
        `| ${r.method} ${r.path} (${r.endpoint}) | ${describe(r.warm)} | ${describe(r.cold)} | ${r.p50_ms} | ${r.p99_ms} | ${r.first_ms} | ${r.first_over_warm_ms} | ${r.bare_first_over_warm_ms} | ${r.verdict} |`,
      );
    }
    const oneIn = (n: number) => (n === 0 ? "none" : `1 in ${Math.round(BUSY_KEY_CALLS / n)}`);
    console.log(
      `\nbusy key (${BUSY_KEY_CALLS} metered calls, ${BUSY_KEY_CONCURRENCY} at a time, one isolate): the quota's Durable Object reached ${quotaCalls} times in the steady state = ${oneIn(quotaCalls)} (limit: at most 1 in 50); ${rampCalls} times in the first ${BUSY_KEY_CALLS} from a fresh isolate (${oneIn(rampCalls)}), the leases growing from one request`,
    );
    console.log(`first calls: limit ${FIRST_CALL_WITHIN_MS} ms over the warm median`);
    console.log(
      `floor: a Worker that answers a constant, on a fresh isolate of this same Miniflare, answers its first call ${floor} ms over its warm median — the harness's and the runtime's share of the "no model" column, which no code of ours can remove`,
    );
    console.log(
      `framework floor: hono, @hono/zod-openapi, zod and drizzle alone, loaded on the first request as our areas are, validating a deal-sized body and reading one D1 row (scripts/bench/first-call-fixture/), answer their first call ${frameworkFloor} ms over warm (median of ${FRAMEWORK_FLOOR_ISOLATES} fresh isolates, ${Math.min(...frameworkFloors)}–${Math.max(...frameworkFloors)}, no model): what the framework costs any endpoint's first call`,
    );
    if (json)
      console.log(
        JSON.stringify({
          model_ms: ROUND_TRIP_MS,
          rows,
          busy_key: { calls: BUSY_KEY_CALLS, quota_calls: quotaCalls, quota_calls_from_fresh_isolate: rampCalls },
          floor_first_over_warm_ms: floor,
          framework_floor_first_over_warm_ms: frameworkFloor,
        }),
      );
  } finally {
    await mf.dispose();
  }
}

const firstCallsOf = option("first-calls")?.split(",");
if (firstCallsOf)
  await firstCalls(firstCallsOf, { isolates: Number(option("isolates") ?? 10), against: option("against"), profile: args.includes("--profile") });
else await main();
