/**
 * `npm run bench [-- --json] [-- --duration=10] [-- --connections=50] [-- --only=name,name]`
 *
 * Builds the Worker as `wrangler deploy` would, serves the bundle in workerd through Miniflare's
 * API (with D1, the QuotaCounter Durable Object and the rate-limit binding) next to a bare Worker
 * that returns a constant, and loads each scenario with
 * autocannon (chosen over wrk, whose latency percentiles were implausible on these machines; see
 * PERF-NOTES). Rounds are interleaved so drift on a shared machine hits every scenario alike; each
 * figure is the median of the rounds and each ratio the median of the per-round ratios to the
 * baseline (and to `metered_v1`, the reference the endpoint issues name). It also reports the
 * bundle's size as `wrangler deploy` does (minified, gzip) against its ceiling, and start-up CPU against a bare Hono + zod Worker's (scripts/bench/budgets.ts). `--json` ends the
 * output with one line holding those figures (scenario → figures, `bundle` and `startup`). `--only` runs the named scenarios (the baseline and
 * `metered_v1` always run). Any answer other than 2xx aborts the run. Each endpoint area adds its
 * scenarios, and the rows they need, in scripts/bench/areas/ (listed in scripts/bench/areas/index.ts).
 */
import autocannon from "autocannon";
import { BENCH_AREAS } from "./areas";
import type { Scenario } from "./scenario";
import { describeBundle, describeStartup, measureStartup, median } from "./startup";
import { BASELINE_PATH, build, machine, migrateAndSeed, serve } from "./worker";

const ROUNDS = 3;
const WARMUP_SECONDS = 2;
/** The ratios to the baseline the issues set: the metered call, and the public embeds (issue 6). */
const TARGET_RATIOS: Record<string, number> = { metered_v1: 0.6, public_stats: 0.8, public_moat: 0.8 };

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : fallback;
};
const json = args.includes("--json");
const duration = option("duration", 10);
const connections = option("connections", 50);
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");

interface Figures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

async function load(url: URL, scenario: Scenario, seconds: number): Promise<Figures> {
  const result = await autocannon({
    url: new URL(scenario.path, url).href,
    connections,
    duration: seconds,
    method: scenario.method ?? "GET",
    headers: requestHeaders(scenario),
    body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
    requests: scenario.manyClients ? [{ setupRequest: fromAnotherClient }] : undefined,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(
      `${scenario.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts out of ${result.requests.sent}`,
    );
  }
  return { rps: result.requests.average, p50_ms: result.latency.p50, p99_ms: result.latency.p99 };
}

/** Visitors of many sites, each well under the public per-client limit (120 a minute). */
const CLIENT_ADDRESSES = 20_000;
let clientCounter = 0;
function fromAnotherClient(request: autocannon.Request): autocannon.Request {
  const n = clientCounter++ % CLIENT_ADDRESSES;
  return { ...request, headers: { ...request.headers, "CF-Connecting-IP": `10.${(n >> 8) & 255}.${n & 255}.1` } };
}

function requestHeaders(scenario: Scenario): Record<string, string> {
  return { ...(scenario.body === undefined ? {} : { "Content-Type": "application/json" }), ...scenario.headers };
}

async function main(): Promise<void> {
  const bundle = build();
  const parts = Object.entries(bundle.parts_kib).map(([part, kib]) => `${part} ${kib}`);
  console.log(describeBundle(bundle));
  console.log(`  minified KiB by package: ${parts.join(", ")}`);
  const { startup } = measureStartup();
  console.log(`${describeStartup(startup).join("\n")}\n`);
  const mf = serve();
  try {
    const url = await mf.ready;
    const { platform, areas } = await migrateAndSeed(mf);
    const { key, legacyToken } = platform;
    const allScenarios: Scenario[] = [
      { name: "baseline", path: BASELINE_PATH },
      { name: "metered_v1", path: "/api/v1/inventory", headers: { "X-Service-API-Key": key }, metered: true },
      // The same route without the quota (legacy tokens are not metered): what metering costs.
      { name: "unmetered_v1", path: "/api/v1/inventory", headers: { "X-Api-Token": legacyToken } },
      ...BENCH_AREAS.flatMap((area) => area.scenarios(areas)),
    ];
    const scenarios = allScenarios.filter((s) => !only || s.name === "baseline" || s.name === "metered_v1" || only.includes(s.name));

    // The first call of each scenario, untimed by autocannon, is timed here: for a route that builds
    // a per-isolate cache on first use (the compliance index), it is that cache's cold cost.
    const firstCallMs: Record<string, number> = {};
    for (const scenario of scenarios) {
      const started = performance.now();
      const res = await fetch(new URL(scenario.path, url), {
        method: scenario.method ?? "GET",
        headers: requestHeaders(scenario),
        body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
      });
      if (!res.ok) throw new Error(`${scenario.name} answered ${res.status}: ${await res.text()}`);
      // Without a Remaining figure the quota failed open, and the run would measure the wrong path.
      if (scenario.metered && !res.headers.has("X-Service-RateLimit-Remaining")) throw new Error(`${scenario.name} was not metered`);
      await res.arrayBuffer();
      firstCallMs[scenario.name] = Math.round(performance.now() - started);
      await load(url, scenario, WARMUP_SECONDS);
    }

    const rounds: Record<string, Figures>[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const figures: Record<string, Figures> = {};
      for (const scenario of scenarios) {
        const f = await load(url, scenario, duration);
        figures[scenario.name] = f;
        console.log(`round ${round}  ${scenario.name.padEnd(22)} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${f.p50_ms} ms  p99 ${f.p99_ms} ms`);
      }
      rounds.push(figures);
    }

    const summary: Record<string, Figures & { ratio: number; vs_metered: number }> = {};
    for (const { name } of scenarios) {
      summary[name] = {
        rps: Math.round(median(rounds.map((r) => r[name].rps))),
        p50_ms: median(rounds.map((r) => r[name].p50_ms)),
        p99_ms: median(rounds.map((r) => r[name].p99_ms)),
        ratio: Number(median(rounds.map((r) => r[name].rps / r.baseline.rps)).toFixed(3)),
        vs_metered: Number(median(rounds.map((r) => r[name].rps / r.metered_v1.rps)).toFixed(3)),
      };
    }

    console.log(`\n${machine()}; ${connections} connections, ${duration} s per scenario, median of ${ROUNDS} interleaved rounds\n`);
    console.log("| scenario | req/s | p50 ms | p99 ms | vs baseline | vs metered_v1 | first call ms |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    for (const [name, f] of Object.entries(summary)) {
      console.log(`| ${name} | ${f.rps} | ${f.p50_ms} | ${f.p99_ms} | ${f.ratio.toFixed(2)} | ${f.vs_metered.toFixed(2)} | ${firstCallMs[name]} |`);
    }
    console.log("");
    for (const [name, target] of Object.entries(TARGET_RATIOS)) {
      const ratio = summary[name]?.ratio;
      if (ratio !== undefined) console.log(`${name} at ${ratio.toFixed(3)} of the baseline: target ${target} ${ratio >= target ? "met" : "NOT met"}`);
    }
    console.log(describeBundle(bundle));
    console.log(describeStartup(startup)[0]);
    const measurements = [];
    for (const m of BENCH_AREAS.flatMap((area) => area.measurements ?? [])) {
      if (only && !only.includes(m.name)) continue;
      measurements.push(...(await m.run(url, areas)));
    }
    if (measurements.length > 0) {
      console.log("\n| measurement | detail | time | rate |\n|---|---|---:|---:|");
      for (const m of measurements) console.log(`| ${m.name} | ${m.detail} | ${m.value} ${m.unit} | ${m.rate} ${m.rateUnit} |`);
    }
    if (json) console.log(JSON.stringify({ ...summary, bundle, startup, ...(measurements.length > 0 ? { measurements } : {}) }));
  } finally {
    await mf.dispose();
  }
}

await main();
