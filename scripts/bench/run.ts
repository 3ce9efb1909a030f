/**
 * `npm run bench [-- --json] [-- --duration=10] [-- --connections=50] [-- --only=name,name]`
 *
 * Builds the Worker as `wrangler deploy` would, serves the bundle in workerd through Miniflare's
 * API (with D1, the QuotaCounter Durable Object and the rate-limit binding) next to a bare Worker
 * that returns a constant, and loads each scenario with
 * autocannon (chosen over wrk, whose latency percentiles were implausible on these machines; see
 * PERF-NOTES). Rounds are interleaved so drift on a shared machine hits every scenario alike; each
 * figure is the median of the rounds and each ratio the median of the per-round ratios to the
 * baseline (and to `metered_v1`, the reference the endpoint issues name). It first reports the
 * bundle's size as `wrangler deploy` does (minified, gzip) against its ceiling, and start-up CPU
 * against a bare Hono + zod Worker's (the figures `npm run check:startup` checks; scripts/bench/budgets.ts).
 * `--json` ends the output with one line holding those figures (scenario → figures, `bundle` and `startup`). `--only` runs the named scenarios (the baseline and
 * `metered_v1` always run). Any answer other than 2xx aborts the run. Each endpoint area adds its
 * scenarios, and the rows they need, in scripts/bench/areas/ (listed in scripts/bench/areas/index.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { apiKeyDisplayPrefix, generateApiKey, generateToken, LEGACY_TOKEN_PREFIX, sha256Hex } from "../../src/credentials/tokens";
import { runWrangler } from "../lib/local-d1";
import { BENCH_AREAS } from "./areas";
import type { BenchFixture, Scenario } from "./scenario";
import { type BundleFigures, bundleFigures, compatibilityDate, describeBundle, describeStartup, measureStartup, median } from "./startup";

const ROOT = path.resolve(import.meta.dirname, "../..");
const OUT_DIR = path.join(ROOT, ".bench/dist");
const ROUNDS = 3;
const WARMUP_SECONDS = 2;
/** The ratios to the baseline the issues set: the metered call, and the public embeds (issue 6). */
const TARGET_RATIOS: Record<string, number> = { metered_v1: 0.6, public_stats: 0.8, public_moat: 0.8 };
const BASELINE_PATH = "/__bench/baseline";

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

/** The Worker's size as `wrangler deploy` reports it, and the largest packages' share of the minified bundle. */
interface BundleSize extends BundleFigures {
  /** Minified bytes (KiB) each package, and our own src/, puts into the bundle (esbuild's metafile). */
  parts_kib: Record<string, number>;
}

/** The Worker exactly as `wrangler deploy` bundles it (minified, per wrangler.toml), and its size. */
function build(): BundleSize {
  const output = runWrangler(["deploy", "--dry-run", "--outdir", OUT_DIR, "--metafile"], { captureStdout: true });
  const meta = JSON.parse(readFileSync(path.join(OUT_DIR, "bundle-meta.json"), "utf8")) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const bundle = Object.entries(meta.outputs).find(([file]) => file.endsWith("index.js"));
  if (!bundle) throw new Error("esbuild's metafile lists no index.js");
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(bundle[1].inputs)) {
    const part = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? "src (our code)";
    bytes.set(part, (bytes.get(part) ?? 0) + bytesInOutput);
  }
  const parts = [...bytes].filter(([, n]) => n >= 1024).sort((a, b) => b[1] - a[1]);
  return {
    ...bundleFigures(output),
    parts_kib: Object.fromEntries(parts.map(([part, n]) => [part, Number((n / 1024).toFixed(1))])),
  };
}

const IN_MEMORY_RATE_LIMITER = `
import { WorkerEntrypoint } from "cloudflare:workers";
const LIMIT = 1_000_000_000;
const PERIOD_MS = 60_000;
const windows = new Map();
export class RateLimiter extends WorkerEntrypoint {
  limit({ key }) {
    const epoch = Math.floor(Date.now() / PERIOD_MS);
    const window = windows.get(key);
    const count = window && window.epoch === epoch ? window.count : 0;
    if (count >= LIMIT) return { success: false };
    windows.set(key, { epoch, count: count + 1 });
    return { success: true };
  }
}
export default { fetch: () => new Response(null, { status: 404 }) };
`;

/**
 * Every Worker sits behind Miniflare's own entry Worker, which routes by path, so the baseline and
 * the API pay the same serving overhead and the ratios compare like with like. (Miniflare's direct
 * sockets skip that hop; BENCHMARKS.md says how the ratios move then.)
 */
function serve(): Miniflare {
  const date = compatibilityDate();
  const apiBindings = {
    modules: true,
    compatibilityDate: date,
    d1Databases: { DB: "bench-db" },
    durableObjects: { QUOTA: { className: "QuotaCounter", useSQLite: true } },
    ratelimits: { LOGIN_RATE_LIMITER: { namespace_id: "1002", simple: { limit: 10, period: 60 as const } } },
    // The real binding allows 120 a minute per client; the benchmark measures the route, not 429s.
    serviceBindings: { PUBLIC_RATE_LIMITER: { name: "bench-ratelimit", entrypoint: "RateLimiter" } },
    queueProducers: { WEBHOOKS: "webhooks" },
    // As wrangler.toml's [[queues.consumers]].
    queueConsumers: {
      webhooks: { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 3, deadLetterQueue: "webhooks-dlq" },
      "webhooks-dlq": { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 3 },
    },
    bindings: {
      STAFF_ALLOWED_ORIGINS: "https://staff.bench.test",
      PASSWORD_PEPPER: "bench-pepper-not-a-secret",
      COMPLIANCE_HASH_SALT: "bench-salt-not-a-secret",
      // The refresh job never runs in the benchmark; the config check still wants the three addresses.
      ...Object.fromEntries(["OFAC_SDN_URL", "OFAC_ALT_URL", "OFAC_COMMENTS_URL"].map((name) => [name, "https://ofac.bench.invalid/list.csv"])),
      WEBHOOK_SECRETS_KEY: "YmVuY2gtd2ViaG9vay1rZXktMzItYnl0ZXMtbG9uZyE=",
      // The delivery measurement's receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_LOCALHOST: "true",
    },
  };
  return new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        { name: "api", scriptPath: path.join(OUT_DIR, "index.js"), ...apiBindings },
        // Cloudflare's rate-limit binding counts in memory on the machine that serves the request;
        // Miniflare's stand-in commits a Durable Object SQLite row per call, which alone held the
        // public endpoints to about 0.2 of the baseline. This one counts in memory, like production.
        { name: "bench-ratelimit", modules: true, script: IN_MEMORY_RATE_LIMITER, compatibilityDate: date },
        {
          name: "baseline",
          modules: true,
          script: `export default { fetch() { return new Response('{"ok":true}', { headers: { "Content-Type": "application/json" } }); } };`,
          compatibilityDate: date,
          routes: [`*${BASELINE_PATH}`],
        },
      ],
    }),
  );
}

/** The schema from migrations/, then the platform scenarios' organization and the areas' one, with what each area seeds. */
async function migrateAndSeed(mf: Miniflare): Promise<{ platform: BenchFixture; areas: BenchFixture }> {
  const db = await mf.getD1Database("DB", "api");
  const migrations = readdirSync(path.join(ROOT, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();
  for (const file of migrations) {
    const sql = readFileSync(path.join(ROOT, "migrations", file), "utf8");
    for (const statement of sql
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter(Boolean)) {
      await db.prepare(statement).run();
    }
  }
  const platform = await seedOrganization(db, "bench");
  // The areas seed hundreds of units and deals: in their own organization, so the metered_v1 feed
  // keeps its five units whatever areas exist (it answered 125 once the reports area seeded here).
  const areas = await seedOrganization(db, "bench_areas");
  for (const area of BENCH_AREAS) await area.seed?.(db, areas);
  return { platform, areas };
}

/** An organization with a store, five units, a `lak_` key with a limit of 1,000,000,000 and a legacy token. */
async function seedOrganization(db: D1Database, name: string): Promise<BenchFixture> {
  const key = generateApiKey();
  const legacyToken = generateToken(LEGACY_TOKEN_PREFIX, 32);
  const [orgId, storeId] = [`org_${name}`, `sto_${name}`];
  await db.batch([
    db.prepare("INSERT INTO organizations (id, name, is_demo) VALUES (?, 'Bench Motors', 0)").bind(orgId),
    db.prepare("INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES (?, ?, 'Bench Store', 1, '78701')").bind(storeId, orgId),
    ...Array.from({ length: 5 }, (_, i) =>
      db
        .prepare(
          `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status)
         VALUES (?, ?, ?, ?, ?, 2022, 'Toyota', 'Camry', 'SE', 'used', 'car', 31000, '2026-10-0${i + 1}', 21000, 24995, 'in_stock')`,
        )
        .bind(`unit_${name}_${i}`, orgId, storeId, `B${i}`, `VIN${name.toUpperCase()}${i}`.padEnd(17, "0")),
    ),
    db
      .prepare(
        `INSERT INTO api_keys (id, org_id, key_hash, key_prefix, label, permissions, scopes, daily_limit, created_by)
       VALUES (?, ?, ?, ?, 'bench', '["read"]', NULL, 1000000000, 'bench')`,
      )
      .bind(`key_${name}`, orgId, await sha256Hex(key), apiKeyDisplayPrefix(key)),
    db
      .prepare("INSERT INTO legacy_tokens (id, org_id, token_hash, label) VALUES (?, ?, ?, 'bench')")
      .bind(`lgt_${name}`, orgId, await sha256Hex(legacyToken)),
  ]);
  return { key, legacyToken, orgId, storeId };
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

function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`;
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
