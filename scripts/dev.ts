import { spawn } from "node:child_process";
import { constants } from "node:os";
import { publishDemoCredentials, seedLocalDemoData, seedLocalOperatorToken, todayUtc } from "./lib/demo-seed";
import { type DemoSecrets, devPort, ensureDevVars, readDemoSecrets } from "./lib/dev-vars";
import { applyLocalMigrations, WRANGLER_BIN, wranglerEnv } from "./lib/local-d1";
import { REPO_ROOT } from "./lib/repo-root";
import { DEMO_OFAC_DIR, loadSanctionsListFromDir } from "./lib/sanctions-list";
import { DEMO_VPIC_FILE, loadVehicleData, readVehicleData } from "./lib/vehicle-data";
import { d1Execute } from "./lib/wrangler-d1";

/**
 * Once the server answers, one call with each demo key: a smoke test of the seeded keys, and real
 * usage of the demo organizations, so the public figures (and the widget) are not all zeros on a
 * fresh server. Usage is written by the first request of an isolate and then every 10 s
 * (src/http/usage.ts): a last call after that interval writes the second key's call too.
 */
async function firstCalls(secrets: DemoSecrets, port: number): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  for (const org of [secrets.summit, secrets.lakeside]) {
    const res = await fetch(`${base}/api/v1/inventory`, { headers: { "X-Service-API-Key": org.apiKey } });
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

/** `npm run dev`: migrate, seed an empty database, serve, then show the credentials (last, below wrangler's tables). */
async function main() {
  const port = devPort();
  ensureDevVars(port);
  const secrets = readDemoSecrets();
  applyLocalMigrations();
  const [{ n: organizationCount }] = d1Execute<{ n: number }>("SELECT count(*) AS n FROM organizations", { remote: false });
  if (organizationCount === 0) {
    const { referenceDate, rowCounts } = await seedLocalDemoData(secrets, todayUtc());
    console.log(`Empty database: seeded the demo data as of ${referenceDate} (${rowCounts.inventory_units} units, ${rowCounts.deals} deals).`);
  }
  await seedLocalOperatorToken(secrets);
  const [{ n: listCount }] = d1Execute<{ n: number }>("SELECT count(*) AS n FROM sanctions_lists", { remote: false });
  if (listCount === 0) {
    const list = await loadSanctionsListFromDir(DEMO_OFAC_DIR, { remote: false });
    console.log(`No sanctions list: loaded the dated demo copy of OFAC's SDN list (${list.version}, ${list.entries} entries).`);
  }
  const [{ n: vinDataCount }] = d1Execute<{ n: number }>("SELECT count(*) AS n FROM vehicle_data_versions", { remote: false });
  if (vinDataCount === 0) {
    const vin = loadVehicleData(readVehicleData(DEMO_VPIC_FILE), { remote: false });
    console.log(`No VIN data: loaded the dated demo copy of NHTSA's vPIC patterns (${vin.version}, ${vin.wmis} WMIs, ${vin.patterns} patterns).`);
  }

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
  // wrangler's output passes through; once it says it is ready, the credentials come last.
  let ready = false;
  server.stdout?.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (ready || !chunk.toString().includes("Ready on")) return;
    ready = true;
    firstCalls(secrets, port)
      .catch((error: unknown) => console.warn(`First calls failed: ${error instanceof Error ? error.message : error}`))
      .finally(() => publishDemoCredentials(secrets, port));
  });
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + constants.signals[signal] : 1)));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
