import { publishDemoCredentials, seedLocalDemoData, seedLocalOperatorToken, todayUtc } from "./lib/demo-seed";
import { devPort, ensureDevVars, readDemoSecrets } from "./lib/dev-vars";
import { openLocalD1 } from "./lib/miniflare-d1";

/** `npm run seed`: local D1 migrated and holding the demo data, credentials printed. */
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
    // The move needs the Worker (the operator API): `npm run dev` makes it once its server answers.
    console.log("The demo organizations are in D1 until the next `npm run dev` moves them into their storage objects.");
  } finally {
    await db.close();
  }
  publishDemoCredentials(secrets, port);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
