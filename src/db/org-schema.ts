/**
 * The tables of an organization's storage object (src/durable-objects/org-storage.ts,
 * docs/scaling.md): drizzle-kit reads this file through drizzle-org.config.ts and writes the
 * object's migrations to migrations-org/. Every per-organization table is defined here alone (D1 keeps
 * only global tables, src/db/schema); nothing here references a global table.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CREDIT_TIERS, DEAL_STATUSES, UNIT_CONDITIONS, VEHICLE_TYPES } from "../engines/deal-math/vocabulary";
import { ROLES } from "../engines/reports/briefings";
import type { TriggeredRule } from "../engines/screening/decision";
import { complianceSettingsColumns } from "./schema/compliance";
import { LENDER_DECISIONS } from "./schema/deal-desk";
import { DELIVERY_STATUSES } from "./schema/events";
import { STIP_STATES, utcNow } from "./schema/platform";
import { SETTINGS_AREAS } from "./schema/settings";
import { STORE_FEEDS } from "./schema/signals";

/** Whose object this is, and whether it serves (`active`): the organization's creation seeds it, then opens it. */
export const storageOwner = sqliteTable("storage_owner", {
  orgId: text("org_id").primaryKey(),
  active: integer("active", { mode: "boolean" }).notNull().default(false),
});

/**
 * The organization's stores as the directory (D1 `stores`) names them: what the inventory feed
 * joins; and each store's settings (docs/settings.md; the settings group, below), the columns the
 * gross, aging and alert engines read; defaults are docs/domain/gross.md.
 */
export const stores = sqliteTable("stores", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  name: text("name").notNull(),
  packNew: real("pack_new").notNull().default(300),
  packUsed: real("pack_used").notNull().default(500),
  /** All-in daily holding cost under `holding_high_value_cost` (docs/domain/gross.md#holding-cost). */
  holdingCostPerDay: real("holding_cost_per_day").notNull().default(35),
  /** Cost at and above which a unit also carries `holding_high_value_daily_pct` % of its cost per day. */
  holdingHighValueCost: real("holding_high_value_cost").notNull().default(30000),
  holdingHighValueDailyPct: real("holding_high_value_daily_pct").notNull().default(0.1),
  floorplanAprNew: real("floorplan_apr_new").notNull().default(7.0),
  floorplanAprUsed: real("floorplan_apr_used").notNull().default(8.5),
  /** Floor-plan assistance or holdback the store counts against a new unit's interest, USD a day (docs/domain/gross.md#holding-cost). */
  floorplanAssistanceNewPerDay: real("floorplan_assistance_new_per_day").notNull().default(0),
  /** The store's own overhead figure for a new unit, USD a day, on top of its floor-plan interest. */
  overheadNewPerDay: real("overhead_new_per_day").notNull().default(0),
  /** Wholesale value of a clean unit today as % of its retail market (docs/domain/gross.md#expected-auction-proceeds). */
  wholesaleRatioPct: real("wholesale_ratio_pct").notNull().default(82),
  /** Auction and transport fees taken from a unit's wholesale value, USD. */
  auctionFees: real("auction_fees").notNull().default(500),
  reconCar: real("recon_car").notNull().default(1200),
  reconTruck: real("recon_truck").notNull().default(1400),
  reconSuv: real("recon_suv").notNull().default(1300),
  reconVan: real("recon_van").notNull().default(1200),
  /** Used and CPO units are aged at this many days (docs/domain/reports.md#aged-alert-thresholds). */
  agedThresholdDays: integer("aged_threshold_days").notNull().default(45),
  /** New units are aged at this many days (docs/domain/reports.md#new-units-age-differently). */
  agedThresholdDaysNew: integer("aged_threshold_days_new").notNull().default(90),
  /** Front gross a used unit must earn, as % of its retail price with a floor in USD (docs/domain/gross.md#front-gross-targets). */
  targetFrontGrossUsedPct: real("target_front_gross_used_pct").notNull().default(8),
  targetFrontGrossUsedMin: real("target_front_gross_used_min").notNull().default(1200),
  /** Inventory older than this many hours is stale (docs/ingestion.md#when-a-feed-stops). */
  inventoryStaleHours: integer("inventory_stale_hours").notNull().default(24),
  /** Deals older than this many hours are stale: a store can go a weekend without a sale. */
  dealsStaleHours: integer("deals_stale_hours").notNull().default(72),
});

export const inventoryUnits = sqliteTable(
  "inventory_units",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    stockNumber: text("stock_number").notNull(),
    vin: text("vin").notNull(),
    year: integer("year").notNull(),
    make: text("make").notNull(),
    model: text("model").notNull(),
    trim: text("trim").notNull(),
    condition: text("condition", { enum: UNIT_CONDITIONS }).notNull(),
    vehicleType: text("vehicle_type", { enum: VEHICLE_TYPES }).notNull(),
    mileage: integer("mileage").notNull(),
    /** YYYY-MM-DD the dealer took ownership; days in stock are derived from it at read time. */
    stockedOn: text("stocked_on").notNull(),
    cost: real("cost").notNull(),
    askingPrice: real("asking_price").notNull(),
    status: text("status", { enum: ["in_stock", "sold"] })
      .notNull()
      .default("in_stock"),
    createdAt: text("created_at").notNull().default(utcNow()),
    /** When a column last changed (triggers of migrations-org/0001 keep it); `updated_since` reads it (docs/feeds.md). */
    updatedAt: text("updated_at"),
  },
  (t) => [
    uniqueIndex("inventory_org_stock_idx").on(t.orgId, t.stockNumber),
    index("inventory_org_status_stocked_stock_idx").on(t.orgId, t.status, t.stockedOn, t.stockNumber),
    index("inventory_org_store_status_stocked_idx").on(t.orgId, t.storeId, t.status, t.stockedOn, t.stockNumber),
    index("inventory_org_updated_idx").on(t.orgId, t.updatedAt, t.stockNumber),
    index("inventory_org_make_model_idx").on(t.orgId, sql`lower(${t.make})`, sql`lower(${t.model})`, t.year),
    index("inventory_org_vin_idx").on(t.orgId, t.vin),
  ],
);

/** The units' market values (the valuation feed's), joined by the inventory alerts and the briefings. */
export const unitMarketValues = sqliteTable(
  "unit_market_values",
  {
    unitId: text("unit_id").primaryKey(),
    orgId: text("org_id").notNull(),
    marketValue: real("market_value").notNull(),
    /** YYYY-MM-DD of the valuation. */
    asOf: text("as_of").notNull(),
    source: text("source").notNull(),
  },
  (t) => [index("unit_market_values_org_idx").on(t.orgId)],
);

/** The deals group: the deals a DMS pushes, their stips, and the monthly sales rollup triggers keep (as D1's migration 0023 does). */
export const deals = sqliteTable(
  "deals",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    dealNumber: text("deal_number").notNull(),
    /** YYYY-MM-DD the buyer signed; the sales summary groups on its month. */
    soldOn: text("sold_on").notNull(),
    submittedOn: text("submitted_on"),
    fundedOn: text("funded_on"),
    status: text("status", { enum: DEAL_STATUSES }).notNull(),
    vin: text("vin").notNull(),
    year: integer("year").notNull(),
    make: text("make").notNull(),
    model: text("model").notNull(),
    condition: text("condition", { enum: UNIT_CONDITIONS }).notNull(),
    vehicleType: text("vehicle_type", { enum: VEHICLE_TYPES }).notNull(),
    sellingPrice: real("selling_price").notNull(),
    /** Null for cash deals. */
    lender: text("lender"),
    beacon: integer("beacon"),
    amountFinanced: real("amount_financed"),
    frontGross: real("front_gross").notNull(),
    backGross: real("back_gross").notNull(),
    createdAt: text("created_at").notNull().default(utcNow()),
    /** When a column last changed (triggers of migrations-org/0003 keep it); `updated_since` reads it (docs/feeds.md). */
    updatedAt: text("updated_at"),
  },
  (t) => [
    uniqueIndex("deals_org_number_idx").on(t.orgId, t.dealNumber),
    index("deals_org_sold_idx").on(t.orgId, t.soldOn),
    index("deals_org_status_idx").on(t.orgId, t.status),
    index("deals_org_store_sold_idx").on(t.orgId, t.storeId, t.soldOn),
    index("deals_org_updated_idx").on(t.orgId, t.updatedAt),
    index("deals_org_store_status_idx").on(t.orgId, t.storeId, t.status),
    index("deals_org_make_model_idx").on(t.orgId, sql`lower(${t.make})`, sql`lower(${t.model})`, t.soldOn),
  ],
);

export const dealStips = sqliteTable(
  "deal_stips",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    dealId: text("deal_id")
      .notNull()
      .references(() => deals.id),
    stip: text("stip").notNull(),
    state: text("state", { enum: STIP_STATES }).notNull(),
    requestedOn: text("requested_on").notNull(),
    clearedOn: text("cleared_on"),
  },
  (t) => [
    index("deal_stips_org_deal_idx").on(t.orgId, t.dealId),
    index("deal_stips_deal_idx").on(t.dealId),
    index("deal_stips_org_open_idx").on(t.orgId, t.dealId).where(sql`${t.state} <> 'cleared'`),
  ],
);

/**
 * Units and total gross per store and month of sale (`sale_month` 'YYYY-MM'), kept by triggers on
 * `deals` (migrations-org/0003), so the sales summary reads the rows it returns. `units` and
 * `total_gross` count deals not unwound; `sold_updated_at` is the latest change of those,
 * `updated_at` of any deal of the month (an unwind included).
 */
export const salesMonthly = sqliteTable(
  "sales_monthly",
  {
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    saleMonth: text("sale_month").notNull(),
    units: integer("units").notNull(),
    totalGross: real("total_gross").notNull(),
    soldUpdatedAt: text("sold_updated_at"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.storeId, t.saleMonth] }),
    index("sales_monthly_org_month_idx").on(t.orgId, t.saleMonth),
    index("sales_monthly_org_updated_idx").on(t.orgId, t.updatedAt),
  ],
);

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

/**
 * The compliance checks group: the organization's screening audit trail, which the screening's
 * history reads. Every check, with the person only as keyed hashes (HMAC-SHA256 under the
 * organization's own key, derived from the COMPLIANCE_HASH_SALT secret:
 * docs/domain/screening.md#identity-hashes-per-organization). Names, the date of birth, SSN digits
 * and the ZIP are never stored.
 */
export const complianceChecks = sqliteTable(
  "compliance_checks",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    keyId: text("key_id").notNull(),
    result: text("result", { enum: ["pass", "flag", "hold"] }).notNull(),
    triggeredRule: text("triggered_rule").$type<TriggeredRule>(),
    score: real("score").notNull(),
    holdScore: real("hold_score").notNull(),
    flagScore: real("flag_score").notNull(),
    maxListAgeDays: integer("max_list_age_days").notNull(),
    listVersion: text("list_version"),
    listLoadedAt: text("list_loaded_at"),
    /** The SDN entry (public list data) of the best match at or above the flag line. */
    matchedEntNum: integer("matched_ent_num"),
    redFlags: text("red_flags", { mode: "json" }).$type<string[]>().notNull(),
    safeguardsFlags: text("safeguards_flags", { mode: "json" }).$type<string[]>().notNull(),
    personHash: text("person_hash").notNull(),
    ssnDobHash: text("ssn_dob_hash"),
    nameZipHash: text("name_zip_hash"),
    nameHash: text("name_hash").notNull(),
    dobHash: text("dob_hash").notNull(),
    checkedAt: text("checked_at").notNull(),
  },
  (t) => [
    index("compliance_checks_org_checked_idx").on(t.orgId, t.checkedAt),
    // Retention's: the oldest checks first, whatever the organization (src/db/queries/retention.ts).
    index("compliance_checks_checked_idx").on(t.checkedAt),
    index("compliance_checks_org_ssn_dob_idx").on(t.orgId, t.ssnDobHash, t.nameHash),
    index("compliance_checks_org_name_zip_idx").on(t.orgId, t.nameZipHash, t.dobHash),
  ],
);

// --- the lender decisions group (lender_decisions, lender_outcome_episodes; docs/scaling.md) -----

/** The store's submissions to lenders and what came back: routing's calibration and the lender-outcome job's input. */
export const lenderDecisions = sqliteTable(
  "lender_decisions",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    programId: text("program_id").notNull(),
    /** The deal, when the submission came from one in `deals`. */
    dealId: text("deal_id"),
    submittedOn: text("submitted_on").notNull(),
    scoreBand: text("score_band", { enum: CREDIT_TIERS }).notNull(),
    decision: text("decision", { enum: LENDER_DECISIONS }).notNull(),
    stipsAsked: text("stips_asked", { mode: "json" }).$type<string[]>().notNull(),
    /** Submission to stips cleared; null when declined. */
    turnaroundHours: real("turnaround_hours"),
  },
  (t) => [index("lender_decisions_store_calibration_idx").on(t.orgId, t.storeId, t.programId, t.scoreBand, t.decision, t.turnaroundHours)],
);

/** The tightenings the lender-outcome job found in those decisions, open until they recover; each raises its event once. */
export const lenderOutcomeEpisodes = sqliteTable(
  "lender_outcome_episodes",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    programId: text("program_id").notNull(),
    openedAt: text("opened_at").notNull(),
    /** The figures when it opened (the event's payload): before and after, sample sizes, window, p, the lender's name. */
    figures: text("figures", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    closedAt: text("closed_at"),
  },
  (t) => [
    // One open episode per store and program: a duplicated job message cannot open a second.
    uniqueIndex("lender_outcome_episodes_open_idx").on(t.storeId, t.programId).where(sql`${t.closedAt} IS NULL`),
    index("lender_outcome_episodes_org_idx").on(t.orgId, t.storeId, t.closedAt),
  ],
);

// --- the settings group (the settings columns of `stores`, above; settings_audit; docs/scaling.md) --

/**
 * Every change to a store's settings, its lender panel or the organization's screening thresholds,
 * one row per field changed, written in the change's own transaction (docs/settings.md).
 */
export const settingsAudit = sqliteTable(
  "settings_audit",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    /** Null for an organization-wide setting (the compliance thresholds). */
    storeId: text("store_id"),
    area: text("area", { enum: SETTINGS_AREAS }).notNull(),
    field: text("field").notNull(),
    /** JSON text of the value before and after. */
    oldValue: text("old_value").notNull(),
    newValue: text("new_value").notNull(),
    /** `staff:<user id>`, `broker:<token id>` or `operator:<id>`. */
    actor: text("actor").notNull(),
    changedAt: text("changed_at").notNull(),
  },
  (t) => [index("settings_audit_org_changed_idx").on(t.orgId, t.changedAt, t.id)],
);

// --- the settings group's lender panels and screening thresholds (issue 39; docs/scaling.md) ------

/** Which programs of D1's lender matrix (global reference data, not here) each store routes to. */
export const storeLenderPanel = sqliteTable(
  "store_lender_panel",
  {
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    programId: text("program_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.programId] }), index("store_lender_panel_org_idx").on(t.orgId, t.storeId)],
);

/** The organization's own screening thresholds, when it has changed them: at most one row; the defaults ('*') stay in D1. */
export const complianceSettings = sqliteTable("compliance_settings", complianceSettingsColumns());

// --- the webhooks group (webhook_endpoints, webhook_deliveries, webhook_attempts; docs/scaling.md) --

/** The organization's receiving URLs, their secrets encrypted as in D1. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
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
    createdAt: text("created_at").notNull().default(utcNow()),
    updatedAt: text("updated_at").notNull().default(utcNow()),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.orgId)],
);

/**
 * One event to one endpoint. Its event is a row of the object's `event_outbox` (recorded here, or
 * written by the fan-out for an event raised in D1), kept while a delivery refers to it.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastResponseStatus: integer("last_response_status"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** When a manual redelivery was asked for and its queue message not yet accepted; the outbox sweeper sends it. */
    redeliverRequestedAt: text("redeliver_requested_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_endpoint_event_idx").on(t.endpointId, t.eventId),
    index("webhook_deliveries_org_endpoint_idx").on(t.orgId, t.endpointId, t.createdAt),
    index("webhook_deliveries_redeliver_idx").on(t.redeliverRequestedAt).where(sql`${t.redeliverRequestedAt} is not null`),
    index("webhook_deliveries_created_idx").on(t.createdAt),
    index("webhook_deliveries_event_idx").on(t.eventId),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
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
  },
  (t) => [
    primaryKey({ columns: [t.deliveryId, t.attempt] }),
    index("webhook_attempts_bodies_idx").on(t.attemptedAt).where(sql`${t.requestBody} is not null`),
  ],
);

// --- the briefings group (morning_briefings, aged_inventory_alerts; docs/scaling.md) ------------

/** Each store's briefings of a day, one per role: stored by the nightly run or the day's first request, read back after. */
export const morningBriefings = sqliteTable(
  "morning_briefings",
  {
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    day: text("day").notNull(),
    generatedAt: text("generated_at").notNull(),
    /** The response body, as JSON. */
    body: text("body", { mode: "json" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.storeId, t.role, t.day] }),
    index("morning_briefings_org_idx").on(t.orgId),
    index("morning_briefings_day_idx").on(t.day),
  ],
);

/** The aged crossings alerted, one per stocking: what makes each `inventory.aged_alert` raise once. */
export const agedInventoryAlerts = sqliteTable(
  "aged_inventory_alerts",
  {
    orgId: text("org_id").notNull(),
    stockNumber: text("stock_number").notNull(),
    stockedOn: text("stocked_on").notNull(),
    alertedAt: text("alerted_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.stockNumber, t.stockedOn] }),
    // Retention's: the oldest markers first (src/db/queries/retention.ts).
    index("aged_inventory_alerts_alerted_idx").on(t.alertedAt),
  ],
);

// --- the store feeds group (store_feeds; docs/scaling.md) ----------------------------------------

/**
 * Each store's last delivery per feed and its open stale episode: written with the snapshot or deal
 * push it records, read with every answer's `data_as_of`, and checked by the object's alarm.
 * `stale_since` is set by that check with its `store.feed_stale` event and cleared by the next
 * delivery with its `store.feed_resumed` event, so each episode is raised once
 * (docs/ingestion.md#when-a-feed-stops).
 */
export const storeFeeds = sqliteTable(
  "store_feeds",
  {
    orgId: text("org_id").notNull(),
    storeId: text("store_id").notNull(),
    feed: text("feed", { enum: STORE_FEEDS }).notNull(),
    receivedAt: text("received_at").notNull(),
    staleSince: text("stale_since"),
  },
  (t) => [
    primaryKey({ columns: [t.storeId, t.feed] }),
    index("store_feeds_org_idx").on(t.orgId, t.storeId),
    index("store_feeds_fresh_idx").on(t.staleSince, t.receivedAt),
  ],
);
