import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import type { Database } from "../../src/db/client";
import type { UsageSnapshot } from "../../src/db/queries/usage";

export const isoDaysAgo = (days: number, nowMs = Date.now()) => new Date(nowMs - days * 86_400_000).toISOString().slice(0, 10);

/** One isolate's flush: `calls` are (day, credential) pairs of one organization with their counts. */
export function usageSnapshot(calls: { day: string; keyId: string; orgId: string; requests?: number; dealToolCalls?: number }[]): UsageSnapshot {
  const snapshot: UsageSnapshot = { keys: new Map(), platform: new Map() };
  for (const call of calls) {
    const requests = call.requests ?? 1;
    snapshot.keys.set(`${call.day}|${call.keyId}`, {
      orgId: call.orgId,
      isApiKey: false,
      requests,
      dealToolCalls: call.dealToolCalls ?? 0,
      lastUsedAtMs: Date.parse(`${call.day}T12:00:00.000Z`),
    });
    const day = snapshot.platform.get(call.day) ?? { requests: 0, serverErrors: 0 };
    day.requests += requests;
    snapshot.platform.set(call.day, day);
  }
  return snapshot;
}

/** The figures exactly as DESIGN.md §3 defines them, by scanning every usage row (the oracle). */
export async function figuresByDefinition(nowMs = Date.now()) {
  const n = async (query: string, ...params: string[]) =>
    (
      await env.DB.prepare(query)
        .bind(...params)
        .first<{ n: number }>()
    )?.n ?? 0;
  return {
    organizationsEvaluated: await n(
      "SELECT count(DISTINCT u.org_id) AS n FROM key_usage_daily u JOIN organizations o ON o.id = u.org_id WHERE o.is_sandbox = 0",
    ),
    demoSessions: await n("SELECT count(*) AS n FROM key_usage_daily u JOIN organizations o ON o.id = u.org_id WHERE o.is_demo = 1"),
    dealsThroughAi: await n("SELECT coalesce(sum(deal_tool_calls), 0) AS n FROM key_usage_daily"),
    activeRooftops: await n(
      "SELECT count(*) AS n FROM stores WHERE org_id IN (SELECT DISTINCT u.org_id FROM key_usage_daily u JOIN organizations o ON o.id = u.org_id WHERE o.is_sandbox = 0 AND u.day >= ?)",
      isoDaysAgo(29, nowMs),
    ),
  };
}

/** A client on the test database that records each batch's statements and the rows D1 read for them. */
export function recordingDb() {
  const batches: { statements: number; rowsRead: number }[] = [];
  const d1 = {
    prepare: (query: string) => env.DB.prepare(query),
    batch: async (statements: D1PreparedStatement[]) => {
      const results = await env.DB.batch(statements);
      batches.push({ statements: statements.length, rowsRead: results.reduce((sum, r) => sum + r.meta.rows_read, 0) });
      return results;
    },
  } as unknown as D1Database;
  return { db: drizzle(d1) as Database, batches };
}
