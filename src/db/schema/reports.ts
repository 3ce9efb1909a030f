import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const MARKET_SERIES_PROVIDERS = ["fred", "eia", "manual"] as const;
export const MARKET_SERIES_CATEGORIES = ["macro", "lender_environment", "wholesale_index"] as const;

/**
 * The public series the nightly refresh fetches (reference data; a row can be switched off
 * without a deploy). `manual` series (Manheim has no API) are entered by an operator.
 */
export const marketSeries = sqliteTable("market_series", {
  id: text("id").primaryKey(),
  provider: text("provider", { enum: MARKET_SERIES_PROVIDERS }).notNull(),
  name: text("name").notNull(),
  category: text("category", { enum: MARKET_SERIES_CATEGORIES }).notNull(),
  /** `index`, `usd_per_gallon` or `percent`. */
  unit: text("unit").notNull(),
  frequency: text("frequency", { enum: ["daily", "weekly", "monthly", "quarterly"] }).notNull(),
  /** Set on a mirror (FRED GASREGW of EIA's gasoline): read only when the primary has no newer reading. */
  fallbackFor: text("fallback_for"),
  /** Text naming the origin, shown in the feed and the pulse. */
  source: text("source").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
});

/** One reading of a series; the last good reading stays when an upstream fails. */
export const marketObservations = sqliteTable(
  "market_observations",
  {
    seriesId: text("series_id")
      .notNull()
      .references(() => marketSeries.id),
    /** YYYY-MM-DD the reading is for (the upstream's period). */
    date: text("date").notNull(),
    value: real("value").notNull(),
    fetchedAt: text("fetched_at").notNull(),
    /** A seeded demo value, not a published reading (docs/domain/reports.md#demo-market-data). */
    isDemo: integer("is_demo", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.seriesId, t.date] })],
);

/** One nightly refresh: what it added, and whether every series answered. */
export const marketRefreshRuns = sqliteTable(
  "market_refresh_runs",
  {
    id: text("id").primaryKey(),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at").notNull(),
    status: text("status", { enum: ["ok", "partial"] }).notNull(),
    observationsAdded: integer("observations_added").notNull(),
    entriesAdded: integer("entries_added").notNull(),
  },
  (t) => [index("market_refresh_runs_started_idx").on(t.startedAt)],
);

/** A series the refresh could not read (HTTP error, malformed body, missing key); its old data stays. */
export const marketRefreshFailures = sqliteTable(
  "market_refresh_failures",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => marketRefreshRuns.id),
    seriesId: text("series_id").notNull(),
    reason: text("reason").notNull(),
    occurredAt: text("occurred_at").notNull(),
  },
  (t) => [index("market_refresh_failures_run_idx").on(t.runId)],
);
