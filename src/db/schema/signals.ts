import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The two feeds a store's answers are built on (docs/ingestion.md#when-a-feed-stops). */
export const STORE_FEEDS = ["inventory", "deals"] as const;

/**
 * The figures of the own-outcomes detector (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions):
 * one row, `default`.
 */
export const lenderOutcomeSettings = sqliteTable("lender_outcome_settings", {
  id: text("id").primaryKey(),
  /** The recent window, days back from the run. */
  recentDays: integer("recent_days").notNull(),
  /** The baseline: this many days before the recent window. */
  baselineDays: integer("baseline_days").notNull(),
  /** One-sided Fisher exact p at or under which the recent approval rate is below the baseline beyond chance. */
  alpha: real("alpha").notNull(),
  /** An open episode closes (recovered) when the recent window against the episode's baseline gives p over this. */
  recoveryP: real("recovery_p").notNull(),
  /** Fewer recent decisions than this are neither tested nor taken as a recovery. */
  minRecentDecisions: integer("min_recent_decisions").notNull(),
  source: text("source").notNull(),
});
