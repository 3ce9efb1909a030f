import { getDb } from "../db/client";
import { feedStaleEvent, feedsInD1, listNewlyStaleFeeds, markFeedStale, STALE_FEEDS_PER_CHECK } from "../db/queries/signals";
import { commitWithEvents } from "../events/emit";
import { logEvent } from "../lib/log";

/**
 * Every 5 minutes: `store.feed_stale` for each store feed past its threshold with no open episode
 * (docs/ingestion.md#when-a-feed-stops), of the organizations whose data is in D1: a moved
 * organization's object checks its own feeds on its alarm, and one being moved waits for the flip.
 * The episode's mark and its event are written together, and a marked feed is not found again until
 * a delivery clears it (raising `store.feed_resumed`), so each episode is raised once.
 */
export async function raiseStaleFeeds(env: Env, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const at = now.toISOString();
  const rows = await listNewlyStaleFeeds(db, at, STALE_FEEDS_PER_CHECK, feedsInD1);
  if (rows.length === 0) return;
  await commitWithEvents(
    env,
    db,
    rows.map((row) => markFeedStale(db, row, at)),
    rows.map((row) => feedStaleEvent(row, now)),
    now,
  );
  logEvent("info", { event: "stale_feeds_raised", feeds: rows.length });
}
