import { getDb } from "../db/client";
import { deleteExpiredRows, EXPIRED_ROWS_PER_STATEMENT, RETENTION_RULES, type RetentionRule } from "../db/queries/retention";
import { logEvent } from "../lib/log";
import { enqueueJobs } from "./queue";

/** Statements one message runs (each deletes at most EXPIRED_ROWS_PER_STATEMENT): a message's work is bounded however much expired. */
const STATEMENTS_PER_MESSAGE = 20;

/** Daily: one `purge-expired-records` message per retention rule (docs/retention.md) on the jobs queue. */
export async function purgeExpiredRecords(env: Env, now: Date): Promise<void> {
  await enqueueJobs(
    env,
    RETENTION_RULES.map((rule) => ({ job: "purge-expired-records", table: rule.table, scheduledTime: now.getTime() })),
  );
}

export function retentionRule(table: string): RetentionRule | undefined {
  return RETENTION_RULES.find((rule) => rule.table === table);
}

/**
 * Deletes the rule's expired rows in chunks, oldest first. Returns whether rows may be left (the
 * message's statements were all full), for the consumer to send the message again; the cutoff is
 * the cron run's, so the continuation ends. Deleting is idempotent: a retried message deletes what is left.
 */
export async function purgeExpiredChunks(env: Env, rule: RetentionRule, now: Date): Promise<boolean> {
  const db = getDb(env.DB);
  let deleted = 0;
  for (let statement = 0; statement < STATEMENTS_PER_MESSAGE; statement++) {
    const removed = await deleteExpiredRows(db, rule, now, EXPIRED_ROWS_PER_STATEMENT);
    deleted += removed;
    if (removed < EXPIRED_ROWS_PER_STATEMENT) {
      logEvent("info", { event: "expired_records_purged", table: rule.table, deleted });
      return false;
    }
  }
  logEvent("info", { event: "expired_records_purged", table: rule.table, deleted, more: true });
  return true;
}
