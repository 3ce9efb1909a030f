import { sql } from "drizzle-orm";
import { index, integer, primaryKey, type SQLiteColumn, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { orgIdRef } from "./platform";

const now = () => sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

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

/**
 * The webhooks group's columns and indexes, shared by D1's tables and an organization's object
 * (src/db/org-schema.ts): the organization and the references are passed in, because the object's
 * tables reference the object's own rows and no global table.
 */
export const webhookEndpointColumns = <OrgId>(orgId: OrgId) => ({
  id: text("id").primaryKey(),
  orgId,
  url: text("url").notNull(),
  description: text("description").notNull().default(""),
  /** JSON array of event names. */
  events: text("events", { mode: "json" }).$type<string[]>().notNull(),
  /** base64(iv ‖ AES-GCM ciphertext) of the `whsec_` secret. */
  secretCiphertext: text("secret_ciphertext").notNull(),
  /** After a rotation: the previous secret, encrypted the same way, which also signs until `previous_secret_expires_at`. */
  previousSecretCiphertext: text("previous_secret_ciphertext"),
  previousSecretExpiresAt: text("previous_secret_expires_at"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  /** Why the service disabled it (e.g. the receiver answered 410); null when a user did. */
  disabledReason: text("disabled_reason"),
  createdAt: text("created_at").notNull().default(now()),
  updatedAt: text("updated_at").notNull().default(now()),
});

export const webhookEndpointIndexes = (t: { orgId: SQLiteColumn }) => [index("webhook_endpoints_org_idx").on(t.orgId)];

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

export const webhookDeliveryColumns = <OrgId, EndpointId, EventId>(orgId: OrgId, endpointId: EndpointId, eventId: EventId) => ({
  id: text("id").primaryKey(),
  orgId,
  endpointId,
  eventId,
  event: text("event").notNull(),
  status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
  attemptCount: integer("attempt_count").notNull().default(0),
  lastResponseStatus: integer("last_response_status"),
  lastError: text("last_error"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  /** When a manual redelivery was asked for and its queue message not yet accepted; the outbox sweeper sends it. */
  redeliverRequestedAt: text("redeliver_requested_at"),
});

export const webhookDeliveryIndexes = (t: { [K in "orgId" | "endpointId" | "eventId" | "createdAt" | "redeliverRequestedAt"]: SQLiteColumn }) => [
  uniqueIndex("webhook_deliveries_endpoint_event_idx").on(t.endpointId, t.eventId),
  index("webhook_deliveries_org_endpoint_idx").on(t.orgId, t.endpointId, t.createdAt),
  index("webhook_deliveries_redeliver_idx").on(t.redeliverRequestedAt).where(sql`${t.redeliverRequestedAt} is not null`),
  index("webhook_deliveries_created_idx").on(t.createdAt),
  index("webhook_deliveries_event_idx").on(t.eventId),
];

export const webhookAttemptColumns = <DeliveryId>(deliveryId: DeliveryId) => ({
  deliveryId,
  attempt: integer("attempt").notNull(),
  orgId: text("org_id").notNull(),
  attemptedAt: text("attempted_at").notNull(),
  durationMs: integer("duration_ms").notNull(),
  responseStatus: integer("response_status"),
  error: text("error"),
  outcome: text("outcome", { enum: ["delivered", "retrying", "failed", "disabled"] }).notNull(),
  /** The envelope exactly as POSTed (event data only: the secret and signature are never stored). */
  requestBody: text("request_body"),
  /** The first KiB of the receiver's answer when it is text; null for no answer, an empty or a binary one. */
  responseBody: text("response_body"),
  /** The size of the receiver's answer, counted up to 1 MiB; null when it did not answer. */
  responseBytes: integer("response_bytes"),
});

export const webhookAttemptIndexes = (t: { [K in "deliveryId" | "attempt" | "attemptedAt" | "requestBody"]: SQLiteColumn }) => [
  primaryKey({ columns: [t.deliveryId, t.attempt] }),
  index("webhook_attempts_bodies_idx").on(t.attemptedAt).where(sql`${t.requestBody} is not null`),
];

/**
 * An aged-alert marker's columns and indexes, the organization reference given: for the organization's storage object's schema (src/db/org-schema.ts).
 */
export const agedInventoryAlertColumns = <OrgId>(orgId: OrgId) => ({
  orgId,
  stockNumber: text("stock_number").notNull(),
  stockedOn: text("stocked_on").notNull(),
  alertedAt: text("alerted_at").notNull(),
});

type AgedInventoryAlertIndexColumns = { [K in "orgId" | "stockNumber" | "stockedOn" | "alertedAt"]: SQLiteColumn };
export const agedInventoryAlertIndexes = (t: AgedInventoryAlertIndexColumns) => [
  primaryKey({ columns: [t.orgId, t.stockNumber, t.stockedOn] }),
  // Retention's: the oldest markers first (src/db/queries/retention.ts).
  index("aged_inventory_alerts_alerted_idx").on(t.alertedAt),
];
