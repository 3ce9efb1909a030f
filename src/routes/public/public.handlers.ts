import type { RouteHandler } from "@hono/zod-openapi";
import { latestMarketFeed } from "../../db/queries/market-feed";
import { computePlatformStatistics } from "../../db/queries/public-stats";
import type { AppEnv } from "../../http/app-env";
import { usageBuffer } from "../../http/usage";
import type { getPlatformStats as getPlatformStatsRoute, getPublicMarketFeed as getPublicMarketFeedRoute } from "./public.routes";

const MARKET_FEED_SIZE = 20;

export const getPlatformStats: RouteHandler<typeof getPlatformStatsRoute, AppEnv> = async (c) => {
  const now = new Date();
  // Authenticated calls this isolate has counted go in first, so a caller sees its own calls
  // reflected; request counts alone (uptime) wait for the regular flush.
  if (usageBuffer.hasKeyUsage()) await usageBuffer.flush(c.var.db, now.getTime());
  const figures = await computePlatformStatistics(c.var.db, now);
  return c.json(
    {
      demo_sessions: figures.demoSessions,
      organizations_evaluated: figures.organizationsEvaluated,
      unique_orgs: figures.organizationsEvaluated,
      deals_through_ai: figures.dealsThroughAi,
      active_rooftops: figures.activeRooftops,
      uptime_pct_90d: figures.uptimePct90d,
      last_updated: now.toISOString(),
    },
    200,
  );
};

export const getPublicMarketFeed: RouteHandler<typeof getPublicMarketFeedRoute, AppEnv> = async (c) => {
  const { entries, lastRefresh } = await latestMarketFeed(c.var.db, MARKET_FEED_SIZE);
  return c.json({ count: entries.length, last_refresh: lastRefresh, entries }, 200);
};
