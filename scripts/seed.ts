import { publishDemoCredentials, seedLocalDemoData, seedLocalOperatorToken, todayUtc } from "./lib/demo-seed";
import { devPort, ensureDevVars, readDemoSecrets } from "./lib/dev-vars";
import { openLocalD1 } from "./lib/miniflare-d1";

/** `npm run seed`: local D1 migrated and holding the demo organizations' D1 rows, credentials printed. */
async function main() {
  const port = devPort();
  ensureDevVars(port);
  const secrets = readDemoSecrets();
  const db = await openLocalD1();
  try {
    await db.migrate();
    const { referenceDate, rowCounts } = await seedLocalDemoData(db, secrets, todayUtc());
    await seedLocalOperatorToken(db, secrets);
    // Counted from the database, not the seed: on a rerun nothing is inserted and the totals stay put.
    const tables = Object.keys(rowCounts);
    const [totals] = await db.query<Record<string, number>>(`SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`);
    console.log(`Seeded demo data as of ${referenceDate}; the local database now holds:`);
    console.log(tables.map((t) => `  ${t.padEnd(20)}${totals[t]}`).join("\n"));
    // Only the Worker reaches the storage objects (the operator API): `npm run dev` opens them once its server answers.
    console.log("The demo organizations' own rows (inventory, deals, settings…) are in their storage objects once `npm run dev` has opened them.");
  } finally {
    await db.close();
  }
  publishDemoCredentials(secrets, port);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
