import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { constants } from "node:os";
import path from "node:path";
import { DEMO_ORGANIZATIONS } from "../src/demo/demo-data";
import { publishDemoCredentials, seedLocalDemoData, seedLocalOperatorToken, todayUtc } from "./lib/demo-seed";
import { type DemoSecrets, devPort, ensureDevVars, readDemoSecrets } from "./lib/dev-vars";
import { WRANGLER_BIN, wranglerEnv } from "./lib/local-d1";
import { openLocalD1 } from "./lib/miniflare-d1";
import { REPO_ROOT } from "./lib/repo-root";
import { DEMO_OFAC_DIR, loadSanctionsListFromDir } from "./lib/sanctions-list";
import { DEMO_VPIC_FILE, loadVehicleData, readVehicleData } from "./lib/vehicle-data";

/**
 * Once the server answers, one call with each demo key: a smoke test of the seeded keys, and real
 * usage of the demo organizations, so the public figures (and the widget) are not all zeros on a
 * fresh server. Usage is written by the first request of an isolate and then every 10 s
 * (src/http/usage.ts), so these come first, before the demo's objects are opened, and call the
 * market pulse, which needs no object; a last call after that interval writes the second key's call too.
 */
async function firstCalls(secrets: DemoSecrets, port: number): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  for (const org of [secrets.summit, secrets.lakeside]) {
    const res = await fetch(`${base}/api/v1/market-pulse`, { headers: { "X-Service-API-Key": org.apiKey } });
    if (!res.ok)
      console.warn(`A demo key was refused (${res.status}): is .dev.vars the one the database was seeded with? (rm -rf .wrangler && npm run dev)`);
    await res.body?.cancel();
  }
  setTimeout(
    () =>
      void fetch(`${base}/health`).then(
        (res) => res.body?.cancel(),
        () => {},
      ),
    10_500,
  ).unref();
}

/** The served guide pages are older than a guide, a docs folder or their renderer (a fresh install has just built them). */
function docsPagesStale(): boolean {
  const built = path.join(REPO_ROOT, "public", "docs", "guides", "index.html");
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const docs = path.join(REPO_ROOT, "docs");
  const inputs = [path.join(REPO_ROOT, "scripts", "build-docs-pages.mjs"), docs];
  for (const entry of readdirSync(docs, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() || entry.name.endsWith(".md")) inputs.push(path.join(entry.parentPath, entry.name));
  }
  return inputs.some((file) => statSync(file).mtimeMs > builtAt);
}

/**
 * The seed writes the demo organizations' D1 rows; their own rows (inventory, deals, settings…)
 * live in their storage objects, which only the Worker reaches: once the server answers, the
 * operator API opens each object with them, dated today. An object open already is refused (409),
 * so a restart writes nothing and prints nothing; after `npm run seed` the next start opens them.
 */
async function openDemoObjects(secrets: DemoSecrets, port: number): Promise<void> {
  for (const org of DEMO_ORGANIZATIONS) {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/operator/organizations/${org.id}/demo-data`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secrets.operatorToken}` },
    });
    if (res.status === 409) {
      await res.body?.cancel();
      continue;
    }
    if (!res.ok) throw new Error(`${org.id}: ${res.status} ${await res.text()}`);
    const { rows } = (await res.json()) as { rows: Record<string, number> };
    console.log(`Opened ${org.id}'s storage object with its demo data in ${seconds(started)} (${rows.inventory_units} units, ${rows.deals} deals).`);
  }
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * Migrations, the demo seed and the operator token: what the first call needs, in one local
 * runtime (scripts/lib/miniflare-d1.ts), closed before wrangler dev opens the same database.
 */
async function prepareDatabase(secrets: DemoSecrets): Promise<void> {
  const started = performance.now();
  const db = await openLocalD1();
  try {
    const applied = await db.migrate().catch((error: unknown) => {
      // Migration 0050's refusal (an organization of this database still has its data in D1), or 0051's (its
      // organizations were moved but the two came in one apply): a local database from before either way.
      if (!/every_organization_in_its_object|apply_0051_after_deploying_this_release/.test(String(error))) throw error;
      throw new Error(
        "This local database was seeded before each organization's data moved to its own storage object, which this version reads alone. " +
          "Delete .wrangler/state and run npm run dev again: the demo is seeded anew.",
      );
    });
    if (applied.length > 0) console.log(`Applied ${applied.length} migration(s) to the local database (${applied[0]} … ${applied.at(-1)}).`);
    const [{ n: organizationCount }] = await db.query<{ n: number }>("SELECT count(*) AS n FROM organizations");
    if (organizationCount === 0) {
      const { referenceDate, rowCounts } = await seedLocalDemoData(db, secrets, todayUtc());
      console.log(
        `Empty database: seeded the demo organizations as of ${referenceDate} (${rowCounts.organizations} organizations, ${rowCounts.stores} stores).`,
      );
    }
    await seedLocalOperatorToken(db, secrets);
    const [{ lists, vin }] = await db.query<{ lists: number; vin: number }>(
      "SELECT (SELECT count(*) FROM sanctions_lists) AS lists, (SELECT count(*) FROM vehicle_data_versions) AS vin",
    );
    if (lists === 0) {
      const list = await loadSanctionsListFromDir(DEMO_OFAC_DIR, db);
      console.log(`No sanctions list: loaded the dated demo copy of OFAC's SDN list (${list.version}, ${list.entries} entries).`);
    }
    if (vin === 0) {
      const data = await loadVehicleData(readVehicleData(DEMO_VPIC_FILE), db);
      console.log(
        `No VIN data: loaded the dated demo copy of NHTSA's vPIC patterns (${data.version}, ${data.wmis} WMIs, ${data.patterns} patterns).`,
      );
    }
  } finally {
    await db.close();
  }
  console.log(`Local database ready in ${seconds(started)}.`);
}

/** `npm run dev`: migrate, seed an empty database, serve, then show the credentials (last, below wrangler's output). */
async function main() {
  const port = devPort();
  ensureDevVars(port);
  const secrets = readDemoSecrets();
  if (docsPagesStale()) console.log(`build-docs-pages: ${(await import("./build-docs-pages.mjs")).buildDocsPages()} guides in public/docs/guides/`);
  await prepareDatabase(secrets);

  const server = spawn(process.execPath, [WRANGLER_BIN, "dev", "--port", String(port), "--ip", "127.0.0.1"], {
    cwd: REPO_ROOT,
    stdio: ["inherit", "pipe", "inherit"],
    // No local trace store (it grows with every request), and no download of Cloudflare's
    // `request.cf` sample: nothing here reads it, and offline machines would log an error for it.
    env: wranglerEnv({ X_LOCAL_OBSERVABILITY: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" }),
  });
  // A supervisor that signals only this process (not the whole group) must still stop wrangler and workerd.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => server.kill(signal));
  server.on("error", (error) => {
    console.error(`could not start wrangler dev: ${error.message}`);
    process.exit(1);
  });
  // wrangler's output passes through; once it says it is ready, the first calls, the demo's objects opened, then the credentials.
  let ready = false;
  server.stdout?.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (ready || !chunk.toString().includes("Ready on")) return;
    ready = true;
    firstCalls(secrets, port)
      .catch((error: unknown) => console.warn(`First calls failed: ${error instanceof Error ? error.message : error}`))
      .then(() => openDemoObjects(secrets, port))
      .catch((error: unknown) =>
        console.warn(`Opening the demo organizations' storage objects failed: ${error instanceof Error ? error.message : error}`),
      )
      .finally(() => publishDemoCredentials(secrets, port));
  });
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + constants.signals[signal] : 1)));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
