import { eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, keyUsageDaily, orgActivity, organizations, platformDaily, platformRollup } from "../schema";

export interface UsageSnapshot {
  /** Keyed by `${day}|${credential id}`: a `lak_` key, or a legacy token (which has no last-used column). */
  keys: Map<string, { orgId: string; isApiKey: boolean; requests: number; dealToolCalls: number; lastUsedAtMs: number }>;
  platform: Map<string, { requests: number; serverErrors: number }>;
}

/**
 * Adds a batch of counts in one atomic D1 batch; every statement binds only a handful of parameters.
 * The same batch keeps the public statistics' running totals (platform_rollup, org_activity): a
 * total grows only when its "first seen" row (an organization in org_activity, a (day, credential)
 * row in key_usage_daily) does not exist yet, checked just before the row is written. D1 runs a
 * batch as one serialized transaction, so flushes from any number of isolates keep the distinct
 * counts exact. An organization's rows are written only while it exists: a flush can hold calls of
 * one deleted since (a purged sandbox), and its foreign key would otherwise fail the whole batch,
 * and every flush after it, since the failed counts go back into the buffer.
 */
export async function recordUsage(db: Database, snapshot: UsageSnapshot): Promise<void> {
  const statements = [];
  for (const [day, counts] of snapshot.platform) {
    statements.push(
      db
        .insert(platformDaily)
        .values({ day, requests: counts.requests, serverErrors: counts.serverErrors })
        .onConflictDoUpdate({
          target: platformDaily.day,
          set: {
            requests: sql`${platformDaily.requests} + ${counts.requests}`,
            serverErrors: sql`${platformDaily.serverErrors} + ${counts.serverErrors}`,
          },
        }),
    );
  }
  const lastCallDayByOrg = new Map<string, string>();
  let dealToolCalls = 0;
  for (const [id, counts] of snapshot.keys) {
    const day = id.split("|")[0];
    const seen = lastCallDayByOrg.get(counts.orgId);
    if (!seen || seen < day) lastCallDayByOrg.set(counts.orgId, day);
    dealToolCalls += counts.dealToolCalls;
  }
  for (const [orgId, day] of lastCallDayByOrg) {
    statements.push(
      db
        .update(platformRollup)
        .set({ organizationsEvaluated: sql`${platformRollup.organizationsEvaluated} + 1` })
        // A sandbox is not an organization evaluating the service (anyone can create ten a day), nor is one deleted since: not counted.
        .where(
          sql`${platformRollup.id} = 1 AND NOT EXISTS (SELECT 1 FROM ${orgActivity} WHERE ${orgActivity.orgId} = ${orgId})
            AND EXISTS (SELECT 1 FROM organizations WHERE id = ${orgId} AND is_sandbox = 0)`,
        ),
      db
        .insert(orgActivity)
        .select(
          db
            .select({ orgId: organizations.id, lastCallDay: sql<string>`${day}`.as("last_call_day") })
            .from(organizations)
            .where(eq(organizations.id, orgId)),
        )
        .onConflictDoUpdate({ target: orgActivity.orgId, set: { lastCallDay: sql`max(${orgActivity.lastCallDay}, excluded.last_call_day)` } }),
    );
  }
  for (const [id, counts] of snapshot.keys) {
    const [day, keyId] = id.split("|");
    statements.push(
      db
        .update(platformRollup)
        .set({ demoSessions: sql`${platformRollup.demoSessions} + 1` })
        .where(
          sql`${platformRollup.id} = 1
            AND NOT EXISTS (SELECT 1 FROM ${keyUsageDaily} WHERE ${keyUsageDaily.day} = ${day} AND ${keyUsageDaily.keyId} = ${keyId})
            AND EXISTS (SELECT 1 FROM organizations WHERE id = ${counts.orgId} AND is_demo = 1)`,
        ),
      db
        .insert(keyUsageDaily)
        .select(
          db
            .select({
              day: sql<string>`${day}`.as("day"),
              keyId: sql<string>`${keyId}`.as("key_id"),
              orgId: organizations.id,
              requests: sql<number>`${counts.requests}`.as("requests"),
              dealToolCalls: sql<number>`${counts.dealToolCalls}`.as("deal_tool_calls"),
            })
            .from(organizations)
            .where(eq(organizations.id, counts.orgId)),
        )
        .onConflictDoUpdate({
          target: [keyUsageDaily.day, keyUsageDaily.keyId],
          set: {
            requests: sql`${keyUsageDaily.requests} + ${counts.requests}`,
            dealToolCalls: sql`${keyUsageDaily.dealToolCalls} + ${counts.dealToolCalls}`,
          },
        }),
    );
    if (counts.isApiKey) {
      statements.push(
        db
          .update(apiKeys)
          .set({ lastUsedAt: new Date(counts.lastUsedAtMs).toISOString() })
          .where(sql`${apiKeys.id} = ${keyId} AND ${apiKeys.orgId} = ${counts.orgId}`),
      );
    }
  }
  if (dealToolCalls > 0) {
    statements.push(
      db
        .update(platformRollup)
        .set({ dealsThroughAi: sql`${platformRollup.dealsThroughAi} + ${dealToolCalls}` })
        .where(sql`${platformRollup.id} = 1`),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
