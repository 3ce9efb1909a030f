/**
 * Operator command for the OFAC sanctions list that compliance checks screen against.
 *
 *   npm run ofac -- load --dir <dir> [--version YYYY-MM-DD] [--remote]
 *   npm run ofac -- status [--remote]
 *
 * `load` reads sdn.csv, alt.csv and sdn_comments.csv (or .csv.gz) from <dir>, as downloaded from
 * OFAC, and puts them in force; the version is the date OFAC gave the publication (--version, its
 * SDN.XML Publish_Date; else a VERSION file in <dir>), never the files' dates, which tell when they
 * were copied. The list's age counts from it (docs/domain/screening.md#list-age).
 * Production also refreshes itself daily (cron "30 4 * * *"). `--persist-to <dir>` picks the local state directory.
 */
import { parseArgs } from "node:util";
import { loadSanctionsListFromDir } from "./lib/sanctions-list";
import { type D1Target, d1Execute, wranglerD1 } from "./lib/wrangler-d1";

const USAGE = `usage:
  npm run ofac -- load --dir <dir> [--version YYYY-MM-DD] [--remote]
  npm run ofac -- status [--remote]`;

class UsageError extends Error {}

function status(target: D1Target) {
  const rows = d1Execute<{
    version: string;
    version_basis: string;
    age_days: number;
    loaded_at: string;
    source: string;
    entry_count: number;
    alias_count: number;
    dob_count: number;
  }>(
    "SELECT version, version_basis, CAST(julianday('now') - julianday(version) AS INTEGER) AS age_days, loaded_at, source, entry_count, alias_count, dob_count FROM sanctions_lists ORDER BY loaded_at DESC LIMIT 1",
    target,
  );
  if (rows.length === 0) console.log("No sanctions list is loaded: every compliance check is flagged (ofac_list_unavailable).");
  else console.table(rows);
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      dir: { type: "string" },
      version: { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string" },
    },
  });
  const target: D1Target = { remote: values.remote, persistTo: values["persist-to"] };
  const [command] = positionals;
  if (command === "load") {
    if (!values.dir) throw new UsageError("--dir is required.");
    const result = await loadSanctionsListFromDir(values.dir, wranglerD1(target), { version: values.version });
    const dated = result.versionBasis === "published" ? `of ${result.version}` : `published no later than ${result.version}`;
    console.log(
      `${result.outcome === "loaded" ? "Loaded" : "Already in force; renewed"} the SDN list ${dated}: ${result.entries} entries, ${result.aliases} aliases, ${result.dobs} dates of birth.`,
    );
  } else if (command === "status") status(target);
  else throw new UsageError(command ? `Unknown command "${command}".` : "A command is required.");
}

main().catch((err: unknown) => {
  console.error(err instanceof UsageError ? `${err.message}\n${USAGE}` : err);
  process.exit(1);
});
