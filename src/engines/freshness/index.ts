/**
 * How old the data behind an answer is (docs/ingestion.md#when-a-feed-stops): per store and feed,
 * when the feed last delivered, its age and whether it is past the store's threshold, with the
 * warning an answer states in words. Time is passed in.
 */

export type StoreFeed = "inventory" | "deals";

/** A store's thresholds, its settings `inventory_stale_hours` and `deals_stale_hours`. */
export interface FeedStore {
  id: string;
  name: string;
  inventoryStaleHours: number;
  dealsStaleHours: number;
}

/** When a store's feed last delivered (`store_feeds.received_at`). */
export interface FeedReceipt {
  storeId: string;
  feed: StoreFeed;
  receivedAt: string;
}

export interface DataAsOf {
  store_id: string;
  feed: StoreFeed;
  /** When the feed last delivered; null when no delivery is recorded (data loaded another way, e.g. the demo). */
  as_of: string | null;
  age_hours: number | null;
  stale_after_hours: number;
  stale: boolean;
  /** The answer's warning in words when stale; else null. */
  warning: string | null;
}

const HOUR_MS = 3_600_000;
const FEED_WORDS: Record<StoreFeed, string> = { inventory: "Inventory for", deals: "Deals for" };
const WAS: Record<StoreFeed, string> = { inventory: "was", deals: "were" };

const staleAfterHours = (store: Pick<FeedStore, "inventoryStaleHours" | "dealsStaleHours">, feed: StoreFeed) =>
  feed === "inventory" ? store.inventoryStaleHours : store.dealsStaleHours;

/** Past the threshold, not at it: 24 hours old is still fresh with a 24-hour threshold. */
const isStale = (ageHours: number, thresholdHours: number) => ageHours > thresholdHours;

/** One entry per store and feed asked for, in the stores' order, then the feeds'. */
export function dataAsOf(stores: readonly FeedStore[], receipts: readonly FeedReceipt[], feeds: readonly StoreFeed[], now: Date): DataAsOf[] {
  const received = new Map(receipts.map((r) => [`${r.storeId}\u0000${r.feed}`, r.receivedAt]));
  return stores.flatMap((store) =>
    feeds.map((feed): DataAsOf => {
      const asOf = received.get(`${store.id}\u0000${feed}`) ?? null;
      const threshold = staleAfterHours(store, feed);
      if (asOf === null) return { store_id: store.id, feed, as_of: null, age_hours: null, stale_after_hours: threshold, stale: false, warning: null };
      const ageHours = Math.max(0, (now.getTime() - Date.parse(asOf)) / HOUR_MS);
      const stale = isStale(ageHours, threshold);
      return {
        store_id: store.id,
        feed,
        as_of: asOf,
        age_hours: Number(ageHours.toFixed(1)),
        stale_after_hours: threshold,
        stale,
        warning: stale
          ? `${FEED_WORDS[feed]} ${store.name} ${WAS[feed]} last received ${Math.floor(ageHours)} hours ago (${asOf.slice(0, 16).replace("T", " ")} UTC), past the store's ${threshold}-hour threshold: this answer is built on the data as it was then.`
          : null,
      };
    }),
  );
}

/** The warnings of the stale entries, in order. */
export const staleWarnings = (entries: readonly DataAsOf[]) => entries.flatMap((e) => (e.warning === null ? [] : [e.warning]));
