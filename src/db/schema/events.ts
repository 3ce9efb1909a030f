import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { orgIdRef } from "./platform";

/**
 * Every event raised, written in the same D1 batch as the change that raised it (the outbox).
 * `fanned_out_at` stays null until the queue consumer has fanned the event out (created its
 * deliveries, in the same batch); the sweeper re-sends rows still null after its grace period.
 */
export const eventOutbox = sqliteTable(
  "event_outbox",
  {
    id: text("id").primaryKey(),
    orgId: orgIdRef(),
    storeId: text("store_id"),
    event: text("event").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** ISO-8601 UTC: the envelope's `timestamp`. */
    occurredAt: text("occurred_at").notNull(),
    fannedOutAt: text("fanned_out_at"),
    /** A sample sent on request (`POST /api/v1/webhooks/{id}/trigger`), not something that happened. */
    sample: integer("sample", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    index("event_outbox_org_idx").on(t.orgId, t.occurredAt),
    index("event_outbox_not_fanned_out_idx").on(t.fannedOutAt, t.occurredAt),
    index("event_outbox_occurred_idx").on(t.occurredAt),
  ],
);

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
