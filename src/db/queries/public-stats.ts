import { daysBefore, isoDay } from "../../engines/dates";
import type { Database } from "../client";

export interface PlatformStatistics {
  organizationsEvaluated: number;
  demoSessions: number;
  dealsThroughAi: number;
  activeRooftops: number;
  uptimePct90d: number;
}

/**
 * The figures docs/public.md defines, in one D1 round trip that reads O(1) rows of the usage tables:
 * the running totals (one row), the stores of the organizations active in the last 30 days
 * (org_activity, one row per organization), and at most 90 rows of per-day request counts.
 */
export async function computePlatformStatistics(db: Database, now: Date): Promise<PlatformStatistics> {
  const d1 = db.$client;
  const results = await d1.batch([
    d1.prepare("SELECT organizations_evaluated, demo_sessions, deals_through_ai FROM platform_rollup WHERE id = 1"),
    d1
      // A sandbox's stores are demo copies, not rooftops.
      .prepare(
        "SELECT count(*) AS n FROM stores WHERE org_id IN (SELECT a.org_id FROM org_activity a JOIN organizations o ON o.id = a.org_id AND o.is_sandbox = 0 WHERE a.last_call_day >= ?)",
      )
      .bind(isoDay(daysBefore(now, 29))),
    d1.prepare("SELECT sum(requests) AS requests, sum(server_errors) AS errors FROM platform_daily WHERE day >= ?").bind(isoDay(daysBefore(now, 89))),
  ]);
  const totals = results[0].results[0] as { organizations_evaluated: number; demo_sessions: number; deals_through_ai: number } | undefined;
  const rooftops = (results[1].results[0] as { n: number } | undefined)?.n ?? 0;
  const uptime = results[2].results as { requests: number | null; errors: number | null }[];
  const requests = uptime[0]?.requests ?? 0;
  const errors = uptime[0]?.errors ?? 0;
  return {
    organizationsEvaluated: totals?.organizations_evaluated ?? 0,
    demoSessions: totals?.demo_sessions ?? 0,
    dealsThroughAi: totals?.deals_through_ai ?? 0,
    activeRooftops: rooftops,
    uptimePct90d: requests === 0 ? 100 : Math.round(((requests - errors) / requests) * 100_000) / 1000,
  };
}
