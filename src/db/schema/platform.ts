import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, type SQLiteColumn, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { DEAL_STATUSES, UNIT_CONDITIONS, VEHICLE_TYPES } from "../../engines/deal-math/vocabulary";

/** ISO-8601 UTC timestamps are stored as text so they sort and read the same everywhere. */
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

/**
 * The reference columns every per-organization table declares alike. Function declarations, not
 * arrows: they are hoisted, so the schema modules that import each other can call them in any order.
 */
export function orgIdRef() {
  return text("org_id")
    .notNull()
    .references(() => organizations.id);
}
export function storeIdRef() {
  return text("store_id")
    .notNull()
    .references(() => stores.id);
}

export const organizations = sqliteTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    isDemo: integer("is_demo", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    /** Set while the organization is suspended: its keys, broker tokens and staff sessions are refused. */
    suspendedAt: text("suspended_at"),
    /** A self-serve sandbox (docs/sandboxes.md): `lak_test_` keys only, refused after `expires_at`, then purged. */
    isSandbox: integer("is_sandbox", { mode: "boolean" }).notNull().default(false),
    expiresAt: text("expires_at"),
  },
  (t) => [index("organizations_sandbox_expiry_idx").on(t.isSandbox, t.expiresAt)],
);

/** `dot_` bearer tokens of the operator API; bound to no organization, never a dealer credential. */
export const operatorTokens = sqliteTable("operator_tokens", {
  id: text("id").primaryKey(),
  tokenHash: text("token_hash").notNull().unique(),
  label: text("label").notNull(),
  createdAt: createdAt(),
  revokedAt: text("revoked_at"),
});

/** Sandboxes created per client address (a keyed hash, never the address) and UTC day: the exact daily cap. */
export const sandboxRequests = sqliteTable(
  "sandbox_requests",
  {
    day: text("day").notNull(),
    addressHash: text("address_hash").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.addressHash] })],
);

/**
 * A store's settings (docs/settings.md), the columns of the object's `stores` (src/db/org-schema.ts)
 * the gross, aging and alert engines read; defaults are docs/domain/gross.md.
 */
export const storeSettingColumns = () => ({
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

/**
 * A rooftop in the directory: what finds a store and counts stores across organizations. Its
 * settings (`storeSettingColumns`) are in the organization's object (src/db/org-schema.ts).
 */
export const stores = sqliteTable(
  "stores",
  {
    id: text("id").primaryKey(),
    orgId: orgIdRef(),
    name: text("name").notNull(),
    isPrimary: integer("is_primary", { mode: "boolean" }).notNull().default(false),
    marketZip: text("market_zip").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("stores_org_idx").on(t.orgId)],
);

export const staffUsers = sqliteTable("staff_users", {
  id: text("id").primaryKey(),
  orgId: orgIdRef(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  /** `scrypt$N$r$p$salt$hash`: parameters travel with each hash so they can be raised later. */
  passwordHash: text("password_hash").notNull(),
  createdAt: createdAt(),
});

export const staffSessions = sqliteTable(
  "staff_sessions",
  {
    /** SHA-256 of the cookie value; the raw session id never reaches the database. */
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => staffUsers.id),
    orgId: orgIdRef(),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [
    index("staff_sessions_user_idx").on(t.userId),
    // The nightly purge finds lapsed sessions by either end (migration 0025).
    index("staff_sessions_expires_idx").on(t.expiresAt),
    index("staff_sessions_last_seen_idx").on(t.lastSeenAt),
  ],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: orgIdRef(),
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    label: text("label").notNull(),
    /** JSON array of permission names. */
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull(),
    /** JSON array of endpoint names; null grants every endpoint of the organization. */
    scopes: text("scopes", { mode: "json" }).$type<string[] | null>(),
    dailyLimit: integer("daily_limit").notNull().default(100),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
    /** A rotated key works until this moment (ISO-8601 UTC), then is refused; null: no end. */
    expiresAt: text("expires_at"),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId)],
);

/** Bearer tokens a broker uses to create keys; each is bound to one organization. */
export const brokerTokens = sqliteTable("broker_tokens", {
  id: text("id").primaryKey(),
  orgId: orgIdRef(),
  tokenHash: text("token_hash").notNull().unique(),
  label: text("label").notNull(),
  createdAt: createdAt(),
  revokedAt: text("revoked_at"),
});

/** `svc_live_` tokens of the older scheme, accepted on the two legacy feeds only. */
export const legacyTokens = sqliteTable("legacy_tokens", {
  id: text("id").primaryKey(),
  orgId: orgIdRef(),
  tokenHash: text("token_hash").notNull().unique(),
  label: text("label").notNull(),
  createdAt: createdAt(),
  revokedAt: text("revoked_at"),
});

/**
 * An inventory unit's columns and indexes, the organization and store columns given: for the organization's storage object's schema (src/db/org-schema.ts).
 */
export const inventoryUnitColumns = <OrgId, StoreId>(orgId: OrgId, storeId: StoreId) => ({
  id: text("id").primaryKey(),
  orgId,
  storeId,
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
  createdAt: createdAt(),
  /** When a column last changed (triggers of migration 0020 keep it); `updated_since` reads it (docs/feeds.md). */
  updatedAt: text("updated_at"),
});

type UnitIndexColumns = {
  [K in "orgId" | "storeId" | "stockNumber" | "status" | "stockedOn" | "updatedAt" | "make" | "model" | "year" | "vin"]: SQLiteColumn;
};
export const inventoryUnitIndexes = (t: UnitIndexColumns) => [
  uniqueIndex("inventory_org_stock_idx").on(t.orgId, t.stockNumber),
  index("inventory_org_status_stocked_stock_idx").on(t.orgId, t.status, t.stockedOn, t.stockNumber),
  index("inventory_org_store_status_stocked_idx").on(t.orgId, t.storeId, t.status, t.stockedOn, t.stockNumber),
  index("inventory_org_updated_idx").on(t.orgId, t.updatedAt, t.stockNumber),
  index("inventory_org_make_model_idx").on(t.orgId, sql`lower(${t.make})`, sql`lower(${t.model})`, t.year),
  index("inventory_org_vin_idx").on(t.orgId, t.vin),
];

/**
 * The deals group's columns and indexes (a deal, its stips, the monthly sales rollup), the
 * organization, store and deal references given: for the organization's storage object's schema (src/db/org-schema.ts).
 */
export const dealColumns = <OrgId, StoreId>(orgId: OrgId, storeId: StoreId) => ({
  id: text("id").primaryKey(),
  orgId,
  storeId,
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
  createdAt: createdAt(),
  /** When a column last changed (triggers of migration 0020 keep it); `updated_since` reads it (docs/feeds.md). */
  updatedAt: text("updated_at"),
});

type DealIndexColumns = { [K in "orgId" | "storeId" | "dealNumber" | "soldOn" | "status" | "updatedAt" | "make" | "model"]: SQLiteColumn };
export const dealIndexes = (t: DealIndexColumns) => [
  uniqueIndex("deals_org_number_idx").on(t.orgId, t.dealNumber),
  index("deals_org_sold_idx").on(t.orgId, t.soldOn),
  index("deals_org_status_idx").on(t.orgId, t.status),
  index("deals_org_store_sold_idx").on(t.orgId, t.storeId, t.soldOn),
  index("deals_org_updated_idx").on(t.orgId, t.updatedAt),
  index("deals_org_store_status_idx").on(t.orgId, t.storeId, t.status),
  index("deals_org_make_model_idx").on(t.orgId, sql`lower(${t.make})`, sql`lower(${t.model})`, t.soldOn),
];

/**
 * Units and total gross per store and month of sale (`sale_month` 'YYYY-MM'), kept by triggers on
 * `deals` (migration 0023), so the sales summary reads the rows it returns. `units` and
 * `total_gross` count deals not unwound; `sold_updated_at` is the latest change of those,
 * `updated_at` of any deal of the month (an unwind included).
 */
export const salesMonthlyColumns = <OrgId>(orgId: OrgId) => ({
  orgId,
  storeId: text("store_id").notNull(),
  saleMonth: text("sale_month").notNull(),
  units: integer("units").notNull(),
  totalGross: real("total_gross").notNull(),
  soldUpdatedAt: text("sold_updated_at"),
  updatedAt: text("updated_at").notNull(),
});

export const salesMonthlyIndexes = (t: { [K in "orgId" | "storeId" | "saleMonth" | "updatedAt"]: SQLiteColumn }) => [
  primaryKey({ columns: [t.orgId, t.storeId, t.saleMonth] }),
  index("sales_monthly_org_month_idx").on(t.orgId, t.saleMonth),
  index("sales_monthly_org_updated_idx").on(t.orgId, t.updatedAt),
];

export const STIP_STATES = ["outstanding", "received", "cleared"] as const;

export const dealStipColumns = <OrgId, DealId>(orgId: OrgId, dealId: DealId) => ({
  id: text("id").primaryKey(),
  orgId,
  dealId,
  stip: text("stip").notNull(),
  state: text("state", { enum: STIP_STATES }).notNull(),
  requestedOn: text("requested_on").notNull(),
  clearedOn: text("cleared_on"),
});

export const dealStipIndexes = (t: { [K in "orgId" | "dealId" | "state"]: SQLiteColumn }) => [
  index("deal_stips_org_deal_idx").on(t.orgId, t.dealId),
  index("deal_stips_deal_idx").on(t.dealId),
  index("deal_stips_org_open_idx").on(t.orgId, t.dealId).where(sql`${t.state} <> 'cleared'`),
];

/** The public market-intelligence feed; not owned by any organization. */
export const marketFeedEntries = sqliteTable(
  "market_feed_entries",
  {
    id: text("id").primaryKey(),
    category: text("category").notNull(),
    signal: text("signal").notNull(),
    severity: text("severity", { enum: ["high", "medium", "low"] }).notNull(),
    source: text("source").notNull(),
    date: text("date").notNull(),
    refreshedAt: text("refreshed_at").notNull(),
    /** A seeded demo entry, not a published reading (docs/domain/reports.md#demo-market-data). */
    isDemo: integer("is_demo", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("market_feed_date_idx").on(t.date)],
);

/** Authenticated usage per key and UTC day, flushed in batches from each isolate (never per request). */
export const keyUsageDaily = sqliteTable(
  "key_usage_daily",
  {
    day: text("day").notNull(),
    keyId: text("key_id").notNull(),
    orgId: orgIdRef(),
    requests: integer("requests").notNull().default(0),
    dealToolCalls: integer("deal_tool_calls").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.keyId] }), index("key_usage_org_day_idx").on(t.orgId, t.day)],
);

/** Every request the platform answered, per UTC day, for the uptime figure. */
export const platformDaily = sqliteTable("platform_daily", {
  day: text("day").primaryKey(),
  requests: integer("requests").notNull().default(0),
  serverErrors: integer("server_errors").notNull().default(0),
});

/**
 * The public statistics' running totals (a single row, id 1), kept exact by the usage flush in the
 * same batch as the rows they summarize, so a statistics read costs O(1) in the usage tables.
 */
export const platformRollup = sqliteTable("platform_rollup", {
  id: integer("id").primaryKey(),
  /** Organizations with a row in org_activity. */
  organizationsEvaluated: integer("organizations_evaluated").notNull().default(0),
  /** key_usage_daily rows (key or legacy token, UTC day) of demo organizations. */
  demoSessions: integer("demo_sessions").notNull().default(0),
  /** The sum of key_usage_daily.deal_tool_calls. */
  dealsThroughAi: integer("deals_through_ai").notNull().default(0),
});

/** Every organization that has made an authenticated call, and the last UTC day it did (active rooftops). */
export const orgActivity = sqliteTable(
  "org_activity",
  {
    orgId: text("org_id")
      .primaryKey()
      .references(() => organizations.id),
    lastCallDay: text("last_call_day").notNull(),
  },
  (t) => [index("org_activity_last_call_idx").on(t.lastCallDay)],
);
