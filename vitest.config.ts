import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";
// With its extension: vite loads this config natively, without a bundler to resolve it.
import { readOfacFiles } from "./test/helpers/ofac-files.ts";
import { readVpicDemoText } from "./test/helpers/vpic-file.ts";

/**
 * Pure tests (engines, caches, policies, parsers) run in Node: no workerd to start, which costs
 * every workerd test file seconds. A file here that imports `cloudflare:*` fails to resolve, so a
 * test that needs the Worker, D1 or a binding cannot land in the wrong project unnoticed.
 */
const NODE_TESTS = ["test/engines/**/*.test.ts", "test/unit/**/*.test.ts"];

// CI shares 2 cores between workerd and vitest; a 5 s default fails slow machines, not code.
const testTimeout = 30_000;

/** The property tests' seed: fixed unless FC_SEED says another, or `random` (test/setup/property-seed.ts). */
const PROPERTY_SEED = process.env.FC_SEED ?? "20261129";

/** The crons wrangler.toml schedules, so a test can hold src/jobs to the same set. */
function wranglerCrons(): string[] {
  const match = readFileSync(path.join(import.meta.dirname, "wrangler.toml"), "utf8").match(/^crons\s*=\s*(\[[^\]]*\])/m);
  if (!match) throw new Error("wrangler.toml has no [triggers] crons");
  return JSON.parse(match[1]);
}

/** The repository's dated copy of OFAC's files, so compliance tests screen against the real list. */
function ofacFiles() {
  const { sdn, alt, comments, version } = readOfacFiles();
  return { TEST_OFAC_SDN: sdn, TEST_OFAC_ALT: alt, TEST_OFAC_COMMENTS: comments, TEST_OFAC_VERSION: version };
}

// The plugin's wrangler reads the developer's .dev.vars next to wrangler.toml (it has no option to
// skip it) and says so once per test file, each in its own runtime: "Using secrets defined in
// .dev.vars" 71 times a run. Its info lines say nothing a test run needs (warnings still show), and
// every variable .dev.vars.example sets that the Worker reads is fixed below, so a developer's
// .dev.vars changes nothing the tests see.
process.env.WRANGLER_LOG ??= "warn";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  if (migrations.length === 0) throw new Error("no D1 migrations found in ./migrations");
  const runtime: Parameters<typeof cloudflareTest>[0] = {
    wrangler: { configPath: "./wrangler.toml" },
    main: "./src/index.ts",
    miniflare: {
      // Fixed test values, so a developer's .dev.vars never changes what the tests see.
      bindings: {
        TEST_MIGRATIONS: migrations,
        TEST_WRANGLER_CRONS: wranglerCrons(),
        ...ofacFiles(),
        // The dated demo copy of the vPIC data (data/vpic/), for the VIN decode's tests.
        TEST_VPIC_DATA: readVpicDemoText(),
        STAFF_ALLOWED_ORIGINS: "https://staff.example.test",
        PASSWORD_PEPPER: "test-pepper-not-a-secret",
        COMPLIANCE_HASH_SALT: "test-salt-not-a-secret",
        WEBHOOK_SECRETS_KEY: "dGVzdC13ZWJob29rLWtleS0zMi1ieXRlcy1sb25nISE=",
        WEBHOOK_ALLOW_LOCALHOST: "true",
        DEV_SCREEN_STALE_SANCTIONS_LIST: "false",
      },
      // A second database standing in for a D1 read replica that lags the primary (test/platform/replica-lag.test.ts).
      d1Databases: { LAGGING_REPLICA: "lagging-replica" },
      // As wrangler.toml (Miniflare's defaults differ: batch 5, 2 retries), but batches close after 1 s so tests wait less.
      queueConsumers: {
        webhooks: { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 3, deadLetterQueue: "webhooks-dlq" },
        "webhooks-dlq": { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 3 },
        jobs: { maxBatchSize: 1, maxBatchTimeout: 1, maxRetries: 3 },
      },
    },
  };
  const define = { __FC_SEED__: JSON.stringify(PROPERTY_SEED) };
  const workerd = {
    plugins: [cloudflareTest(runtime)],
    define,
    test: {
      name: "workerd",
      setupFiles: ["./test/setup/property-seed.ts", "./test/setup/apply-migrations.ts"],
      testTimeout,
      // A local HTTP receiver for webhook deliveries (test/setup/webhook-receiver.ts).
      globalSetup: ["./test/setup/webhook-receiver.ts"],
      include: ["test/**/*.test.ts", "clients/typescript/test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, ...NODE_TESTS],
    },
  };
  return {
    test: {
      // vitest's default (cores − 1) runs one file at a time on 2 cores; workerd files mostly wait
      // (queue batches, webhook receivers), so one runtime more than the cores keeps them busy
      // (2 cores: 138 s with two runtimes, 105–122 s with three; BENCHMARKS.md). Each workerd
      // file keeps its own runtime: sharing one between files (isolate: false, storage reset between
      // them) halved the suite again but hung one full run in two, when a request or queue
      // consumer the previous file left was still loading a module (BENCHMARKS.md, "Test suite").
      maxWorkers: Math.max(3, availableParallelism() + 1),
      projects: [
        { define, test: { name: "node", environment: "node", include: NODE_TESTS, testTimeout, setupFiles: ["./test/setup/property-seed.ts"] } },
        workerd,
      ],
    },
  };
});
