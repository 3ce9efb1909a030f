import { spawn } from "node:child_process";
import { constants } from "node:os";
import { DEV_PORT, publishDemoCredentials, seedLocalDemoData, todayUtc } from "./lib/demo-seed";
import { ensureDevVars, readDemoSecrets } from "./lib/dev-vars";
import { applyLocalMigrations, WRANGLER_BIN, wranglerEnv } from "./lib/local-d1";
import { REPO_ROOT } from "./lib/repo-root";
import { DEMO_OFAC_DIR, loadSanctionsListFromDir } from "./lib/sanctions-list";
import { d1Execute } from "./lib/wrangler-d1";

/** `npm run dev`: migrate, seed an empty database, show the credentials, then serve. */
async function main() {
  ensureDevVars();
  const secrets = readDemoSecrets();
  applyLocalMigrations();
  const [{ n: organizationCount }] = d1Execute<{ n: number }>("SELECT count(*) AS n FROM organizations", { remote: false });
  if (organizationCount === 0) {
    const { referenceDate, rowCounts } = await seedLocalDemoData(secrets, todayUtc());
    console.log(`Empty database: seeded the demo data as of ${referenceDate} (${rowCounts.inventory_units} units, ${rowCounts.deals} deals).`);
  }
  const [{ n: listCount }] = d1Execute<{ n: number }>("SELECT count(*) AS n FROM sanctions_lists", { remote: false });
  if (listCount === 0) {
    const list = await loadSanctionsListFromDir(DEMO_OFAC_DIR, { remote: false });
    console.log(`No sanctions list: loaded the dated demo copy of OFAC's SDN list (${list.version}, ${list.entries} entries).`);
  }
  publishDemoCredentials(secrets);

  const server = spawn(process.execPath, [WRANGLER_BIN, "dev", "--port", String(DEV_PORT), "--ip", "127.0.0.1"], {
    cwd: REPO_ROOT,
    stdio: "inherit",
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
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + constants.signals[signal] : 1)));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
