import { z } from "@hono/zod-openapi";
import type { FeedReceipts } from "../db/queries/signals";
import { type DataAsOf, dataAsOf, type StoreFeed, staleWarnings } from "../engines/freshness";

/**
 * `data_as_of` of every answer built on a store's inventory or deals (docs/ingestion.md#when-a-feed-stops):
 * one schema, so each endpoint documents the same shape.
 */
const DataAsOfSchema = z
  .array(
    z.object({
      store_id: z.string(),
      feed: z.enum(["inventory", "deals"]),
      as_of: z.iso.datetime().nullable().openapi({
        description: "When the store's feed last delivered; null when no delivery is recorded (data loaded another way, e.g. the demo).",
      }),
      age_hours: z.number().nullable(),
      stale_after_hours: z.int().openapi({ description: "The store's threshold: `inventory_stale_hours` or `deals_stale_hours`." }),
      stale: z.boolean().openapi({ description: "Older than the threshold: the answer is built on the data as it was then." }),
      warning: z.string().nullable().openapi({ description: "The warning in words when stale; else null." }),
    }),
  )
  .openapi("DataAsOf", {
    description: "How old the data behind this answer is, per store and feed it used.",
    example: [
      {
        store_id: "sto_summit_north",
        feed: "inventory",
        as_of: "2026-11-27T05:58:12.000Z",
        age_hours: 31.2,
        stale_after_hours: 24,
        stale: true,
        warning:
          "Inventory for Summit Auto North was last received 31 hours ago (2026-11-27 05:58 UTC), past the store's 24-hour threshold: this answer is built on the data as it was then.",
      },
    ],
  });

/** A documented example of one feed within its store's default threshold (24 hours for inventory, 72 for deals). */
export const freshFeedExample = (feed: StoreFeed, asOf: string, ageHours: number) => ({
  store_id: "sto_summit_north",
  feed,
  as_of: asOf,
  age_hours: ageHours,
  stale_after_hours: feed === "inventory" ? 24 : 72,
  stale: false,
  warning: null,
});

/** The two fields every such answer adds: the ages, and the stale ones' warnings in words. */
export const dataAsOfFields = {
  data_as_of: DataAsOfSchema,
  data_warnings: z.array(z.string()).openapi({
    description: "The stale entries' warnings, in words; empty when every feed the answer used is within its threshold.",
    example: [],
  }),
};

/** `data_as_of` and `data_warnings` of an answer from the receipts it read (its organization's object's): the store feeds it used, now. */
export function dataAsOfOf({ stores, receipts }: FeedReceipts, feeds: readonly StoreFeed[], now: Date) {
  const entries: DataAsOf[] = dataAsOf(stores, receipts, feeds, now);
  return { data_as_of: entries, data_warnings: staleWarnings(entries) };
}
