import { type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { DAY_MS, daysBefore, isoDay } from "../../engines/dates";
import { IDEMPOTENCY_KEY_TTL_MS } from "../../engines/idempotency/idempotency-key";
import type { Database } from "../client";
import { agedInventoryAlerts, complianceChecks, morningBriefings, webhookDeliveries } from "../org-schema";
import { eventOutbox, idempotencyKeys, keyUsageDaily, marketRefreshFailures, marketRefreshRuns, platformDaily } from "../schema";

/**
/** Expired rows one statement deletes, in D1 and in an organization's object: each statement's work bounded however much expired. */
export const EXPIRED_ROWS_PER_STATEMENT = 500;

/**
 * How long a growing table keeps a row: rows whose `age` column is older than `keptDays` days
 * (and that match `only`) are deleted. Why each figure: docs/retention.md, which lists these rules.
 * The age column is a UTC day ('YYYY-MM-DD') or an ISO-8601 UTC time, and indexed (migration 0023).
 */
export interface RetentionRule {
  table: string;
  keptDays: number;
  age: { column: SQLiteColumn; holds: "day" | "time" };
  only?: SQL;
  /** Rows to delete first that reference the expired ones by `key` (no ON DELETE CASCADE). */
  dependents?: { table: SQLiteTable; reference: SQLiteColumn; key: SQLiteColumn };
}

/**
 * The rules of an organization's own tables, which live in its storage object: its alarm applies
 * them there (src/jobs/org-nightly.ts). The screening audit trail's (src/db/org-store.ts `deleteExpiredChecks`).
 */
export const COMPLIANCE_CHECKS_RETENTION: RetentionRule = {
  table: "compliance_checks",
  keptDays: 3653,
  age: { column: complianceChecks.checkedAt, holds: "time" },
};

/** The briefings group's (src/db/org-store.ts `deleteExpiredBriefings`). */
export const MORNING_BRIEFINGS_RETENTION: RetentionRule = {
  table: "morning_briefings",
  keptDays: 14,
  age: { column: morningBriefings.day, holds: "day" },
};
export const AGED_ALERTS_RETENTION: RetentionRule = {
  table: "aged_inventory_alerts",
  keptDays: 90,
  age: { column: agedInventoryAlerts.alertedAt, holds: "time" },
};

/** A finished delivery; its attempts go with it (ON DELETE CASCADE; src/db/org-store.ts `deleteExpiredDeliveries`). */
export const WEBHOOK_DELIVERIES_RETENTION: RetentionRule = {
  table: "webhook_deliveries",
  keptDays: 90,
  age: { column: webhookDeliveries.createdAt, holds: "time" },
  only: sql`${webhookDeliveries.status} <> 'pending'`,
};
/**
 * An event fanned out, once no delivery refers to it: in an organization's object, the events its
 * deliveries kept (an event not relayed yet is never fanned out), deleted after them.
 */
export const FANNED_OUT_EVENTS_RETENTION: RetentionRule = {
  table: "event_outbox",
  keptDays: 90,
  age: { column: eventOutbox.occurredAt, holds: "time" },
  only: sql`${eventOutbox.fannedOutAt} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} d WHERE d.event_id = ${eventOutbox.id})`,
};

/** The rules of D1's tables, which the daily cron applies (src/jobs/purge-expired-records.ts). */
export const RETENTION_RULES: readonly RetentionRule[] = [
  // D1's outbox, once fanned out: the deliveries that send an event keep their own copy in the organization's object.
  {
    table: "event_outbox",
    keptDays: 90,
    age: { column: eventOutbox.occurredAt, holds: "time" },
    only: sql`${eventOutbox.fannedOutAt} IS NOT NULL`,
  },
  // Its answer is replayed for 24 h (docs/idempotency.md); an older key is taken over anyway.
  { table: "idempotency_keys", keptDays: IDEMPOTENCY_KEY_TTL_MS / DAY_MS, age: { column: idempotencyKeys.createdAt, holds: "time" } },
  { table: "key_usage_daily", keptDays: 400, age: { column: keyUsageDaily.day, holds: "day" } },
  { table: "platform_daily", keptDays: 400, age: { column: platformDaily.day, holds: "day" } },
  {
    table: "market_refresh_runs",
    keptDays: 400,
    age: { column: marketRefreshRuns.startedAt, holds: "time" },
    dependents: { table: marketRefreshFailures, reference: marketRefreshFailures.runId, key: marketRefreshRuns.id },
  },
];

/** The first instant (or day) a rule keeps at `now`: older rows are expired. */
function retentionCutoff(rule: RetentionRule, now: Date): string {
  const cutoff = daysBefore(now, rule.keptDays);
  return rule.age.holds === "day" ? isoDay(cutoff) : cutoff.toISOString();
}

/**
 * The statement deleting at most `limit` of the rule's expired rows, oldest first, found by the age
 * column's index (a bounded statement however much has expired: a D1 statement runs at most 30 s),
 * written for D1 and for an organization's object alike; a rule
 * with dependents has no single statement.
 */
export function expiredRowsDeletion(rule: RetentionRule, now: Date, limit: number): SQL {
  const table = rule.age.column.table;
  return sql`DELETE FROM ${table} WHERE rowid IN (${expiredRows(rule, now, limit, sql`rowid`)})`;
}

function expiredRows(rule: RetentionRule, now: Date, limit: number, select: SQL): SQL {
  const table = rule.age.column.table;
  return sql`SELECT ${select} FROM ${table} WHERE ${rule.age.column} < ${retentionCutoff(rule, now)}${rule.only ? sql` AND ${rule.only}` : sql``} ORDER BY ${rule.age.column} LIMIT ${limit}`;
}

/**
 * Deletes at most `limit` of the rule's expired rows (`expiredRowsDeletion`), its dependents first.
 * Returns how many rows of the rule's table it deleted.
 */
export async function deleteExpiredRows(db: Database, rule: RetentionRule, now: Date, limit: number): Promise<number> {
  const table = rule.age.column.table;
  const dependents = rule.dependents;
  if (!dependents) {
    const result = await db.run(expiredRowsDeletion(rule, now, limit));
    return result.meta.changes ?? 0;
  }
  const expired = (select: SQL) => expiredRows(rule, now, limit, select);
  // The dependents first (one after the other: a failure between the two leaves only dependents of expired rows deleted).
  await db.run(sql`DELETE FROM ${dependents.table} WHERE ${dependents.reference} IN (${expired(sql`${dependents.key}`)})`);
  const result = await db.run(sql`DELETE FROM ${table} WHERE ${dependents.key} IN (${expired(sql`${dependents.key}`)})`);
  return result.meta.changes ?? 0;
}
