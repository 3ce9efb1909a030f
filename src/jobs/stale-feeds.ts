import { getDb } from "../db/client";
import { listNewlyStaleFeeds, markFeedStale } from "../db/queries/signals";
import { dataAsOf } from "../engines/freshness";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { logEvent } from "../lib/log";

/** Feeds one run opens episodes for; more wait for the next run, 5 minutes later. */
const FEEDS_PER_RUN = 200;

/**
 * Every 5 minutes: `store.feed_stale` for each store feed past its threshold with no open episode
 * (docs/ingestion.md#when-a-feed-stops). The episode's mark and its event are written together,
 * and a marked feed is not found again until a delivery clears it (raising `store.feed_resumed`),
 * so each episode is raised once.
 */
export async function raiseStaleFeeds(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const at = now.toISOString();
  const rows = await listNewlyStaleFeeds(db, at, FEEDS_PER_RUN);
  if (rows.length === 0) return;
  const events: DomainEvent[] = [];
  for (const row of rows) {
    const [entry] = dataAsOf([row.store], [{ storeId: row.storeId, feed: row.feed, receivedAt: row.receivedAt }], [row.feed], now);
    events.push({
      event: "store.feed_stale",
      orgId: row.orgId,
      storeId: row.storeId,
      data: {
        feed: row.feed,
        store_name: row.store.name,
        last_received_at: row.receivedAt,
        age_hours: entry.age_hours,
        stale_after_hours: entry.stale_after_hours,
        summary: entry.warning,
      },
    });
  }
  await commitWithEvents(
    env,
    db,
    rows.map((row) => markFeedStale(db, row, at)),
    events,
    now,
  );
  logEvent("info", { event: "stale_feeds_raised", feeds: rows.length });
}
