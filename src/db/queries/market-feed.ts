import { desc, max } from "drizzle-orm";
import type { Database } from "../client";
import { marketFeedEntries } from "../schema";

/** How many entries GET /api/moat/public publishes (docs/public.md). */
export const MARKET_FEED_SIZE = 20;

/** The newest feed entries, newest first, in their published shape (a query to run or batch). */
export function newestFeedEntries(db: Database, limit: number) {
  return db
    .select({
      id: marketFeedEntries.id,
      category: marketFeedEntries.category,
      signal: marketFeedEntries.signal,
      severity: marketFeedEntries.severity,
      source: marketFeedEntries.source,
      date: marketFeedEntries.date,
      demo: marketFeedEntries.isDemo,
    })
    .from(marketFeedEntries)
    .orderBy(desc(marketFeedEntries.date), desc(marketFeedEntries.id))
    .limit(limit);
}

export async function latestMarketFeed(db: Database, limit: number) {
  const [entries, refreshed] = await db.batch([
    newestFeedEntries(db, limit),
    db.select({ lastRefresh: max(marketFeedEntries.refreshedAt) }).from(marketFeedEntries),
  ]);
  return { entries, lastRefresh: refreshed[0]?.lastRefresh ?? null };
}
