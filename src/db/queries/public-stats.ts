import { sql } from "drizzle-orm";
import type { Database } from "../../http/app-env";

export interface PlatformStatistics {
  organizationsEvaluated: number;
  demoSessions: number;
  dealsThroughAi: number;
  activeRooftops: number;
  uptimePct90d: number;
}

const isoDaysBefore = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);

/** The figures DESIGN.md §3 defines, computed from our own usage records in one D1 round trip. */
export async function computePlatformStatistics(db: Database, now: Date): Promise<PlatformStatistics> {
  const [orgs, demo, deals, rooftops, uptime] = await db.batch([
    db.all<{ n: number }>(sql`SELECT count(DISTINCT org_id) AS n FROM key_usage_daily`),
    db.all<{ n: number }>(
      sql`SELECT count(*) AS n FROM key_usage_daily u JOIN organizations o ON o.id = u.org_id WHERE o.is_demo = 1`,
    ),
    db.all<{ n: number }>(sql`SELECT coalesce(sum(deal_tool_calls), 0) AS n FROM key_usage_daily`),
    db.all<{ n: number }>(
      sql`SELECT count(*) AS n FROM stores WHERE org_id IN (SELECT DISTINCT org_id FROM key_usage_daily WHERE day >= ${isoDaysBefore(now, 29)})`,
    ),
    db.all<{ requests: number | null; errors: number | null }>(
      sql`SELECT sum(requests) AS requests, sum(server_errors) AS errors FROM platform_daily WHERE day >= ${isoDaysBefore(now, 89)}`,
    ),
  ]);
  const requests = uptime[0]?.requests ?? 0;
  const errors = uptime[0]?.errors ?? 0;
  return {
    organizationsEvaluated: orgs[0]?.n ?? 0,
    demoSessions: demo[0]?.n ?? 0,
    dealsThroughAi: deals[0]?.n ?? 0,
    activeRooftops: rooftops[0]?.n ?? 0,
    uptimePct90d: requests === 0 ? 100 : Math.round(((requests - errors) / requests) * 100_000) / 1000,
  };
}
