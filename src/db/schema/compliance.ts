import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { utcNow } from "./platform";

/**
 * One row per sanctions list successfully loaded. The newest is the one in force; its entries,
 * aliases and dates of birth carry its id. A load writes its rows first and this row last, so a
 * load that fails half-way leaves the previous list in force (docs/compliance.md).
 */
export const sanctionsLists = sqliteTable("sanctions_lists", {
  id: text("id").primaryKey(),
  /**
   * The date (YYYY-MM-DD) the publisher gave the list, never the day it was copied: OFAC's
   * `Publish_Date`, or, for a copy that kept none, the latest date it can bear (`version_basis`).
   * The list's age counts from it (docs/domain/screening.md#list-age).
   */
  version: text("version").notNull(),
  /** `published`: OFAC's own date; `upper_bound`: the copy kept none, and its data shows it is no newer than `version`. */
  versionBasis: text("version_basis", { enum: ["published", "upper_bound"] })
    .notNull()
    .default("published"),
  /** `file:<dir>` for the operator command, or the download URL of sdn.csv. */
  source: text("source").notNull(),
  /** SHA-256 of the files, so a refresh that finds the same files only renews `loaded_at`. */
  contentHash: text("content_hash").notNull(),
  /** Its last successful load (a load of the same files again renews it); the list in force is the newest. */
  loadedAt: text("loaded_at").notNull(),
  entryCount: integer("entry_count").notNull(),
  aliasCount: integer("alias_count").notNull(),
  dobCount: integer("dob_count").notNull(),
});

/**
 * The list's name parts, each with the listed individuals holding it, packed as text
 * (`listedPartsRows`: lines `PART entNum…`, rows ending at a line's end): a check reads them in one
 * round trip and loads only the holders of the parts close to its names (docs/compliance.md). A
 * list loaded before them has none, and is loaded whole until the next load.
 */
export const sanctionsNameParts = sqliteTable(
  "sanctions_name_parts",
  {
    listId: text("list_id").notNull(),
    seq: integer("seq").notNull(),
    parts: text("parts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.seq] })],
);

export const sanctionsEntries = sqliteTable(
  "sanctions_entries",
  {
    listId: text("list_id").notNull(),
    entNum: integer("ent_num").notNull(),
    name: text("name").notNull(),
    sdnType: text("sdn_type").notNull(),
    programs: text("programs").notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.entNum] }), index("sanctions_entries_list_type_idx").on(t.listId, t.sdnType)],
);

export const sanctionsAliases = sqliteTable(
  "sanctions_aliases",
  {
    listId: text("list_id").notNull(),
    altNum: integer("alt_num").notNull(),
    entNum: integer("ent_num").notNull(),
    altType: text("alt_type").notNull(),
    name: text("name").notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.altNum] })],
);

export const sanctionsDobs = sqliteTable(
  "sanctions_dobs",
  {
    listId: text("list_id").notNull(),
    entNum: integer("ent_num").notNull(),
    seq: integer("seq").notNull(),
    text: text("text").notNull(),
    fromDate: text("from_date").notNull(),
    toDate: text("to_date").notNull(),
    precision: text("precision", { enum: ["day", "month", "year"] }).notNull(),
    circa: integer("circa", { mode: "boolean" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.entNum, t.seq] })],
);

/**
 * Screening settings. The row with `org_id` '*' holds the defaults (hold ≥ 95, flag ≥ 85:
 * docs/domain/screening.md#thresholds; a list older than 45 days is stale; ages 18–110), written
 * by the reference migration; an organization's own row overrides them. The same columns hold an
 * organization's own row in its storage object (src/db/org-schema.ts); the defaults stay in D1.
 */
export const complianceSettingsColumns = () => ({
  orgId: text("org_id").primaryKey(),
  holdScore: real("hold_score").notNull(),
  flagScore: real("flag_score").notNull(),
  maxListAgeDays: integer("max_list_age_days").notNull(),
  minimumAge: integer("minimum_age").notNull(),
  maximumAge: integer("maximum_age").notNull(),
  updatedAt: text("updated_at").notNull().default(utcNow()),
});

export const complianceSettings = sqliteTable("compliance_settings", complianceSettingsColumns());

/**
 * The five-digit ZIP codes that exist, per country (only 'US'), as a bit set: bit n set ⇔ ZIP n
 * exists, base64. Reference data written by the `zip_codes_reference` migration, which
 * scripts/build-zip-table.ts renders from the `zipcodes` package; kept out of the Worker bundle.
 */
export const zipCodeSets = sqliteTable("zip_code_sets", {
  country: text("country").primaryKey(),
  source: text("source").notNull(),
  zipCount: integer("zip_count").notNull(),
  bitsBase64: text("bits_base64").notNull(),
});

/**
 * Given names and their nicknames and diminutives, as published (one row per source: the CSV of
 * carltonnorthern/nicknames, Apache-2.0, `name1,has_nickname,name2`). Reference data written by the
 * `given_name_forms` migration, which scripts/build-nickname-table.ts renders from
 * data/nicknames/names.csv; kept out of the Worker bundle (docs/domain/screening.md#given-name-forms).
 */
export const givenNameForms = sqliteTable("given_name_forms", {
  source: text("source").primaryKey(),
  pairCount: integer("pair_count").notNull(),
  csv: text("csv").notNull(),
});
