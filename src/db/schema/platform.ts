import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** ISO-8601 UTC timestamps are stored as text so they sort and read the same everywhere. */
/** ISO-8601 UTC, as every timestamp is stored: text that sorts and reads the same everywhere. */
export const utcNow = () => sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
const createdAt = () => text("created_at").notNull().default(utcNow());

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
 * A rooftop in the directory: what finds a store and counts stores across organizations. Its
 * settings are in the organization's object (`stores` of src/db/org-schema.ts).
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

export const STIP_STATES = ["outstanding", "received", "cleared"] as const;

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
