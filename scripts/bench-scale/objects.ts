/**
 * `npm run bench:scale [-- --max-stores=10000] [-- --calls=30] [-- --rounds=3] [-- --smoke]`
 *
 * Scale on organizations' own objects (issue 39, item 6; docs/scaling.md): every synthetic
 * organization's inventory lives in its `OrganizationStore`, D1 holds only the directory and the
 * credentials. Served by Miniflare (no Cloudflare account), state on disk in a temporary directory.
 * Levels of 10, 100, 1,000 and 10,000 stores, each adding to the one before, in the mix of
 * ./organizations.ts (a 50-store group from 100 stores on). For each new organization:
 * - D1 gets its directory rows: `organizations`, its `stores`, an API key, a broker token, a staff
 *   user;
 * - its object gets each store's units (the demo store it copies: 125–175 in stock) through the
 *   object's own `applySnapshot`, in batches of organizations (./objects-entry.ts): the write path of
 *   a snapshot without 10,000 HTTP requests.
 * At each level, `--rounds` rounds of `--calls` calls one at a time, after three warm-up calls:
 * the inventory feed (a 100-unit page) of the 1-store organization, of the largest one, and of a
 * different organization each call (its object not called since it was seeded), and a snapshot write
 * (the 1-store organization's whole store, five units repriced: five updates a call). Each call's
 * time here, its sequential round trips (bench:latency's recording, scripts/bench/latency/), and
 * its time under bench:latency's model: the time here plus, for each wave of calls, the model's
 * round trip of its slowest hop. Then the global D1's bytes per store and the objects' SQLite sizes,
 * and a store's month priced (./cost.ts).
 * Writes .bench/scale-objects.json. `--smoke`: 10 stores, 5 calls, 1 round.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { apiKeyDisplayPrefix, BROKER_TOKEN_PREFIX, generateApiKey, generateToken, sha256Hex } from "../../src/credentials/tokens";
import type { DemoOrganization } from "../../src/demo/demo-data";
import { type Call, HOPS, type Hop, modelledWaitMs, ROUND_TRIP_MS, sequentialRoundTrips } from "../bench/latency/model";
import { compatibilityDate, median } from "../bench/startup";
import { apiWorkerOptions, applyMigrations, builtWorker, IN_MEMORY_RATE_LIMITER, machine } from "../bench/worker";
import { runWrangler } from "../lib/local-d1";
import { REPO_ROOT } from "../lib/repo-root";
import { costPerStoreMonth } from "./cost";
import { storeUnits } from "./object-units";
import { LEVELS, staffPasswordHash, syntheticOrganization } from "./organizations";

const OUT_DIR = path.join(REPO_ROOT, ".bench/dist-scale-objects");
const OUT_FILE = path.join(REPO_ROOT, ".bench", "scale-objects.json");
const ORIGIN = "https://api.bench.test";
/** Organizations seeded per request to the Worker (their objects filled side by side). */
const SEED_BATCH = 20;
const REPRICED = 5;

export interface ObjectsOptions {
  maxStores: number;
  calls: number;
  rounds: number;
}

interface Org {
  organization: DemoOrganization;
  apiKey: string;
  brokerToken: string;
}

interface Observed {
  /** The calls on the request's path: where each went, what it was, when (ms from the request's start, here). */
  path: { hop: Hop; what: string; start: number; end: number }[];
  ms: number;
  modelMs: number;
  counts: Record<Hop, number>;
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(0.99 * values.length) - 1];
const load = () => loadavg().map((n) => round(n, 2));

async function observe(mf: Miniflare, pathAndQuery: string, init: RequestInit): Promise<Observed> {
  const fetcher = await mf.getWorker("api");
  const started = performance.now();
  const res = await fetcher.fetch(`${ORIGIN}${pathAndQuery}`, init as never);
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${pathAndQuery} answered ${res.status}: ${text.slice(0, 300)}`);
  const log = JSON.parse(res.headers.get("X-Latency-Calls") ?? "null") as { calls: Call[]; answeredAt: number } | null;
  if (!log) throw new Error("no X-Latency-Calls header: not the bench Worker?");
  // Calls that began before this request are an earlier request's background work.
  const calls = log.calls.filter((c) => c.start >= 0);
  const path = calls.filter((c) => c.end <= log.answeredAt).map(({ hop, what, start, end }) => ({ hop, what, start: round(start), end: round(end) }));
  return { path, ms, modelMs: ms + modelledWaitMs(calls, log.answeredAt), counts: sequentialRoundTrips(calls, log.answeredAt) };
}

/** D1's own figure for the database's size (the `meta.size_after` of any query), what counts against its 10 GB. */
const d1Bytes = async (db: D1Database) => (await db.prepare("SELECT 1").run()).meta.size_after;

/** The new organizations' rows in the global D1, as an organization whose inventory is in its object has them. */
async function seedDirectory(mf: Miniflare, organizations: DemoOrganization[], passwordHash: string): Promise<Org[]> {
  const seeded: Org[] = [];
  const statements: { sql: string; params: unknown[] }[] = [];
  const add = (sql: string, ...params: unknown[]) => statements.push({ sql, params });
  for (const organization of organizations) {
    const apiKey = generateApiKey();
    const brokerToken = generateToken(BROKER_TOKEN_PREFIX);
    const { id, key } = organization;
    seeded.push({ organization, apiKey, brokerToken });
    add("INSERT INTO organizations (id, name, is_demo) VALUES (?, ?, 0)", id, organization.name);
    for (const store of organization.stores) {
      add(
        "INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES (?, ?, ?, ?, ?)",
        store.id,
        id,
        store.name,
        store.primary ? 1 : 0,
        store.marketZip,
      );
    }
    add(
      `INSERT INTO api_keys (id, org_id, key_hash, key_prefix, label, permissions, scopes, daily_limit, created_by)
       VALUES (?, ?, ?, ?, 'dms integration', '["read"]', NULL, 1000000000, 'bench')`,
      `key_${key}`,
      id,
      await sha256Hex(apiKey),
      apiKeyDisplayPrefix(apiKey),
    );
    add("INSERT INTO broker_tokens (id, org_id, token_hash, label) VALUES (?, ?, ?, 'dms feed')", `brk_${key}`, id, await sha256Hex(brokerToken));
    add(
      "INSERT INTO staff_users (id, org_id, email, name, password_hash) VALUES (?, ?, ?, ?, ?)",
      organization.staffUser.id,
      id,
      `desk@${key}.scale.example`,
      organization.staffUser.name,
      passwordHash,
    );
  }
  for (let i = 0; i < statements.length; i += 500) await post(mf, "d1", { statements: statements.slice(i, i + 500) });
  return seeded;
}

async function post(mf: Miniflare, route: string, body: unknown) {
  const res = await (await mf.getWorker("api")).fetch(`${ORIGIN}/__bench-scale/${route}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${route} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  await res.arrayBuffer();
}

/** Each organization's inventory into its object, SEED_BATCH organizations a request. */
async function seedObjects(mf: Miniflare, organizations: DemoOrganization[]) {
  for (let i = 0; i < organizations.length; i += SEED_BATCH) {
    const orgs = organizations.slice(i, i + SEED_BATCH).map((o) => ({
      orgId: o.id,
      stores: o.stores.map((s) => ({ id: s.id, name: s.name, units: s.inStockUnits })),
    }));
    await post(mf, "seed", { orgs });
  }
}

const objectRows = async (mf: Miniflare, org: Org) => {
  const res = await (await mf.getWorker("api")).fetch(`${ORIGIN}/__bench-scale/rows?org=${encodeURIComponent(org.organization.id)}`);
  return (await res.json()) as { read: number; written: number };
};

const objectBytes = async (mf: Miniflare, orgId: string) => {
  const res = await (await mf.getWorker("api")).fetch(`${ORIGIN}/__bench-scale/size?org=${encodeURIComponent(orgId)}`);
  return ((await res.json()) as { bytes: number }).bytes;
};

interface Probe {
  name: string;
  /** The organization whose object's rows read and written are counted (one organization's calls only). */
  counted?: Org;
  /** The request of call number `n` (from 0, counted across rounds). */
  call(n: number): { path: string; init: RequestInit };
}

function probes(small: Org, large: Org, others: Org[]): Probe[] {
  const feed = (org: Org) => ({ path: "/api/v1/inventory?limit=100", init: { headers: { "X-Service-API-Key": org.apiKey } } });
  const store = small.organization.stores[0];
  let shift = 0;
  return [
    { name: "feed, 1-store org", counted: small, call: () => feed(small) },
    { name: `feed, ${large.organization.stores.length}-store org`, counted: large, call: () => feed(large) },
    { name: "feed, another org each call", call: (n) => feed(others[n % others.length]) },
    {
      name: `snapshot, ${store.inStockUnits} units (${REPRICED} repriced)`,
      counted: small,
      call: () => ({
        path: `/api/v1/ingest/inventory?store_id=${store.id}`,
        init: {
          method: "PUT",
          headers: { Authorization: `Bearer ${small.brokerToken}`, "Content-Type": "application/json" },
          // A new price each call: every call writes its five units.
          body: JSON.stringify({ units: storeUnits(1, store.inStockUnits, REPRICED, ++shift * 100) }),
        },
      }),
    },
  ];
}

interface ProbeResult {
  /** Per round: the median and p99 here, the median under the model. */
  rounds: { median_ms: number; p99_ms: number; model_median_ms: number }[];
  median_ms: number;
  p99_ms: number;
  model_median_ms: number;
  /** The sequential round trips of the median call, by hop. */
  round_trips: Partial<Record<Hop, number>>;
  /** The binding calls of the last call, in order. */
  last_call: Observed["path"];
  /** SQLite rows a call read and wrote in the object (mean), for the probes of one organization. */
  object_rows_per_call?: { read: number; written: number };
}

async function measure(mf: Miniflare, probe: Probe, options: ObjectsOptions, counter: { n: number }): Promise<ProbeResult> {
  for (let i = 0; i < 3; i++) {
    const { path: p, init } = probe.call(counter.n++);
    await observe(mf, p, init);
  }
  if (probe.counted) await objectRows(mf, probe.counted);
  const rounds: ProbeResult["rounds"] = [];
  const all: Observed[] = [];
  for (let r = 0; r < options.rounds; r++) {
    const observed: Observed[] = [];
    for (let i = 0; i < options.calls; i++) {
      const { path: p, init } = probe.call(counter.n++);
      observed.push(await observe(mf, p, init));
    }
    all.push(...observed);
    const ms = observed.map((o) => o.ms);
    rounds.push({ median_ms: round(median(ms)), p99_ms: round(p99(ms)), model_median_ms: round(median(observed.map((o) => o.modelMs))) });
  }
  const roundTrips = Object.fromEntries(HOPS.map((hop) => [hop, median(all.map((o) => o.counts[hop]))]).filter(([, n]) => (n as number) > 0));
  const rows = probe.counted && (await objectRows(mf, probe.counted));
  const calls = options.calls * options.rounds;
  return {
    ...(rows && { object_rows_per_call: { read: round(rows.read / calls), written: round(rows.written / calls) } }),
    rounds,
    median_ms: round(median(all.map((o) => o.ms))),
    p99_ms: round(p99(all.map((o) => o.ms))),
    model_median_ms: round(median(all.map((o) => o.modelMs))),
    round_trips: roundTrips,
    last_call: all[all.length - 1].path,
  };
}

interface LevelResult {
  stores: number;
  organizations: number;
  seeding_s: number;
  load_average: { before: number[]; after: number[] };
  probes: Record<string, ProbeResult>;
  d1_bytes: number;
  d1_bytes_per_store: number;
  largest_org: { stores: number; units: number; object_bytes: number };
  one_store_org: { units: number; object_bytes: number };
  cost_per_store_month_usd: ReturnType<typeof costPerStoreMonth>;
}

const spread = (r: ProbeResult) => {
  const medians = r.rounds.map((x) => x.median_ms);
  return r.rounds.length > 1 ? ` (${Math.min(...medians)}–${Math.max(...medians)})` : "";
};
const hops = (r: ProbeResult) =>
  Object.entries(r.round_trips)
    .map(([hop, n]) => `${n} ${hop.replace("_", " ")}`)
    .join(", ");

function printLevel(r: LevelResult) {
  const mib = (b: number) => (b / 1024 ** 2).toFixed(2);
  console.log(
    `\n## ${r.stores.toLocaleString("en-US")} stores, ${r.organizations.toLocaleString("en-US")} organizations (objects); seeded in ${r.seeding_s} s; load average ${r.load_average.before.join(" ")} → ${r.load_average.after.join(" ")}\n`,
  );
  console.log("| request | median ms (rounds' medians) | p99 ms | round trips | median under the model ms |");
  console.log("|---|---:|---:|---|---:|");
  for (const [name, p] of Object.entries(r.probes))
    console.log(`| ${name} | ${p.median_ms}${spread(p)} | ${p.p99_ms} | ${hops(p)} | ${p.model_median_ms} |`);
  console.log(`global D1: ${mib(r.d1_bytes)} MiB, ${(r.d1_bytes_per_store / 1024).toFixed(1)} KiB per store over the empty schema`);
  const cost = r.cost_per_store_month_usd;
  console.log(
    `cost per store per month (USD; ${cost.assumptions.feed_pages} feed pages, ${cost.assumptions.snapshots} snapshots): ${Object.entries(cost.lines)
      .map(([line, usd]) => `${line} ${usd.toFixed(5)}`)
      .join(", ")} → ${cost.total.toFixed(4)}`,
  );
  console.log(
    `objects: the ${r.largest_org.stores}-store org's ${mib(r.largest_org.object_bytes)} MiB (${r.largest_org.units} units, ${Math.round(r.largest_org.object_bytes / r.largest_org.units)} B a unit); a 1-store org's ${mib(r.one_store_org.object_bytes)} MiB (${r.one_store_org.units} units)`,
  );
}

export async function runObjects(options: ObjectsOptions) {
  const levels = LEVELS.filter((l) => l.stores <= options.maxStores);
  if (levels.length === 0) throw new Error(`--max-stores must be at least ${LEVELS[0].stores}`);
  runWrangler(["deploy", "scripts/bench-scale/objects-entry.ts", "--dry-run", "--outdir", OUT_DIR], { captureStdout: true });
  const date = compatibilityDate();
  const dir = mkdtempSync(path.join(tmpdir(), "dealer-intel-scale-objects-"));
  console.log(`bench:scale in ${dir}: levels ${levels.map((l) => l.stores).join(", ")} stores, ${options.rounds} × ${options.calls} calls`);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: dir,
      workers: [
        {
          name: "api",
          ...builtWorker(path.join(OUT_DIR, "objects-entry.js")),
          ...apiWorkerOptions(date),
          bindings: { ...apiWorkerOptions(date).bindings, LATENCY_MODEL: "off" },
        },
        { name: "bench-ratelimit", modules: true, script: IN_MEMORY_RATE_LIMITER, compatibilityDate: date },
      ],
    }),
  );
  const started = performance.now();
  const results: LevelResult[] = [];
  try {
    await mf.ready;
    const db = await mf.getD1Database("DB", "api");
    await applyMigrations(db);
    const baseBytes = await d1Bytes(db);
    const passwordHash = await staffPasswordHash();
    const orgs: Org[] = [];
    const counter = { n: 0 };
    let orgNumber = 0;
    for (const level of levels) {
      const adding = level.adds.flatMap(([size, count]) => Array.from({ length: count }, () => syntheticOrganization(++orgNumber, size)));
      const seedStart = performance.now();
      const added = await seedDirectory(mf, adding, passwordHash);
      orgs.push(...added);
      await seedObjects(
        mf,
        added.map((o) => o.organization),
      );
      const seeding_s = round((performance.now() - seedStart) / 1000);
      console.log(`${level.stores} stores: ${added.length} organizations seeded in ${seeding_s} s`);
      const small = orgs.find((o) => o.organization.stores.length === 1) as Org;
      const large = orgs.reduce((a, b) => (b.organization.stores.length > a.organization.stores.length ? b : a));
      // This level's organizations, spread over all of them: their objects last called by the seeding
      // (at 10 stores there are three, so the calls go round them).
      const fresh = added.filter((o) => o !== small && o !== large);
      const step = Math.max(1, Math.floor(fresh.length / (options.calls * options.rounds + 3)));
      const others = fresh.filter((_, i) => i % step === 0);
      // The load while measuring (the seeding's own work is over).
      const before = load();
      const measured: Record<string, ProbeResult> = {};
      for (const probe of probes(small, large, others)) {
        measured[probe.name] = await measure(mf, probe, options, counter);
        console.log(`  ${probe.name}: ${measured[probe.name].median_ms} ms${spread(measured[probe.name])}`);
      }
      const bytes = await d1Bytes(db);
      const unitsOf = (o: Org) => o.organization.stores.reduce((sum, s) => sum + s.inStockUnits, 0);
      const largestBytes = await objectBytes(mf, large.organization.id);
      const smallBytes = await objectBytes(mf, small.organization.id);
      const d1PerStore = Math.round((bytes - baseBytes) / level.stores);
      const [feed, , , snapshot] = Object.values(measured);
      const noRows = { read: 0, written: 0 };
      const result: LevelResult = {
        stores: level.stores,
        organizations: orgs.length,
        seeding_s,
        load_average: { before, after: load() },
        probes: measured,
        d1_bytes: bytes,
        d1_bytes_per_store: d1PerStore,
        largest_org: { stores: large.organization.stores.length, units: unitsOf(large), object_bytes: largestBytes },
        one_store_org: { units: unitsOf(small), object_bytes: smallBytes },
        cost_per_store_month_usd: costPerStoreMonth({
          feed_ms: feed.median_ms,
          snapshot_ms: snapshot.median_ms,
          feed_rows: feed.object_rows_per_call ?? noRows,
          snapshot_rows: snapshot.object_rows_per_call ?? noRows,
          object_bytes_per_store: Math.max(smallBytes, largestBytes / large.organization.stores.length),
          d1_bytes_per_store: d1PerStore,
        }),
      };
      results.push(result);
      printLevel(result);
      mkdirSync(path.dirname(OUT_FILE), { recursive: true });
      writeFileSync(
        OUT_FILE,
        `${JSON.stringify({ machine: machine(), model_ms: ROUND_TRIP_MS, calls: options.calls, rounds: options.rounds, total_s: round((performance.now() - started) / 1000), levels: results }, null, 2)}\n`,
      );
    }
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${machine()}; ${round((performance.now() - started) / 1000)} s in all; ${path.relative(REPO_ROOT, OUT_FILE)}`);
}
