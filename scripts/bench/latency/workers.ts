/**
 * The Workers bench:latency serves in one Miniflare (./run.ts, ./first-calls.ts): copies of the
 * latency Worker, and the framework's floor of a first call.
 */
import path from "node:path";
import { runWrangler } from "../../lib/local-d1";
import type { Scenario } from "../scenario";
import { compatibilityDate } from "../startup";
import { apiWorkerOptions, builtWorker } from "../worker";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const FIXTURE_CONFIG = path.join(ROOT, "scripts/bench/first-call-fixture/wrangler.toml");

/**
 * `framework_floor` is no endpoint of ours: a Worker of hono, @hono/zod-openapi, zod and drizzle
 * alone (../first-call-fixture/), loaded on its first request as our route areas are, that validates
 * a deal-sized body and reads one D1 row. Its first call is what the framework costs any endpoint's.
 */
export const FRAMEWORK_FLOOR = "framework_floor";
export const FRAMEWORK_FLOOR_SCENARIO: Scenario = {
  name: FRAMEWORK_FLOOR,
  path: "/floor",
  method: "POST",
  body: { organization_id: "org_floor", amount_financed: 24_500, term_months: 72, credit_score: 688, vehicle_year: 2021 },
};

/** The framework floor's Worker script (../first-call-fixture/), built as the API is. */
export function buildFrameworkFloor(options: { minify: boolean } = { minify: true }): string {
  const outDir = path.join(ROOT, ".bench/dist-first-call-fixture");
  const args = ["deploy", "--dry-run", "--config", FIXTURE_CONFIG, "--compatibility-date", compatibilityDate(), "--outdir", outDir];
  runWrangler(options.minify ? args : [...args, "--minify=false"], { captureStdout: true });
  return path.join(outDir, "index.js");
}

/**
 * The Workers' options for `date`. The first copy, "api", holds the organizations' objects and the
 * queues' consumers (a queue has one); every other copy reaches the objects in the first copy's
 * namespace, where the seed opened them.
 */
export function latencyWorkers(date: string) {
  const { queueConsumers, ...options } = apiWorkerOptions(date);
  const copy = (name: string, script: string, model: "on" | "off") => ({
    name,
    ...builtWorker(script),
    ...options,
    durableObjects: { ...options.durableObjects, ORG_STORE: { ...options.durableObjects.ORG_STORE, scriptName: "api" } },
    bindings: { ...options.bindings, LATENCY_MODEL: model },
  });
  return {
    first: (script: string, model: "on" | "off") => ({ ...copy("api", script, model), durableObjects: options.durableObjects, queueConsumers }),
    copy,
    frameworkFloor: (name: string, script: string) => ({ name, ...builtWorker(script), compatibilityDate: date, d1Databases: options.d1Databases }),
  };
}
