import { publishDemoCredentials, seedLocalDemoData, seedLocalOperatorToken, todayUtc } from "./lib/demo-seed";
import { devPort, ensureDevVars, readDemoSecrets } from "./lib/dev-vars";
import { applyLocalMigrations } from "./lib/local-d1";
import { d1Execute } from "./lib/wrangler-d1";

/** `npm run seed`: local D1 migrated and holding the demo data, credentials printed. */
async function main() {
  const port = devPort();
  ensureDevVars(port);
  const secrets = readDemoSecrets();
  applyLocalMigrations();
  const { referenceDate, rowCounts } = await seedLocalDemoData(secrets, todayUtc());
  await seedLocalOperatorToken(secrets);
  // Counted from the database, not the seed: on a rerun nothing is inserted and the totals stay put.
  const tables = Object.keys(rowCounts);
  const [totals] = d1Execute<Record<string, number>>(`SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`, {
    remote: false,
  });
  console.log(`Seeded demo data as of ${referenceDate}; the local database now holds:`);
  console.log(tables.map((t) => `  ${t.padEnd(20)}${totals[t]}`).join("\n"));
  publishDemoCredentials(secrets, port);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
