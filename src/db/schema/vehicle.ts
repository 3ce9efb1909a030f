import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * NHTSA vPIC decoding data, reduced to what a trade appraisal reads (docs/appraisal.md#vin-decoding):
 * shared by every organization, loaded by `npm run vehicle-data -- load` (a dated copy in data/vpic/ for
 * tests and `npm run dev`), never in the bundle. One data set is in force: a load replaces the rows.
 */

/** The data set in force: its vPIC date and where it came from. */
export const vehicleDataVersions = sqliteTable("vehicle_data_versions", {
  version: text("version").primaryKey(),
  source: text("source").notNull(),
  loadedAt: text("loaded_at").notNull(),
  wmiCount: integer("wmi_count").notNull(),
  patternCount: integer("pattern_count").notNull(),
});

/** World manufacturer identifiers (VIN positions 1–3, 49 CFR 565.15(a)). */
export const vehicleWmis = sqliteTable(
  "vehicle_wmis",
  {
    wmi: text("wmi").notNull(),
    make: text("make").notNull(),
    manufacturer: text("manufacturer").notNull(),
    vehicleType: text("vehicle_type").notNull(),
    country: text("country").notNull(),
  },
  (t) => [index("vehicle_wmis_wmi_idx").on(t.wmi)],
);

/** Which vPIC VIN schemas a WMI uses in which model years (year_to null: still in use). */
export const vehicleVinSchemas = sqliteTable(
  "vehicle_vin_schemas",
  {
    wmi: text("wmi").notNull(),
    schemaId: integer("schema_id").notNull(),
    yearFrom: integer("year_from").notNull(),
    yearTo: integer("year_to"),
  },
  (t) => [index("vehicle_vin_schemas_wmi_idx").on(t.wmi)],
);

/**
 * A schema's patterns: `keys` over VIN positions 4–8, then `|` and positions 10–17 (`*` any
 * character, `[…]` a class), and the value it decodes one element to (model, trim, body_class, …).
 */
export const vehicleVinPatterns = sqliteTable(
  "vehicle_vin_patterns",
  {
    schemaId: integer("schema_id").notNull(),
    keys: text("keys").notNull(),
    element: text("element").notNull(),
    value: text("value").notNull(),
  },
  (t) => [index("vehicle_vin_patterns_schema_idx").on(t.schemaId)],
);
