import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, type SQLiteColumn, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** The two feeds a store's answers are built on (docs/ingestion.md#when-a-feed-stops). */
export const STORE_FEEDS = ["inventory", "deals"] as const;

/**
 * When each store's feed last delivered data, and the open stale episode: `stale_since` is set by
 * the stale check (the organization's object, on its alarm) with its `store.feed_stale` event and cleared by the next delivery with its
 * `store.feed_resumed` event, so each episode is raised once (docs/ingestion.md#when-a-feed-stops).
 */
export const storeFeedColumns = <OrgId, StoreId>(orgId: OrgId, storeId: StoreId) => ({
  orgId,
  storeId,
  feed: text("feed", { enum: STORE_FEEDS }).notNull(),
  receivedAt: text("received_at").notNull(),
  staleSince: text("stale_since"),
});

/** Columns and indexes shared with the organization's storage object (src/db/org-schema.ts). */
export const storeFeedIndexes = (t: { [K in "orgId" | "storeId" | "feed" | "receivedAt" | "staleSince"]: SQLiteColumn }) => [
  primaryKey({ columns: [t.storeId, t.feed] }),
  index("store_feeds_org_idx").on(t.orgId, t.storeId),
  index("store_feeds_fresh_idx").on(t.staleSince, t.receivedAt),
];

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

/**
 * A detected tightening of one program at one store, open until it recovers; each raises its event
 * once. Columns and indexes shared with the organization's storage object (src/db/org-schema.ts).
 */
export const lenderOutcomeEpisodeColumns = <OrgId, StoreId, ProgramId>(orgId: OrgId, storeId: StoreId, programId: ProgramId) => ({
  id: text("id").primaryKey(),
  orgId,
  storeId,
  programId,
  openedAt: text("opened_at").notNull(),
  /** The figures when it opened (the event's payload): before and after, sample sizes, window, p, the lender's name. */
  figures: text("figures", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  closedAt: text("closed_at"),
});

export const lenderOutcomeEpisodeIndexes = (t: { [K in "orgId" | "storeId" | "programId" | "closedAt"]: SQLiteColumn }) => [
  // One open episode per store and program: a duplicated job message cannot open a second.
  uniqueIndex("lender_outcome_episodes_open_idx").on(t.storeId, t.programId).where(sql`${t.closedAt} IS NULL`),
  index("lender_outcome_episodes_org_idx").on(t.orgId, t.storeId, t.closedAt),
];
