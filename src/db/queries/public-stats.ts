import type { Database } from "../client";

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
  const d1 = db.$client;
  const results = await d1.batch([
    d1.prepare("SELECT count(DISTINCT org_id) AS n FROM key_usage_daily"),
    d1.prepare("SELECT count(*) AS n FROM key_usage_daily u JOIN organizations o ON o.id = u.org_id WHERE o.is_demo = 1"),
    d1.prepare("SELECT coalesce(sum(deal_tool_calls), 0) AS n FROM key_usage_daily"),
    d1
      .prepare("SELECT count(*) AS n FROM stores WHERE org_id IN (SELECT DISTINCT org_id FROM key_usage_daily WHERE day >= ?)")
      .bind(isoDaysBefore(now, 29)),
    d1.prepare("SELECT sum(requests) AS requests, sum(server_errors) AS errors FROM platform_daily WHERE day >= ?").bind(isoDaysBefore(now, 89)),
  ]);
  const [orgs, demo, deals, rooftops] = results.slice(0, 4).map((r) => (r.results[0] as { n: number } | undefined)?.n ?? 0);
  const uptime = results[4].results as { requests: number | null; errors: number | null }[];
  const requests = uptime[0]?.requests ?? 0;
  const errors = uptime[0]?.errors ?? 0;
  return {
    organizationsEvaluated: orgs,
    demoSessions: demo,
    dealsThroughAi: deals,
    activeRooftops: rooftops,
    uptimePct90d: requests === 0 ? 100 : Math.round(((requests - errors) / requests) * 100_000) / 1000,
  };
}
