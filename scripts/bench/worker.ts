/**
 * The Worker the bench and the soak load: built as `wrangler deploy` builds it, served in workerd
 * through Miniflare's API (D1, the QuotaCounter Durable Object, the rate-limit bindings and the
 * webhooks queue), with the schema from migrations/ and the areas' rows seeded.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { apiKeyDisplayPrefix, generateApiKey, generateToken, LEGACY_TOKEN_PREFIX, sha256Hex } from "../../src/credentials/tokens";
import type { SeedRows } from "../../src/db/org-store";
import { runWrangler } from "../lib/local-d1";
import { BENCH_AREAS } from "./areas";
import { BARE_ANSWER_PATH, PENDING_WORK_PATH } from "./floor-paths";
import type { BenchFixture, ObjectRows } from "./scenario";
import { type BundleFigures, bundleFigures, compatibilityDate } from "./startup";

const ROOT = path.resolve(import.meta.dirname, "../..");
const OUT_DIR = path.join(ROOT, ".bench/dist");
const BENCH_ENTRY = "scripts/bench/entry.ts";
const BENCH_OUT_DIR = path.join(ROOT, ".bench/dist-bench");
const PROFILE_OUT_DIR = path.join(ROOT, ".bench/dist-profile");
export const BASELINE_PATH = "/__bench/baseline";

/**
 * `metered_v1`'s answer is a JSON body of five units and about fifteen headers, the baseline's a
 * 11-byte body and one header: what workerd and the load generator pay for that difference is not
 * our code's. This Worker answers a constant copy of a real answer (PUT once by the bench, one per
 * `/<scenario>`), with a fresh request id, so the stack's own cost can be told apart from the answer's.
 */
const BARE_ANSWER_WORKER = `const answers = new Map();
export default {
  async fetch(request) {
    const of = new URL(request.url).pathname.split("/").pop();
    if (request.method === "PUT") {
      answers.set(of, await request.json());
      return new Response(null, { status: 204 });
    }
    const answer = answers.get(of);
    if (answer === undefined) return new Response("no answer copied yet", { status: 503 });
    return new Response(answer.body, { headers: { ...answer.headers, "X-Request-Id": crypto.randomUUID() } });
  },
};`;

/** The Worker's size as `wrangler deploy` reports it, and the largest packages' share of the minified bundle. */
export interface BundleSize extends BundleFigures {
  /** Minified bytes (KiB) each package, and our own src/, puts into the bundle (esbuild's metafile). */
  parts_kib: Record<string, number>;
}

/**
 * The Worker exactly as `wrangler deploy` bundles it (minified, per wrangler.toml), and its size;
 * then the Worker that is served, the same with the baseline routes (scripts/bench/entry.ts).
 */
export function build(): BundleSize {
  runWrangler(["deploy", BENCH_ENTRY, "--dry-run", "--outdir", BENCH_OUT_DIR], { captureStdout: true });
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

/** The served Worker unminified, so a CPU profile's frames carry their names and esbuild's module comments. */
export function buildForProfile(): string {
  runWrangler(["deploy", BENCH_ENTRY, "--dry-run", "--outdir", PROFILE_OUT_DIR, "--minify=false"], { captureStdout: true });
  return path.join(PROFILE_OUT_DIR, "entry.js");
}

/** A stand-in for the rate-limit binding that counts in memory (see `serve`); served as `bench-ratelimit`. */
export const IN_MEMORY_RATE_LIMITER = `
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

/** The API Worker's bindings as the bench serves them. */
export function apiWorkerOptions(date: string) {
  return {
    compatibilityDate: date,
    d1Databases: { DB: "bench-db" },
    durableObjects: { QUOTA: { className: "QuotaCounter", useSQLite: true }, ORG_STORE: { className: "OrganizationStore", useSQLite: true } },
    ratelimits: { LOGIN_RATE_LIMITER: { namespace_id: "1002", simple: { limit: 10, period: 60 as const } } },
    // The real binding allows 120 a minute per client; the benchmark measures the route, not 429s.
    serviceBindings: { PUBLIC_RATE_LIMITER: { name: "bench-ratelimit", entrypoint: "RateLimiter" } },
    queueProducers: { WEBHOOKS: "webhooks", JOBS: "jobs" },
    // As wrangler.toml's [[queues.consumers]].
    queueConsumers: {
      webhooks: { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 3, deadLetterQueue: "webhooks-dlq" },
      "webhooks-dlq": { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 3 },
      jobs: { maxBatchSize: 1, maxBatchTimeout: 5, maxRetries: 3 },
    },
    bindings: {
      STAFF_ALLOWED_ORIGINS: "https://staff.bench.test",
      PASSWORD_PEPPER: "bench-pepper-not-a-secret",
      COMPLIANCE_HASH_SALT: "bench-salt-not-a-secret",
      // The refresh job never runs in the benchmark; the config check still wants the four addresses.
      ...Object.fromEntries(
        ["OFAC_SDN_URL", "OFAC_ALT_URL", "OFAC_COMMENTS_URL", "OFAC_PUBLICATION_URL"].map((name) => [name, "https://ofac.bench.invalid/list.csv"]),
      ),
      // The benchmark screens against the demo list (data/ofac/), years old: screened with a warning, not refused.
      DEV_SCREEN_STALE_SANCTIONS_LIST: "true",
      WEBHOOK_SECRETS_KEY: "YmVuY2gtd2ViaG9vay1rZXktMzItYnl0ZXMtbG9uZyE=",
      // The delivery measurement's receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_LOCALHOST: "true",
    },
  };
}

/**
 * Every Worker sits behind Miniflare's own entry Worker, which routes by path, so the baseline and
 * the API pay the same serving overhead and the ratios compare like with like. (Miniflare's direct
 * sockets skip that hop; BENCHMARKS.md says how the ratios move then.)
 */
/**
 * A built Worker as Miniflare's module list: its entry and the text modules wrangler's [[rules]]
 * emitted beside it (the storage object's migrations, `*.sql`).
 */
export function builtWorker(scriptPath: string) {
  const dir = path.dirname(scriptPath);
  const texts = readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => ({ type: "Text" as const, path: path.join(dir, file) }));
  return { modulesRoot: dir, modules: [{ type: "ESModule" as const, path: scriptPath }, ...texts] };
}

export function serve(options: { scriptPath?: string; inspectorPort?: number } = {}): Miniflare {
  const date = compatibilityDate();
  const apiBindings = apiWorkerOptions(date);
  return new Miniflare(
    convertV4MiniflareOptions({
      inspectorPort: options.inspectorPort,
      workers: [
        { name: "api", ...builtWorker(options.scriptPath ?? path.join(BENCH_OUT_DIR, "entry.js")), ...apiBindings },
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
        { name: "baseline-answer", modules: true, script: BARE_ANSWER_WORKER, compatibilityDate: date, routes: [`*${BARE_ANSWER_PATH}/*`] },
      ],
    }),
  );
}

/** The schema from migrations/, then the platform scenarios' organization and the areas' one, with what each area seeds. */
export async function migrateAndSeed(mf: Miniflare): Promise<{ platform: BenchFixture; areas: BenchFixture }> {
  const db = await mf.getD1Database("DB", "api");
  await applyMigrations(db);
  const platform = await seedOrganization(db, "bench");
  await openObject(mf, platform, [benchUnits(platform)]);
  // The areas seed hundreds of units and deals: in their own organization, so the metered_v1 feed
  // keeps its five units whatever areas exist (it answered 125 once the reports area seeded here).
  const areas = await seedOrganization(db, "bench_areas");
  const rows: ObjectRows[] = [];
  for (const area of BENCH_AREAS) rows.push((await area.seed?.(db, areas)) ?? {});
  await openObject(mf, areas, rows);
  return { platform, areas };
}

/**
 * The organization's object opened with its store and every area's rows, as the operator's creation
 * opens a new organization's (`OrganizationStore.seed`, called through Miniflare): born there.
 */
async function openObject(mf: Miniflare, { orgId, storeId }: BenchFixture, parts: ObjectRows[]): Promise<void> {
  const all = (key: keyof SeedRows): unknown[] => parts.flatMap((part) => (part[key] ?? []) as unknown[]);
  // The object's copy of the directory's store: its settings at their defaults.
  const store = { id: storeId, name: "Bench Store" };
  const namespace = await mf.getDurableObjectNamespace("ORG_STORE", "api");
  const object = namespace.get(namespace.idFromName(orgId)) as unknown as {
    seed(orgId: string, ...rows: unknown[][]): Promise<void>;
  };
  await object.seed(orgId, [store], all("units"), all("values"), all("deals"), all("stips"), all("decisions"), all("panels"));
}

/** The five units of a bench organization's store. */
function benchUnits({ orgId, storeId }: BenchFixture): ObjectRows {
  const name = orgId.replace(/^org_/, "");
  return {
    units: Array.from({ length: 5 }, (_, i) => ({
      id: `unit_${name}_${i}`,
      orgId,
      storeId,
      stockNumber: `B${i}`,
      vin: `VIN${name.toUpperCase()}${i}`.padEnd(17, "0"),
      year: 2022,
      make: "Toyota",
      model: "Camry",
      trim: "SE",
      condition: "used" as const,
      vehicleType: "car" as const,
      mileage: 31_000,
      stockedOn: `2026-10-0${i + 1}`,
      cost: 21_000,
      askingPrice: 24_995,
      status: "in_stock" as const,
    })),
  };
}

/** The schema from migrations/, statement by statement, on a bench's D1. */
export async function applyMigrations(db: D1Database): Promise<void> {
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
}

/** An organization's directory rows, born in its object: a store, a `lak_` key with a limit of 1,000,000,000 and a legacy token. */
async function seedOrganization(db: D1Database, name: string): Promise<BenchFixture> {
  const key = generateApiKey();
  const legacyToken = generateToken(LEGACY_TOKEN_PREFIX, 32);
  const [orgId, storeId] = [`org_${name}`, `sto_${name}`];
  await db.batch([
    db.prepare("INSERT INTO organizations (id, name, is_demo) VALUES (?, 'Bench Motors', 0)").bind(orgId),
    db.prepare("INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES (?, ?, 'Bench Store', 1, '78701')").bind(storeId, orgId),
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

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`;
}

/** What the queue has left to do (PENDING_WORK_PATH on the bench's Worker): every organization's, or `orgId`'s. */
export async function pendingWork(base: URL, orgId?: string): Promise<{ outbox_not_fanned_out: number; deliveries: Record<string, number> }> {
  const url = new URL(PENDING_WORK_PATH, base);
  if (orgId) url.searchParams.set("org_id", orgId);
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${PENDING_WORK_PATH} answered ${res.status}`);
  return (await res.json()) as { outbox_not_fanned_out: number; deliveries: Record<string, number> };
}
