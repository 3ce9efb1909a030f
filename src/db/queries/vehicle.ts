import { and, desc, eq, gte, isNull, lte, or } from "drizzle-orm";
import type { PatternRow, WmiRow } from "../../engines/vehicle/decode";
import type { Database } from "../client";
import { vehicleDataVersions, vehicleVinPatterns, vehicleVinSchemas, vehicleWmis } from "../schema";
import { multiRowInserts, type RawStatement } from "./compliance";

/** The reduced vPIC data as scripts/vehicle-data.ts writes it (data/vpic/ holds a dated copy). */
export interface VehicleData {
  /** vPIC's own date: the newest pattern change in the database it was reduced from (YYYY-MM-DD). */
  version: string;
  source: string;
  wmis: [wmi: string, make: string, manufacturer: string, vehicleType: string, country: string][];
  schemas: [wmi: string, schemaId: number, yearFrom: number, yearTo: number | null][];
  patterns: [schemaId: number, keys: string, element: string, value: string][];
}

/**
 * The whole load as plain SQL, in order, for the operator command (inlined for `wrangler d1
 * execute`) and the tests alike: the data in force is replaced, the version row last.
 */
export function vehicleDataLoad(data: VehicleData, loadedAt: string): RawStatement[] {
  const clear = ["vehicle_wmis", "vehicle_vin_schemas", "vehicle_vin_patterns", "vehicle_data_versions"].map((table) => ({
    sql: `DELETE FROM ${table}`,
    params: [],
  }));
  return [
    ...clear,
    ...multiRowInserts("vehicle_wmis", ["wmi", "make", "manufacturer", "vehicle_type", "country"], data.wmis),
    // A null year_to (still in use) is written as a far year: the wrangler CLI takes no bound NULL.
    ...multiRowInserts(
      "vehicle_vin_schemas",
      ["wmi", "schema_id", "year_from", "year_to"],
      data.schemas.map(([wmi, id, from, to]) => [wmi, id, from, to ?? 9999]),
    ),
    ...multiRowInserts("vehicle_vin_patterns", ["schema_id", "keys", "element", "value"], data.patterns),
    {
      sql: "INSERT INTO vehicle_data_versions (version, source, loaded_at, wmi_count, pattern_count) VALUES (?, ?, ?, ?, ?)",
      params: [data.version, data.source, loadedAt, data.wmis.length, data.patterns.length],
    },
  ];
}

/** What decoding one VIN reads, in one round trip: the data's version, the WMI, and the patterns of its schemas for the year. */
export async function loadVinRows(db: Database, wmi: string, modelYear: number | null) {
  const year = modelYear ?? 0;
  const [version, wmis, patterns] = await db.batch([
    db.select().from(vehicleDataVersions).orderBy(desc(vehicleDataVersions.loadedAt)).limit(1),
    db
      .select({
        wmi: vehicleWmis.wmi,
        make: vehicleWmis.make,
        manufacturer: vehicleWmis.manufacturer,
        vehicleType: vehicleWmis.vehicleType,
        country: vehicleWmis.country,
      })
      .from(vehicleWmis)
      .where(eq(vehicleWmis.wmi, wmi))
      .limit(1),
    db
      .select({ keys: vehicleVinPatterns.keys, element: vehicleVinPatterns.element, value: vehicleVinPatterns.value })
      .from(vehicleVinPatterns)
      .innerJoin(vehicleVinSchemas, eq(vehicleVinSchemas.schemaId, vehicleVinPatterns.schemaId))
      .where(
        and(
          eq(vehicleVinSchemas.wmi, wmi),
          lte(vehicleVinSchemas.yearFrom, year),
          or(isNull(vehicleVinSchemas.yearTo), gte(vehicleVinSchemas.yearTo, year)),
        ),
      ),
  ]);
  return { version: version[0] ?? null, wmi: (wmis[0] as WmiRow | undefined) ?? null, patterns: patterns as PatternRow[] };
}
