/**
 * The tables of an organization's storage object (src/durable-objects/org-storage.ts,
 * docs/scaling.md): drizzle-kit reads this file through drizzle-org.config.ts and writes the
 * object's migrations to migrations-org/. Table and column names are D1's, so the query modules of
 * src/db/queries run unchanged on either; nothing here references a global table.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { complianceCheckColumns, complianceCheckIndexes, complianceSettingsColumns } from "./schema/compliance";
import { lenderDecisionColumns, lenderDecisionIndexes, storeLenderPanelColumns, storeLenderPanelIndexes } from "./schema/deal-desk";
import {
  agedInventoryAlertColumns,
  agedInventoryAlertIndexes,
  webhookAttemptColumns,
  webhookAttemptIndexes,
  webhookDeliveryColumns,
  webhookDeliveryIndexes,
  webhookEndpointColumns,
  webhookEndpointIndexes,
} from "./schema/events";
import {
  dealColumns,
  dealIndexes,
  dealStipColumns,
  dealStipIndexes,
  inventoryUnitColumns,
  inventoryUnitIndexes,
  salesMonthlyColumns,
  salesMonthlyIndexes,
  storeSettingColumns,
} from "./schema/platform";
import { morningBriefingColumns, morningBriefingIndexes, unitMarketValueColumns } from "./schema/reports";
import { settingsAuditColumns, settingsAuditIndexes } from "./schema/settings";
import { lenderOutcomeEpisodeColumns, lenderOutcomeEpisodeIndexes, storeFeedColumns, storeFeedIndexes } from "./schema/signals";

/** Whose object this is, and whether it serves (`active`): the organization's creation seeds it, then opens it. */
export const storageOwner = sqliteTable("storage_owner", {
  orgId: text("org_id").primaryKey(),
  active: integer("active", { mode: "boolean" }).notNull().default(false),
});

/**
 * The organization's stores as the directory (D1 `stores`) names them: what the inventory feed
 * joins; and each store's settings (the settings group, below).
 */
export const stores = sqliteTable("stores", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  name: text("name").notNull(),
  ...storeSettingColumns(),
});

export const inventoryUnits = sqliteTable(
  "inventory_units",
  inventoryUnitColumns(text("org_id").notNull(), text("store_id").notNull()),
  inventoryUnitIndexes,
);

/** The units' market values (the valuation feed's), joined by the inventory alerts and the briefings. */
export const unitMarketValues = sqliteTable(
  "unit_market_values",
  unitMarketValueColumns(text("unit_id").primaryKey(), text("org_id").notNull()),
  (t) => [index("unit_market_values_org_idx").on(t.orgId)],
);

/** The deals group: the deals a DMS pushes, their stips, and the monthly sales rollup triggers keep (as D1's migration 0023 does). */
export const deals = sqliteTable("deals", dealColumns(text("org_id").notNull(), text("store_id").notNull()), dealIndexes);

export const dealStips = sqliteTable(
  "deal_stips",
  dealStipColumns(
    text("org_id").notNull(),
    text("deal_id")
      .notNull()
      .references(() => deals.id),
  ),
  dealStipIndexes,
);

export const salesMonthly = sqliteTable("sales_monthly", salesMonthlyColumns(text("org_id").notNull()), salesMonthlyIndexes);

// --- the object's outbox (issue 39: an object write and its events in one transaction) ---------

/**
 * The events an object write raised, recorded in the write's own SQLite transaction, until they are
 * in D1's `event_outbox` under the same ids and handed to the webhook queue (the request relays
 * them right away, the object's alarm whatever it did not): `relayed_at` is set then, and the row
 * deleted a day later. D1's outbox stays what the fan-out and its sweeper read.
 */
export const eventOutbox = sqliteTable(
  "event_outbox",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    storeId: text("store_id"),
    event: text("event").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** ISO-8601 UTC: the envelope's `timestamp`, as D1's row will carry it. */
    occurredAt: text("occurred_at").notNull(),
    relayedAt: text("relayed_at"),
    // D1's columns, which the webhooks group's shared queries read with an event: set when a fan-out in the object writes its deliveries.
    fannedOutAt: text("fanned_out_at"),
    sample: integer("sample", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("event_outbox_relayed_idx").on(t.relayedAt, t.occurredAt)],
);
/** The compliance checks group: the organization's screening audit trail (hashes only, as in D1), which the screening's history reads. */
export const complianceChecks = sqliteTable("compliance_checks", complianceCheckColumns(text("org_id").notNull()), complianceCheckIndexes);

// --- the lender decisions group (lender_decisions, lender_outcome_episodes; docs/scaling.md) -----

/** The store's submissions to lenders and what came back: routing's calibration and the lender-outcome job's input. */
export const lenderDecisions = sqliteTable(
  "lender_decisions",
  lenderDecisionColumns(text("org_id").notNull(), text("store_id").notNull(), text("program_id").notNull()),
  lenderDecisionIndexes,
);

/** The tightenings the lender-outcome job found in those decisions, open until they recover. */
export const lenderOutcomeEpisodes = sqliteTable(
  "lender_outcome_episodes",
  lenderOutcomeEpisodeColumns(text("org_id").notNull(), text("store_id").notNull(), text("program_id").notNull()),
  lenderOutcomeEpisodeIndexes,
);

// --- the settings group (the settings columns of `stores`, above; settings_audit; docs/scaling.md) --

/** Every change to a store's settings, one row per field, written in the change's own transaction (docs/settings.md). */
export const settingsAudit = sqliteTable("settings_audit", settingsAuditColumns(text("org_id").notNull()), settingsAuditIndexes);

// --- the settings group's lender panels and screening thresholds (issue 39; docs/scaling.md) ------

/** Which programs of D1's lender matrix (global reference data, not here) each store routes to. */
export const storeLenderPanel = sqliteTable(
  "store_lender_panel",
  storeLenderPanelColumns(text("org_id").notNull(), text("store_id").notNull(), text("program_id").notNull()),
  storeLenderPanelIndexes,
);

/** The organization's own screening thresholds, when it has changed them: at most one row; the defaults ('*') stay in D1. */
export const complianceSettings = sqliteTable("compliance_settings", complianceSettingsColumns());

// --- the webhooks group (webhook_endpoints, webhook_deliveries, webhook_attempts; docs/scaling.md) --

/** The organization's receiving URLs, their secrets encrypted as in D1. */
export const webhookEndpoints = sqliteTable("webhook_endpoints", webhookEndpointColumns(text("org_id").notNull()), webhookEndpointIndexes);

/**
 * One event to one endpoint. Its event is a row of the object's `event_outbox` (recorded here, or
 * written by the fan-out for an event raised in D1), kept while a delivery refers to it.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  webhookDeliveryColumns(
    text("org_id").notNull(),
    text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    text("event_id").notNull(),
  ),
  webhookDeliveryIndexes,
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  webhookAttemptColumns(
    text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
  ),
  webhookAttemptIndexes,
);

// --- the briefings group (morning_briefings, aged_inventory_alerts; docs/scaling.md) ------------

/** Each store's briefings of a day, one per role: stored by the nightly run or the day's first request, read back after. */
export const morningBriefings = sqliteTable(
  "morning_briefings",
  morningBriefingColumns(text("org_id").notNull(), text("store_id").notNull()),
  morningBriefingIndexes,
);

/** The aged crossings alerted, one per stocking: what makes each `inventory.aged_alert` raise once. */
export const agedInventoryAlerts = sqliteTable(
  "aged_inventory_alerts",
  agedInventoryAlertColumns(text("org_id").notNull()),
  agedInventoryAlertIndexes,
);

// --- the store feeds group (store_feeds; docs/scaling.md) ----------------------------------------

/**
 * Each store's last delivery per feed and its open stale episode: written with the snapshot or deal
 * push it records, read with every answer's `data_as_of`, and checked by the object's alarm.
 */
export const storeFeeds = sqliteTable("store_feeds", storeFeedColumns(text("org_id").notNull(), text("store_id").notNull()), storeFeedIndexes);
