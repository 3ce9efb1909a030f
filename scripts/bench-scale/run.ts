/**
 * `npm run bench:scale [-- --max-stores=1000] [-- --calls=7] [-- --smoke]`
 *
 * How the service's cost grows with the number of stores in one D1 database (issue 21). In a
 * temporary directory it applies the migrations to a fresh local D1 (wrangler's own file), writes
 * synthetic organizations into that file with the demo generator (scripts/bench-scale/
 * organizations.ts: 10, then 100, then 1,000 stores, each level adding to the one before, in a
 * mix of sizes with a 50-store group from 100 stores on), then at each level serves it with
 * `wrangler dev` (QUERY_LOG=1) and measures:
 * - each feed and report endpoint over HTTP for a 1-store organization and the largest one (the
 *   first call, then the median of `--calls`);
 * - EXPLAIN QUERY PLAN of every distinct statement the Worker ran, the crons' jobs included (fails
 *   the run, exit 1, on a full scan of a tenant table, listing them; lists the statements that read
 *   every row an organization has in a growing table, which are linear in the organization's size);
 * - the SQL time of each endpoint's first call (its statements replayed on the file: later calls
 *   may be answered from per-isolate caches), and each cron's jobs over every store;
 * - ingestion of a 1,000-unit snapshot (new, unchanged, hourly with 50 changed);
 * - the database's size, and the writer's busy time per store per day under an assumed daily mix
 *   (WRITE_MIX below), hence where one database saturates: 10 GB, or 86,400 s of writer time a day.
 * Prints a table per level and writes .bench/scale.json. `--smoke`: 10 stores, 3 calls (about 70 s).
 * `--objects`: every organization's inventory in its own object instead, to 10,000 stores (./objects.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { gunzipSync } from "node:zlib";
import { sanctionsListLoad } from "../../src/db/queries/compliance";
import { sanctionsListId } from "../../src/engines/screening/list-load";
import { parseSanctionsList } from "../../src/engines/screening/ofac-csv";
import { sanctionsContentHash } from "../../src/jobs/refresh-sanctions-list";
import { dmsUnit } from "../bench/dms-unit";
import { machine } from "../bench/worker";
import { todayUtc } from "../lib/demo-seed";
import { runWrangler } from "../lib/local-d1";
import { REPO_ROOT } from "../lib/repo-root";
import { DEMO_OFAC_DIR, listVersion } from "../lib/sanctions-list";
import {
  LEVELS,
  type SeededOrganization,
  seedIngestOrganization,
  seedOrganizations,
  staffPasswordHash,
  syntheticOrganization,
} from "./organizations";
import { explainAll, type LoggedStatement, type PlannedStatement } from "./query-plans";
import { type BenchWorker, startWorker } from "./worker";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : fallback;
};
const smoke = args.includes("--smoke");
const maxStores = smoke ? 10 : option("max-stores", 1000);
const CALLS = option("calls", smoke ? 3 : 7);
const OUT_FILE = path.join(REPO_ROOT, ".bench", "scale.json");

/** Writes a day brings per store (assumptions, stated in BENCHMARKS.md#scale). */
const WRITE_MIX = {
  /** The DMS sends a full snapshot every hour (docs/ingestion.md); 50 of 1,000 units changed. */
  ingest_hourly: 24,
  /** 50–80 deals a month is 2–3 a day; buyer, co-buyer and the credit applications that do not close: 20 screenings. */
  compliance_check: 20,
  /** An isolate writes its usage at most every 10 s; a store's integrations polling every 5 minutes land in 288 flushes. */
  usage_flush: 288,
};
/** The crons whose jobs read tenant data (the sanctions and market refreshes download instead). */
const CRONS = ["15 0 * * *", "*/5 * * * *"];
/** Runs a day of each cron: its whole run (HTTP time, an upper bound of its database time) is shared by the stores. */
const CRON_RUNS_PER_DAY: Record<string, number> = { "15 0 * * *": 1, "*/5 * * * *": 288 };
const USAGE_TABLES = /"?(key_usage_daily|org_activity|platform_daily)"?/;
const D1_MAX_BYTES = 10 * 1000 ** 3;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Probe {
  name: string;
  method?: "GET" | "POST";
  path: string;
  body?: unknown;
}

const YEAR = new Date().getUTCFullYear();
const PROBES: Probe[] = [
  // A parameter skips the per-isolate feed cache (docs/feeds.md): every call reads the database.
  { name: "inventory (D1)", path: "/api/v1/inventory?limit=100" },
  { name: "sales-summary", path: "/api/v1/sales-summary?limit=200" },
  // The generator clears the measured organizations' alert totals (as if every store had just changed and
  // nothing had recomputed them): this first call recomputes every store's. The next probe is the
  // steady state, where ingestion and the 00:15 job keep them (docs/reports.md#totals).
  // (Another page size: the next probe's first call is not this one's page from memory.)
  { name: "inventory-alerts, all stores' totals stale", path: "/api/v1/inventory-alerts?limit=250" },
  { name: "inventory-alerts", path: "/api/v1/inventory-alerts" },
  { name: "morning-briefing", method: "POST", path: "/api/v1/morning-briefing", body: { role: "gm" } },
  { name: "market-pulse", path: "/api/v1/market-pulse" },
  {
    name: "lender-route",
    method: "POST",
    path: "/api/v1/lender-route",
    body: { beacon: 612, down_payment: 2500, vehicle_price: 21_995, vehicle_type: "suv", known_issues: ["charge_off"], term_months: 72 },
  },
  {
    name: "stip-check",
    method: "POST",
    path: "/api/v1/stip-check",
    body: { lender: "Fresh Start Auto Lending", beacon: 548, known_issues: ["bk13"], income_type: "w2" },
  },
  {
    name: "trade-appraisal",
    method: "POST",
    path: "/api/v1/trade-appraisal",
    body: {
      year: YEAR - 3,
      make: "Toyota",
      model: "Camry",
      trim: "SE",
      mileage: 48_200,
      market_zip: "80234",
      condition_notes: "Door ding, tires worn.",
    },
  },
  {
    name: "compliance-check",
    method: "POST",
    path: "/api/v1/compliance-check",
    body: { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", ssn_last4: "4821", address_zip: "78704" },
  },
];

async function request(url: string, init: { method?: string; body?: unknown; headers: Record<string, string>; raw?: string; timeoutMs?: number }) {
  const started = performance.now();
  const res = await fetch(url, {
    signal: AbortSignal.timeout(init.timeoutMs ?? 120_000),
    method: init.method ?? "GET",
    headers: { ...(init.body !== undefined || init.raw ? { "Content-Type": "application/json" } : {}), ...init.headers },
    body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status}: ${text.slice(0, 400)}`);
  return { ms, text };
}

interface Timing {
  first_ms: number;
  median_ms: number;
  /** What the first call (cold per-isolate caches) ran: its statements, and their time replayed on the file. */
  first_call_statements: number;
  first_call_sql_ms?: number | string;
}

/** The phase of a probe's first call: its statements are one uncached call's (the later calls may be answered from memory). */
const FIRST_CALL = "#first";

/** The first call (cold caches), then the median of CALLS more; statements counted from the query log. */
async function timeProbe(worker: BenchWorker, probe: Probe, key: string, phase: string): Promise<Timing> {
  const call = () => request(`${worker.url}${probe.path}`, { method: probe.method, body: probe.body, headers: { "X-Service-API-Key": key } });
  worker.setPhase(`${phase}${FIRST_CALL}`);
  const first = (await call()).ms;
  await sleep(150);
  worker.setPhase(phase);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) times.push((await call()).ms);
  return { first_ms: round(first), median_ms: round(median(times)), first_call_statements: firstCallStatements(worker.statements, phase).length };
}

const firstCallStatements = (statements: LoggedStatement[], phase: string) =>
  statements.filter((s) => s.phase === `${phase}${FIRST_CALL}` && !USAGE_TABLES.test(s.sql));

/** A 1,000-unit snapshot for the ingestion measurement; `changed` units get a new asking price. */
function snapshot(level: number, changed: number, round: number) {
  return JSON.stringify({
    units: Array.from({ length: 1000 }, (_, i) =>
      dmsUnit(`L${level}-${String(i).padStart(5, "0")}`, level * 10_000 + i, i < changed ? round * 100 : 0),
    ),
  });
}

async function measureIngestion(worker: BenchWorker, level: number, storeId: string, brokerToken: string) {
  const put = async (phase: string, body: string) => {
    worker.setPhase(phase);
    const { ms, text } = await request(`${worker.url}/api/v1/ingest/inventory?store_id=${storeId}`, {
      method: "PUT",
      raw: body,
      headers: { Authorization: `Bearer ${brokerToken}` },
    });
    await sleep(200);
    return { ms: round(ms), answer: JSON.parse(text) as Record<string, number> };
  };
  const created = await put("ingest_create", snapshot(level, 0, 0));
  const unchanged = await put("ingest_unchanged", snapshot(level, 0, 0));
  const hourly = await put("ingest_hourly", snapshot(level, 50, 1));
  return { created, unchanged, hourly };
}

/**
 * The database's time for one operation: its statements (reads included: a write request reads
 * at the primary) run again on the file, committed, median of three. A plain INSERT runs as
 * INSERT OR REPLACE, since its row exists now (a little more work than the first insert).
 */
function replay(db: DatabaseSync, statements: LoggedStatement[], end: "COMMIT" | "ROLLBACK" = "COMMIT"): number | string {
  // Nothing reached D1: answered from a per-isolate cache (reference data).
  if (statements.length === 0) return "–";
  const times: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      db.exec("BEGIN IMMEDIATE");
      for (const s of statements) {
        const sql =
          /^\s*insert\s+into/i.test(s.sql) && !/on conflict/i.test(s.sql) ? s.sql.replace(/^\s*insert\s+into/i, "INSERT OR REPLACE INTO") : s.sql;
        db.prepare(sql).all(...(s.params as SQLInputValue[]));
      }
      db.exec(end);
      times.push(performance.now() - started);
    }
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    return `replay failed: ${error instanceof Error ? error.message : error}`;
  }
  return round(median(times), 2);
}

/** One usage flush: the last logged write of each usage statement. */
function lastUsageFlush(statements: LoggedStatement[]): LoggedStatement[] {
  const last = new Map<string, LoggedStatement>();
  for (const s of statements) if (USAGE_TABLES.test(s.sql) && /^\s*(insert|update)/i.test(s.sql)) last.set(s.sql, s);
  return [...last.values()];
}

function d1File(persistTo: string): string {
  const dir = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database file in ${dir}`);
  return path.join(dir, file);
}

/** The whole file once the WAL is folded in: what D1 counts against its 10 GB. */
function databaseBytes(db: DatabaseSync, file: string): number {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return statSync(file).size;
}

async function loadSanctionsList(db: DatabaseSync) {
  const read = (name: string) => gunzipSync(readFileSync(path.join(DEMO_OFAC_DIR, `${name}.gz`))).toString("utf8");
  const files = { sdn: read("sdn.csv"), alt: read("alt.csv"), comments: read("sdn_comments.csv") };
  const list = parseSanctionsList(files);
  const contentHash = await sanctionsContentHash(files);
  const { rows, activate } = sanctionsListLoad(list, {
    id: sanctionsListId(contentHash),
    ...listVersion(DEMO_OFAC_DIR),
    source: "file:bench-scale",
    contentHash,
    loadedAt: new Date().toISOString(),
  });
  db.exec("BEGIN");
  for (const s of [...rows, ...activate]) db.prepare(s.sql).run(...(s.params as SQLInputValue[]));
  db.exec("COMMIT");
}

interface LevelResult {
  stores: number;
  organizations: number;
  generation_s: number;
  rows_added: Record<string, number>;
  small_org: { id: string; stores: number };
  large_org: { id: string; stores: number };
  endpoints: Record<string, { small: Timing; large: Timing }>;
  /** One run of each cron's jobs over every store (GET /__scheduled), and the jobs that failed. */
  cron_ms: Record<string, number | string>;
  /** Statements one run of each cron made: D1 allows 1,000 per invocation (PLATFORM.md §8.1). */
  cron_statements: Record<string, number>;
  job_failures: string[];
  ingestion_ms_per_1000: { created: number; unchanged: number; hourly_50_changed: number };
  database_bytes: number;
  bytes_per_store: number;
  writer_ms: Record<keyof typeof WRITE_MIX, number | string>;
  writer_s_per_store_day: number;
  /** The crons' share of it: a day of their runs over every store, divided by the stores. */
  cron_s_per_store_day: number;
  saturates_at_stores: { size: number; writer_time: number };
  plans: PlannedStatement[];
}

function printLevel(r: LevelResult) {
  const mb = (b: number) => (b / 1024 ** 2).toFixed(1);
  console.log(
    `\n## ${r.stores} stores (${r.organizations} organizations; generated in ${r.generation_s} s): 1-store org ${r.small_org.id}, largest ${r.large_org.id} (${r.large_org.stores} stores)\n`,
  );
  const n = r.large_org.stores;
  console.log(
    `| endpoint | 1-store first ms | 1-store median ms | 1-store SQL ms | ${n}-store first ms | ${n}-store median ms | ${n}-store SQL ms | statements (first call) |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const [name, { small, large }] of Object.entries(r.endpoints)) {
    console.log(
      `| ${name} | ${small.first_ms} | ${small.median_ms} | ${small.first_call_sql_ms} | ${large.first_ms} | ${large.median_ms} | ${large.first_call_sql_ms} | ${small.first_call_statements} / ${large.first_call_statements} |`,
    );
  }
  const ing = r.ingestion_ms_per_1000;
  console.log(
    `ingestion, 1,000 units over HTTP: ${ing.created} ms new, ${ing.unchanged} ms unchanged, ${ing.hourly_50_changed} ms hourly (50 changed)`,
  );
  console.log(`database: ${mb(r.database_bytes)} MiB, ${mb(r.bytes_per_store)} MiB per store`);
  console.log(
    `writer time per operation (ms): ${Object.entries(r.writer_ms)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}, crons ${r.cron_s_per_store_day} s a day per store → ${r.writer_s_per_store_day} s per store per day`,
  );
  console.log(
    `one database saturates at ~${r.saturates_at_stores.size.toLocaleString("en-US")} stores by size, ~${r.saturates_at_stores.writer_time.toLocaleString("en-US")} by writer time`,
  );
  console.log(
    `crons over every store (statements): ${Object.entries(r.cron_statements)
      .map(([c, n]) => `${c} → ${n}`)
      .join(", ")}`,
  );
  console.log(
    `crons over every store (ms): ${Object.entries(r.cron_ms)
      .map(([c, ms]) => `${c} → ${ms}`)
      .join(", ")}`,
  );
  for (const failure of r.job_failures) console.log(`  job failed: ${failure}`);
  const orgWide = r.plans.filter((p) => p.orgWideReads.length > 0);
  console.log(`reads of every row an organization has in a table (cost grows with the organization): ${orgWide.length} statements`);
  for (const p of orgWide) {
    const reads = p.orgWideReads.map((w) => `${w.table}${w.nested ? " (once per row of a join: quadratic)" : ""}`).join(", ");
    console.log(`  ${reads} in [${p.phases.join(", ")}]: ${p.sql.slice(0, 160)}`);
  }
  const scans = r.plans.filter((p) => p.tenantScans.length > 0);
  console.log(`EXPLAIN QUERY PLAN: ${r.plans.length} distinct statements, ${scans.length} with a full scan of a tenant table`);
  for (const p of scans)
    console.log(`  SCAN ${p.tenantScans.join(", ")} in [${p.phases.join(", ")}]: ${p.sql.slice(0, 300)}\n    plan: ${p.plan.join(" | ")}`);
}

/** Written after each level, so a run stopped at 1,000 stores keeps the figures of 10 and 100. */
function writeSummary(results: LevelResult[], started: number, loadStart: number[]) {
  const summary = {
    machine: machine(),
    load_average: { start: loadStart.map((n) => round(n, 2)), end: loadavg().map((n) => round(n, 2)) },
    total_s: round((performance.now() - started) / 1000),
    calls_per_figure: CALLS,
    write_mix_per_store_day: WRITE_MIX,
    levels: results,
  };
  mkdirSync(path.dirname(OUT_FILE), { recursive: true });
  writeFileSync(OUT_FILE, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

async function main() {
  const levels = LEVELS.filter((l) => l.stores <= maxStores);
  if (levels.length === 0) throw new Error(`--max-stores must be at least ${LEVELS[0].stores}`);
  const started = performance.now();
  const loadStart = loadavg();
  const dir = mkdtempSync(path.join(tmpdir(), "dealer-intel-scale-"));
  const persistTo = path.join(dir, "state");
  console.log(`bench:scale in ${dir}: levels ${levels.map((l) => l.stores).join(", ")} stores, ${CALLS} calls per figure`);
  const results: LevelResult[] = [];
  try {
    runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], { captureStdout: true });
    const file = d1File(persistTo);
    let db = new DatabaseSync(file);
    await loadSanctionsList(db);
    const ingest = await seedIngestOrganization(db, levels.length);
    const baseBytes = databaseBytes(db, file);
    db.close();
    const referenceDate = todayUtc();
    const passwordHash = await staffPasswordHash();
    const organizations: SeededOrganization[] = [];
    let orgNumber = 0;

    for (const [index, level] of levels.entries()) {
      const adding = level.adds.flatMap(([size, count]) => Array.from({ length: count }, () => syntheticOrganization(++orgNumber, size)));
      const generationStart = performance.now();
      db = new DatabaseSync(file);
      const { seeded, rowCounts } = await seedOrganizations(db, adding, referenceDate, passwordHash);
      organizations.push(...seeded);
      const generation_s = round((performance.now() - generationStart) / 1000);
      // The same 1-store organization at every level; the largest one so far (the 50-store group from 100 stores on).
      const small = organizations.find((o) => o.organization.stores.length === 1) as SeededOrganization;
      const large = organizations.reduce((a, b) => (b.organization.stores.length > a.organization.stores.length ? b : a));
      db.prepare("UPDATE api_keys SET daily_limit = 1000000000 WHERE org_id IN (?, ?)").run(small.organization.id, large.organization.id);
      // A briefing is built once a day and then stored: the measured organizations' are removed so each level builds them again.
      db.prepare("DELETE FROM morning_briefings WHERE org_id IN (?, ?)").run(small.organization.id, large.organization.id);
      db.prepare("UPDATE inventory_alert_totals SET day = NULL WHERE org_id IN (?, ?)").run(small.organization.id, large.organization.id);
      db.close();
      console.log(
        `\n${level.stores} stores: ${seeded.length} organizations added in ${generation_s} s (${rowCounts.deals ?? 0} deals, ${rowCounts.inventory_units ?? 0} units)`,
      );

      const worker = await startWorker(persistTo);
      let endpoints: LevelResult["endpoints"] = {};
      const crons: Record<string, number | string> = {};
      let ingestion: Awaited<ReturnType<typeof measureIngestion>>;
      let complianceWrite: LoggedStatement[];
      try {
        endpoints = {};
        for (const probe of PROBES) {
          endpoints[probe.name] = {
            small: await timeProbe(worker, probe, small.apiKey, `${probe.name}:1-store`),
            large: await timeProbe(worker, probe, large.apiKey, `${probe.name}:${large.organization.stores.length}-store`),
          };
          console.log(`  ${probe.name}: ${endpoints[probe.name].small.median_ms} / ${endpoints[probe.name].large.median_ms} ms`);
        }
        ingestion = await measureIngestion(worker, index, ingest.storeIds[index], ingest.brokerToken);
        // One compliance check alone, so its statements are one operation's.
        const compliance = PROBES.find((p) => p.name === "compliance-check") as Probe;
        const before = worker.statements.length;
        worker.setPhase("write:compliance-check");
        await request(`${worker.url}${compliance.path}`, { method: "POST", body: compliance.body, headers: { "X-Service-API-Key": small.apiKey } });
        await sleep(300);
        complianceWrite = worker.statements.slice(before).filter((s) => s.phase === "write:compliance-check" && !USAGE_TABLES.test(s.sql));
        // Usage is written every 10 s per isolate: wait for the last calls' flush.
        await sleep(11_000);
        await request(`${worker.url}/health`, { headers: {} });
        await sleep(1000);
        // Last: a cron over every store in one invocation may fail at 1,000 stores (issue 21), and take the server with it.
        for (const cron of CRONS) {
          worker.setPhase(`cron ${cron}`);
          try {
            const { ms } = await request(`${worker.url}/__scheduled?cron=${encodeURIComponent(cron)}`, { headers: {}, timeoutMs: 600_000 });
            crons[cron] = round(ms);
          } catch (error) {
            crons[cron] = `failed: ${error instanceof Error ? error.message : error}`;
            worker.jobFailures.push(`${cron}: ${crons[cron]}; wrangler's output ends:\n${worker.outputTail().slice(-1500)}`);
          }
          console.log(`  cron ${cron}: ${crons[cron]}${typeof crons[cron] === "number" ? " ms" : ""}`);
        }
      } finally {
        await worker.stop();
      }

      db = new DatabaseSync(file);
      const plans = explainAll(db, worker.statements);
      // The SQL of one uncached call (reads, and its writes rolled back), on this level's file.
      for (const probe of PROBES) {
        for (const [side, org] of [
          ["small", "1-store"],
          ["large", `${large.organization.stores.length}-store`],
        ] as const) {
          endpoints[probe.name][side].first_call_sql_ms = replay(db, firstCallStatements(worker.statements, `${probe.name}:${org}`), "ROLLBACK");
        }
      }
      const ingestStatements = worker.statements.filter((s) => s.phase === "ingest_hourly" && !USAGE_TABLES.test(s.sql));
      const writer_ms = {
        ingest_hourly: replay(db, ingestStatements),
        compliance_check: replay(db, complianceWrite),
        usage_flush: replay(db, lastUsageFlush(worker.statements)),
      };
      // A replay that failed counts at its HTTP time (an upper bound); usage has no request of its own.
      const opMs = (k: keyof typeof WRITE_MIX) => {
        const v = writer_ms[k];
        if (typeof v === "number") return v;
        if (k === "ingest_hourly") return ingestion.hourly.ms;
        if (k === "compliance_check") return endpoints["compliance-check"].small.median_ms;
        return 0;
      };
      const cronSecondsPerStoreDay = Object.entries(crons).reduce(
        (sum, [cron, ms]) => sum + (typeof ms === "number" ? (ms * CRON_RUNS_PER_DAY[cron]) / 1000 / level.stores : 0),
        0,
      );
      const writerSecondsPerStoreDay =
        cronSecondsPerStoreDay + (Object.keys(WRITE_MIX) as (keyof typeof WRITE_MIX)[]).reduce((sum, k) => sum + (opMs(k) * WRITE_MIX[k]) / 1000, 0);
      const bytes = databaseBytes(db, file);
      db.close();
      const bytesPerStore = (bytes - baseBytes) / level.stores;
      const result: LevelResult = {
        stores: level.stores,
        organizations: organizations.length,
        generation_s,
        rows_added: rowCounts,
        small_org: { id: small.organization.id, stores: 1 },
        large_org: { id: large.organization.id, stores: large.organization.stores.length },
        endpoints,
        cron_ms: crons,
        cron_statements: Object.fromEntries(CRONS.map((cron) => [cron, worker.statements.filter((st) => st.phase === `cron ${cron}`).length])),
        job_failures: worker.jobFailures,
        ingestion_ms_per_1000: { created: ingestion.created.ms, unchanged: ingestion.unchanged.ms, hourly_50_changed: ingestion.hourly.ms },
        database_bytes: bytes,
        bytes_per_store: Math.round(bytesPerStore),
        writer_ms,
        writer_s_per_store_day: round(writerSecondsPerStoreDay, 2),
        cron_s_per_store_day: round(cronSecondsPerStoreDay, 3),
        saturates_at_stores: {
          size: Math.floor((D1_MAX_BYTES - baseBytes) / bytesPerStore),
          writer_time: Math.floor(86_400 / writerSecondsPerStoreDay),
        },
        plans,
      };
      results.push(result);
      printLevel(result);
      writeSummary(results, started, loadStart);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const summary = writeSummary(results, started, loadStart);
  console.log(
    `\n${summary.machine}; load average ${summary.load_average.start.join(" ")} → ${summary.load_average.end.join(" ")}; ${summary.total_s} s in all; ${path.relative(REPO_ROOT, OUT_FILE)}`,
  );

  const scans = new Map<string, PlannedStatement>();
  for (const r of results) for (const p of r.plans) if (p.tenantScans.length > 0) scans.set(p.sql, p);
  if (scans.size > 0) {
    console.error(`\nFAIL: ${scans.size} statement(s) scan a whole tenant table:`);
    for (const p of scans.values())
      console.error(`- SCAN ${p.tenantScans.join(", ")} [${p.phases.join(", ")}]\n  ${p.sql}\n  plan: ${p.plan.join(" | ")}`);
    process.exitCode = 1;
  }
}

// `--objects`: organizations' inventory in their own objects, up to 10,000 stores (./objects.ts).
const run = args.includes("--objects")
  ? () =>
      import("./objects").then(({ runObjects }) =>
        runObjects({
          maxStores: smoke ? 10 : option("max-stores", 10_000),
          calls: option("calls", smoke ? 5 : 30),
          rounds: smoke ? 1 : option("rounds", 3),
        }),
      )
  : main;
run().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
