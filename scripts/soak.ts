/**
 * `npm run soak -- --minutes=10 [--connections=16] [--warmup-minutes=2] [--max-requests=N] [--drain-seconds=120] [--quota-check]`
 *
 * Serves the Worker as `npm run bench` does (scripts/bench/worker.ts: the deploy bundle in workerd,
 * the bench's seed, the webhooks queue with WEBHOOK_ALLOW_LOCALHOST) and sends it, on 127.0.0.1
 * only, a dealer group's mix for N minutes from a fixed number of connections: feeds 40%, engines
 * 30%, compliance 10% (a fifth of them a sanctioned name, each raising `compliance.hold_triggered`),
 * public embeds 15%, ingestion 5% (inventory snapshots that move a few units, deals whose stips
 * raise `deal.stip_alert`). Two webhook endpoints point at a receiver on 127.0.0.1 that verifies
 * every signature. It stops by itself at N minutes or `--max-requests`, whichever comes first.
 *
 * Every minute it prints throughput, p50/p99, the Worker's memory and workerd's resident memory.
 * The Worker's memory is its isolate's: the JavaScript heap, the runtime's objects and ArrayBuffer
 * backing stores, what Workers' 128 MB per-isolate limit counts, read through the inspector every
 * second (the QuotaCounter objects run in the same isolate); the minute column is the lowest
 * reading of the last 30 s. workerd's RSS (VmRSS of the process Miniflare spawned) is printed
 * beside it but is not the criterion: it also holds the local simulators of D1, Durable Object
 * storage and Queues, whose SQLite page caches grow with the data the soak writes, and which run
 * on other machines in production. It fails (exit 1) on:
 * - any 5xx, network error or timeout (and any other non-2xx: the workload itself went wrong);
 * - Worker memory growth of more than 10% after warm-up: what the isolate still holds after a full
 *   collection (a heap snapshot forces one) at the end of the load, against the same at the end of
 *   the warm-up (the first two minutes, `--warmup-minutes`: the sanctions index and the feed caches
 *   are built then). A run no longer than the warm-up says its memory was not checked;
 * - a lost webhook: after the load, every event in the outbox must reach the receiver once per
 *   subscribed endpoint within the drain timeout, and the outbox must hold exactly the events the
 *   answers said they raised (holds answered, `stip_alerts` counted).
 *
 * `--quota-check` first sends 1,000 simultaneous calls on a fresh key with a daily limit of 600:
 * exactly 600 must be admitted and 400 refused with 429. Alone (no `--minutes`) it runs only that.
 */
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { apiKeyDisplayPrefix, generateApiKey, sha256Hex } from "../src/credentials/tokens";
import { appraisalBench } from "./bench/areas/appraisal";
import { complianceBench } from "./bench/areas/compliance";
import { dealDeskArea } from "./bench/areas/deal-desk";
import { brokerToken, submittedDeal } from "./bench/areas/events";
import { feedsArea } from "./bench/areas/feeds";
import { publicArea } from "./bench/areas/public";
import { dmsUnit } from "./bench/dms-unit";
import { connectInspector } from "./bench/inspector";
import { type BenchFixture, clientAddress, requestInit, type Scenario } from "./bench/scenario";
import { build, machine, migrateAndSeed, pendingWork, serve } from "./bench/worker";

const args = process.argv.slice(2);
const option = (name: string): number | undefined => {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : undefined;
};
const quotaCheck = args.includes("--quota-check");
const minutes = option("minutes") ?? (quotaCheck ? 0 : 10);
const connections = option("connections") ?? 16;
/**
 * Long enough for workerd's heap to reach its working size: on the shared 2-core machine (about
 * 45 req/s) RSS rose through the first two minutes and then held within 1% for three (BENCHMARKS.md, Soak).
 */
const warmupMinutes = option("warmup-minutes") ?? 2;
/** A hard bound on the run's size whatever the machine's speed (the key's daily limit is 10^9). */
const maxRequests = option("max-requests") ?? minutes * 60 * 2_000;
const DRAIN_TIMEOUT_MS = (option("drain-seconds") ?? 120) * 1000;
const REQUEST_TIMEOUT_MS = 30_000;
const MEMORY_SAMPLE_MS = 1_000;
const MEMORY_WINDOW_MS = 30_000;
const MEMORY_GROWTH_LIMIT = 0.1;
const INSPECTOR_PORT = 9240;
const QUOTA_LIMIT = 600;
const QUOTA_CALLS = 1_000;

const MINUTE_MS = 60_000;
const SOAK_STORE = "sto_soak_ingest";
const SNAPSHOT_UNITS = 100;
/** Each snapshot slides its window of stock numbers by this many: as many units sold as arrive. */
const SNAPSHOT_TURNOVER = 5;

// ---------------------------------------------------------------------------------------------
// The workload

interface Call {
  group: "feeds" | "engines" | "compliance" | "public" | "ingestion";
  name: string;
  weight: number;
  request: () => Scenario;
  /** Reads what the answer says it raised (compliance holds, stip alerts). */
  onAnswer?: (body: unknown) => void;
}

const raised = { holds: 0, stipAlerts: 0 };
let snapshotCount = 0;
let dealBatchCount = 0;

function snapshot(): Scenario {
  const start = snapshotCount++ * SNAPSHOT_TURNOVER;
  return {
    name: "ingest_inventory",
    method: "PUT",
    path: `/api/v1/ingest/inventory?store_id=${SOAK_STORE}`,
    headers: { Authorization: `Bearer ${brokerToken}` },
    body: {
      units: Array.from({ length: SNAPSHOT_UNITS }, (_, k) => {
        const i = start + k;
        // A price change on a fifth of the units each time.
        return dmsUnit(`SOAK${i}`, i, snapshotCount % 5 === i % 5 ? snapshotCount : 0);
      }),
    },
  };
}

/** Two new deals waiting on proof of income, and the two of the previous batch with it cleared: four stip alerts. */
function dealBatch(): Scenario {
  const n = dealBatchCount++;
  const deal = (i: number, state: "outstanding" | "cleared") => submittedDeal(`SOAK-${i}`, SOAK_STORE, state);
  const fresh = [2 * n, 2 * n + 1].map((i) => deal(i, "outstanding"));
  const cleared = n === 0 ? [] : [2 * n - 2, 2 * n - 1].map((i) => deal(i, "cleared"));
  return {
    name: "ingest_deals",
    method: "POST",
    path: "/api/v1/ingest/deals",
    headers: { Authorization: `Bearer ${brokerToken}` },
    body: { deals: [...fresh, ...cleared] },
  };
}

/** Visitors of many dealer sites, each well under the public per-client limits (the bench's `manyClients` addresses). */
let visitorCount = 0;
const fromAnotherVisitor = (request: () => Scenario) => (): Scenario => {
  const scenario = request();
  return { ...scenario, headers: { ...scenario.headers, "CF-Connecting-IP": clientAddress(visitorCount++) } };
};

function workload(fixture: BenchFixture): Call[] {
  const scenarios = new Map(
    [dealDeskArea, appraisalBench, complianceBench, feedsArea, publicArea].flatMap((area) => area.scenarios(fixture)).map((s) => [s.name, s]),
  );
  const bench = (name: string) => {
    const scenario = scenarios.get(name);
    if (!scenario) throw new Error(`the bench has no scenario ${name}`);
    return () => scenario;
  };
  const key = { "X-Service-API-Key": fixture.key };
  const get = (name: string, path: string) => () => ({ name, path, headers: key });
  return [
    // Feeds 40%: the contract's answers (cached per isolate) and a DMS syncing by page.
    { group: "feeds", name: "inventory", weight: 12, request: get("inventory", "/api/v1/inventory") },
    { group: "feeds", name: "inventory_page", weight: 8, request: bench("inventory_page") },
    { group: "feeds", name: "sales_summary", weight: 12, request: get("sales_summary", "/api/v1/sales-summary") },
    {
      group: "feeds",
      name: "sales_summary_page",
      weight: 8,
      request: get("sales_summary_page", `/api/v1/sales-summary?store_id=${fixture.storeId}&limit=50`),
    },
    // Engines 30%.
    ...["lender_route", "stip_check", "gross_calc", "deal_coach", "trade_appraisal"].map(
      (name): Call => ({ group: "engines", name, weight: 6, request: bench(name) }),
    ),
    // Compliance 10%: one check in five is a sanctioned name.
    { group: "compliance", name: "compliance_pass", weight: 8, request: bench("compliance_pass") },
    {
      group: "compliance",
      name: "compliance_hold",
      weight: 2,
      request: bench("compliance_hold"),
      onAnswer: (body) => {
        if ((body as { result?: string }).result === "hold") raised.holds++;
      },
    },
    // Public 15%.
    { group: "public", name: "public_stats", weight: 7.5, request: fromAnotherVisitor(bench("public_stats")) },
    { group: "public", name: "public_moat", weight: 7.5, request: fromAnotherVisitor(bench("public_moat")) },
    // Ingestion 5%.
    { group: "ingestion", name: "ingest_inventory", weight: 2.5, request: snapshot },
    {
      group: "ingestion",
      name: "ingest_deals",
      weight: 2.5,
      request: dealBatch,
      onAnswer: (body) => {
        raised.stipAlerts += (body as { stip_alerts?: number }).stip_alerts ?? 0;
      },
    },
  ];
}

/** A small deterministic stream, so every run sends the same sequence of calls. */
function stream(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

interface Sample {
  at: number;
  ms: number;
  status: number;
  call: string;
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]);
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** The workerd process Miniflare spawned: a child of this process. */
function workerdPid(): number {
  const children = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  for (const pid of children) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (/^Name:\s+workerd$/m.test(status) && new RegExp(`^PPid:\\s+${process.pid}$`, "m").test(status)) return Number(pid);
    } catch {
      // the process ended while we looked
    }
  }
  throw new Error("no workerd child process found");
}

/** A field of /proc/<pid>/status in MiB: VmRSS (the criterion), or RssAnon (heap: what a leak grows). */
function statusMiB(pid: number, field: "VmRSS" | "RssAnon"): number {
  const kib = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m"));
  if (!kib) throw new Error(`no ${field} for workerd ${pid}`);
  return Number(kib[1]) / 1024;
}
const rssMiB = (pid: number) => statusMiB(pid, "VmRSS");

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

// ---------------------------------------------------------------------------------------------
// The webhook receiver

interface Receiver {
  url: string;
  /** `${path} ${event id}` of every verified delivery. */
  received: Set<string>;
  badSignatures: number;
  secrets: Map<string, string>;
  close: () => void;
}

async function startReceiver(): Promise<Receiver> {
  const received = new Set<string>();
  const secrets = new Map<string, string>();
  const receiver = { received, secrets, badSignatures: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "";
      const id = String(req.headers["x-service-webhook-id"]);
      const mac = createHmac("sha256", secrets.get(path) ?? "")
        .update(`${id}.${req.headers["x-service-webhook-timestamp"]}.${body}`)
        .digest("hex");
      if (req.headers["x-service-signature"] === `sha256=${mac}`) received.add(`${path} ${id}`);
      else receiver.badSignatures++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, { url: `http://127.0.0.1:${port}`, close: () => server.close() });
}

// ---------------------------------------------------------------------------------------------

async function send(base: URL, scenario: Scenario): Promise<{ status: number; body: unknown }> {
  const res = await fetch(new URL(scenario.path, base), { ...requestInit(scenario), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (none of the soak's calls answers otherwise on success)
  }
  return { status: res.status, body };
}

/** 1,000 simultaneous calls on one key with a limit of 600: exactly 600 admitted, 400 refused with 429. */
async function checkQuota(base: URL, db: D1Database, fixture: BenchFixture): Promise<string[]> {
  const key = generateApiKey();
  await db
    .prepare(
      `INSERT INTO api_keys (id, org_id, key_hash, key_prefix, label, permissions, scopes, daily_limit, created_by)
       VALUES ('key_soak_quota', ?, ?, ?, 'soak quota', '["read"]', NULL, ?, 'soak')`,
    )
    .bind(fixture.orgId, await sha256Hex(key), apiKeyDisplayPrefix(key), QUOTA_LIMIT)
    .run();
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: QUOTA_CALLS }, () =>
      send(base, { name: "quota", path: "/api/v1/inventory", headers: { "X-Service-API-Key": key } }).then(
        (r) => r.status,
        () => 0,
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  const after = (await send(base, { name: "quota", path: "/api/v1/inventory", headers: { "X-Service-API-Key": key } })).status;
  console.log(
    `quota check: ${QUOTA_CALLS} simultaneous calls on a key limited to ${QUOTA_LIMIT}: ${JSON.stringify(counts)} in ${seconds.toFixed(1)} s; the next call ${after}`,
  );
  const expected = { 200: QUOTA_LIMIT, 429: QUOTA_CALLS - QUOTA_LIMIT };
  const failures: string[] = [];
  if (JSON.stringify(counts) !== JSON.stringify(expected))
    failures.push(`quota: expected ${JSON.stringify(expected)}, got ${JSON.stringify(counts)}`);
  if (after !== 429) failures.push(`quota: the call after the limit answered ${after}`);
  return failures;
}

async function soak(base: URL, db: D1Database, fixture: BenchFixture): Promise<string[]> {
  const failures: string[] = [];
  await db
    .prepare("INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES (?, ?, 'Soak Store', 0, '78701')")
    .bind(SOAK_STORE, fixture.orgId)
    .run();
  const receiver = await startReceiver();
  const subscriptions = {
    "/all": ["deal.stip_alert", "compliance.hold_triggered"],
    "/deals": ["deal.stip_alert"],
  };
  for (const [path, events] of Object.entries(subscriptions)) {
    const { status, body } = await send(base, {
      name: "webhook",
      method: "POST",
      path: "/api/v1/webhooks",
      headers: { "X-Service-API-Key": fixture.key },
      body: { url: `${receiver.url}${path}`, events },
    });
    if (status !== 201) throw new Error(`creating a webhook endpoint answered ${status}: ${JSON.stringify(body)}`);
    receiver.secrets.set(path, (body as { secret: string }).secret);
  }

  const calls = workload(fixture);
  const totalWeight = calls.reduce((sum, c) => sum + c.weight, 0);
  const random = stream(20);
  const pick = () => {
    let r = random() * totalWeight;
    for (const call of calls) {
      r -= call.weight;
      if (r < 0) return call;
    }
    return calls[calls.length - 1];
  };

  const pid = workerdPid();
  const inspector = await connectInspector(INSPECTOR_PORT);
  const samples: Sample[] = [];
  const memory: { at: number; heapMiB: number; rssMiB: number }[] = [];
  const started = Date.now();
  const end = started + minutes * MINUTE_MS;
  const warmupEnd = started + warmupMinutes * MINUTE_MS;
  let sent = 0;
  const unexpected = new Map<string, number>();

  console.log(`soak: ${minutes} min (warm-up ${warmupMinutes} min), ${connections} connections, at most ${maxRequests} requests; workerd pid ${pid}`);
  console.log(`machine: ${machine()}; load average ${load()}\n`);
  console.log(
    "| minute | requests | req/s | p50 ms | p99 ms | 5xx or no answer | other non-2xx | Worker memory MiB | workerd RSS MiB | of which anonymous | webhooks received | load avg |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");

  // V8's heap, the runtime's own objects and ArrayBuffer backing stores (bodies, crypto output): the isolate's memory.
  const heapMiB = async () => {
    const usage = (await inspector("Runtime.getHeapUsage")) as { usedSize: number; embedderHeapUsedSize?: number; backingStorageSize?: number };
    return (usage.usedSize + (usage.embedderHeapUsedSize ?? 0) + (usage.backingStorageSize ?? 0)) / 2 ** 20;
  };
  let sampling = Promise.resolve();
  const sampleMemory = () => {
    sampling = sampling.then(async () => {
      memory.push({ at: Date.now(), heapMiB: await heapMiB(), rssMiB: rssMiB(pid) });
    });
    return sampling;
  };
  const window = (until: number) => memory.filter((m) => m.at > until - MEMORY_WINDOW_MS && m.at <= until);
  /** The lowest reading of the 30 s before `until` (the minute column: how low collections bring it under load). */
  const lowestMiB = (until: number) => Math.min(...window(until).map((m) => m.heapMiB));
  /**
   * What the isolate still holds: a heap snapshot makes V8 collect everything unreachable first,
   * then the memory is read. It pauses the isolate for a moment, so it is taken twice: at the end
   * of the warm-up and at the end of the load. A leak is what survives that collection.
   */
  const liveMiB = async () => {
    await sampling;
    const started = performance.now();
    await inspector("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const live = await heapMiB();
    return { live, pauseMs: Math.round(performance.now() - started) };
  };
  let atWarmupEnd: Promise<{ live: number; pauseMs: number }> | undefined;
  const warmupTimer = setTimeout(() => {
    atWarmupEnd = liveMiB();
  }, warmupEnd - Date.now());
  await sampleMemory();
  const memoryTimer = setInterval(sampleMemory, MEMORY_SAMPLE_MS);
  let minute = 0;
  const report = () => {
    const from = started + minute * MINUTE_MS;
    const to = Math.min(from + MINUTE_MS, Date.now());
    minute++;
    const inMinute = samples.filter((s) => s.at >= from && s.at < to);
    const ms = inMinute.map((s) => s.ms).sort((a, b) => a - b);
    const failed = inMinute.filter((s) => s.status >= 500 || s.status === 0).length;
    const other = inMinute.filter((s) => s.status > 0 && s.status < 500 && (s.status < 200 || s.status >= 300)).length;
    const rate = inMinute.length / ((to - from) / 1000);
    console.log(
      `| ${minute} | ${inMinute.length} | ${rate.toFixed(0)} | ${percentile(ms, 0.5).toFixed(0)} | ${percentile(ms, 0.99).toFixed(0)} | ${failed} | ${other} | ${lowestMiB(to).toFixed(1)} | ${rssMiB(pid).toFixed(0)} | ${statusMiB(pid, "RssAnon").toFixed(0)} | ${receiver.received.size} | ${load()} |`,
    );
  };
  const minuteTimer = setInterval(report, MINUTE_MS);

  const connection = async () => {
    while (Date.now() < end && sent < maxRequests) {
      sent++;
      const call = pick();
      const t0 = performance.now();
      let status = 0;
      try {
        const answer = await send(base, call.request());
        status = answer.status;
        if (status >= 200 && status < 300) call.onAnswer?.(answer.body);
        else if (status < 500) {
          const what = `${call.name} ${status} ${(answer.body as { error?: string }).error ?? ""}`;
          unexpected.set(what, (unexpected.get(what) ?? 0) + 1);
        }
      } catch (error) {
        const what = `${call.name} network error: ${(error as Error).message}`;
        unexpected.set(what, (unexpected.get(what) ?? 0) + 1);
      }
      samples.push({ at: Date.now(), ms: performance.now() - t0, status, call: call.name });
    }
  };
  await Promise.all(Array.from({ length: connections }, connection));
  clearInterval(minuteTimer);
  clearInterval(memoryTimer);
  clearTimeout(warmupTimer);
  await sampleMemory();
  const atLoadEnd = await liveMiB();
  if (Date.now() - (started + minute * MINUTE_MS) > 1000) report();
  const loadEnded = Date.now();

  // The headline figures after warm-up (the whole run when it is no longer than the warm-up).
  const measuredFrom = loadEnded - warmupEnd > MEMORY_WINDOW_MS ? warmupEnd : started;
  const measured = samples.filter((s) => s.at >= measuredFrom);
  const all = measured.map((s) => s.ms).sort((a, b) => a - b);
  const seconds = (loadEnded - measuredFrom) / 1000;
  console.log(
    `\n${measuredFrom === warmupEnd ? "after warm-up" : "whole run"}: ${measured.length} requests in ${seconds.toFixed(0)} s, ${(measured.length / seconds).toFixed(0)} req/s, p50 ${percentile(all, 0.5).toFixed(0)} ms, p99 ${percentile(all, 0.99).toFixed(0)} ms`,
  );
  console.log("\nper call, whole run:\n\n| call | share | requests | p50 ms | p99 ms | non-2xx |\n|---|---:|---:|---:|---:|---:|");
  for (const call of calls) {
    const mine = samples.filter((s) => s.call === call.name);
    const ms = mine.map((s) => s.ms).sort((a, b) => a - b);
    const bad = mine.filter((s) => s.status < 200 || s.status >= 300).length;
    console.log(
      `| ${call.group}: ${call.name} | ${((100 * mine.length) / Math.max(1, samples.length)).toFixed(1)}% | ${mine.length} | ${percentile(ms, 0.5).toFixed(0)} | ${percentile(ms, 0.99).toFixed(0)} | ${bad} |`,
    );
  }

  const fivexx = samples.filter((s) => s.status >= 500).length;
  if (fivexx > 0) failures.push(`${fivexx} answers were 5xx`);
  for (const [what, n] of unexpected) failures.push(`${n} × ${what}`);

  // Memory: the last 30 s of load against the last 30 s of the warm-up.
  if (loadEnded - warmupEnd < MEMORY_WINDOW_MS || atWarmupEnd === undefined) {
    console.log("\nmemory: NOT checked (the run is no longer than its warm-up, --warmup-minutes)");
  } else {
    const warm = await atWarmupEnd;
    const heap = {
      before: warm.live,
      after: atLoadEnd.live,
      peak: Math.max(...memory.map((m) => m.heapMiB)),
      growth: atLoadEnd.live / warm.live - 1,
    };
    const rss = {
      before: median(window(warmupEnd).map((m) => m.rssMiB)),
      after: median(window(loadEnded).map((m) => m.rssMiB)),
      peak: Math.max(...memory.map((m) => m.rssMiB)),
    };
    console.log(
      `\nWorker memory (isolate, live after a full collection): ${heap.before.toFixed(1)} MiB at the end of warm-up, ${heap.after.toFixed(1)} MiB at the end (${(heap.growth * 100).toFixed(1)}%, limit ${MEMORY_GROWTH_LIMIT * 100}%), peak between collections ${heap.peak.toFixed(1)} MiB; each snapshot paused the isolate ${warm.pauseMs} and ${atLoadEnd.pauseMs} ms`,
    );
    console.log(
      `workerd RSS (with the local D1, Durable Object and Queue simulators; not the criterion): ${rss.before.toFixed(0)} → ${rss.after.toFixed(0)} MiB (${((rss.after / rss.before - 1) * 100).toFixed(1)}%), peak ${rss.peak.toFixed(0)} MiB`,
    );
    if (heap.growth > MEMORY_GROWTH_LIMIT) failures.push(`the Worker's memory grew ${(heap.growth * 100).toFixed(1)}% after warm-up`);
  }

  // Webhooks: every event in the outbox reaches every subscribed endpoint.
  const { results: events } = await db
    .prepare("SELECT id, event FROM event_outbox WHERE org_id = ? AND sample = 0")
    .bind(fixture.orgId)
    .all<{ id: string; event: string }>();
  const expected = events.flatMap((e) =>
    Object.entries(subscriptions)
      .filter(([, subscribed]) => subscribed.includes(e.event))
      .map(([path]) => `${path} ${e.id}`),
  );
  const missing = () => expected.filter((pair) => !receiver.received.has(pair));
  while (missing().length > 0 && Date.now() - loadEnded < DRAIN_TIMEOUT_MS) await new Promise((r) => setTimeout(r, 1000));
  const drainSeconds = (Date.now() - loadEnded) / 1000;
  const count = (event: string) => events.filter((e) => e.event === event).length;
  console.log(
    `webhooks: ${count("compliance.hold_triggered")} compliance.hold_triggered (${raised.holds} holds answered), ${count("deal.stip_alert")} deal.stip_alert (${raised.stipAlerts} stip_alerts answered); ${expected.length} deliveries expected, ${expected.length - missing().length} received and verified, ${drainSeconds.toFixed(0)} s after the load ended`,
  );
  // The deliveries live in the organization's object: the bench Worker counts them there.
  const work = await pendingWork(base, fixture.orgId);
  const states = Object.entries(work.deliveries);
  console.log(
    `deliveries in the organization's object: ${states.map(([status, n]) => `${n} ${status}`).join(", ") || "none"}; outbox rows not yet fanned out: ${work.outbox_not_fanned_out}`,
  );
  if (missing().length > 0)
    failures.push(`${missing().length} of ${expected.length} webhook deliveries never reached the receiver within ${DRAIN_TIMEOUT_MS / 1000} s`);
  if (receiver.badSignatures > 0) failures.push(`${receiver.badSignatures} deliveries with a bad signature`);
  if (count("compliance.hold_triggered") !== raised.holds)
    failures.push(`${raised.holds} holds answered but ${count("compliance.hold_triggered")} hold events in the outbox`);
  if (count("deal.stip_alert") !== raised.stipAlerts)
    failures.push(`${raised.stipAlerts} stip alerts answered but ${count("deal.stip_alert")} in the outbox`);
  if (raised.holds === 0 || raised.stipAlerts === 0) failures.push("the workload raised no event of one kind: the webhook check proves nothing");
  receiver.close();
  return failures;
}

async function main(): Promise<number> {
  build();
  const mf = serve({ inspectorPort: INSPECTOR_PORT });
  try {
    const base = await mf.ready;
    // Loopback only: the soak never sends anything off this machine.
    if (base.hostname !== "127.0.0.1") throw new Error(`the Worker listens on ${base.hostname}, not 127.0.0.1`);
    const { areas } = await migrateAndSeed(mf);
    const db = await mf.getD1Database("DB", "api");
    const failures = [...(quotaCheck ? await checkQuota(base, db, areas) : []), ...(minutes > 0 ? await soak(base, db, areas) : [])];
    console.log(failures.length === 0 ? "\nsoak: passed" : `\nsoak: FAILED\n${failures.map((f) => `- ${f}`).join("\n")}`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    await mf.dispose();
  }
}

process.exitCode = await main();
