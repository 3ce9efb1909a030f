import { sql } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, keyUsageDaily, platformDaily } from "../schema";

export interface UsageSnapshot {
  /** Keyed by `${day}|${credential id}`: a `lak_` key, or a legacy token (which has no last-used column). */
  keys: Map<string, { orgId: string; isApiKey: boolean; requests: number; dealToolCalls: number; lastUsedAt: string }>;
  platform: Map<string, { requests: number; serverErrors: number }>;
}

/** Adds a batch of counts in one atomic D1 batch; every statement binds only a handful of parameters. */
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
  for (const [id, counts] of snapshot.keys) {
    const [day, keyId] = id.split("|");
    statements.push(
      db
        .insert(keyUsageDaily)
        .values({ day, keyId, orgId: counts.orgId, requests: counts.requests, dealToolCalls: counts.dealToolCalls })
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
        db.update(apiKeys).set({ lastUsedAt: counts.lastUsedAt }).where(sql`${apiKeys.id} = ${keyId} AND ${apiKeys.orgId} = ${counts.orgId}`),
      );
    }
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
