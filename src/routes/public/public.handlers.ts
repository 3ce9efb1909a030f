import type { RouteHandler, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { latestMarketFeed, MARKET_FEED_SIZE } from "../../db/queries/market-feed";
import { computePlatformStatistics } from "../../db/queries/public-stats";
import type { AppEnv } from "../../http/app-env";
import { PUBLIC_MAX_AGE_SECONDS } from "../../http/cache-control";
import { jsonText } from "../../http/cached-json";
import type {
  getPlatformStats as getPlatformStatsRoute,
  getPublicMarketFeed as getPublicMarketFeedRoute,
  MarketFeedSchema,
  PlatformStatsSchema,
} from "./public.routes";
import { SharedAnswer } from "./public.service";

const MAX_AGE_MS = PUBLIC_MAX_AGE_SECONDS * 1000;

const platformStats = new SharedAnswer<z.infer<typeof PlatformStatsSchema>>({ path: "/api/public/stats", maxAgeMs: MAX_AGE_MS });
const marketFeed = new SharedAnswer<z.infer<typeof MarketFeedSchema>>({ path: "/api/moat/public", maxAgeMs: MAX_AGE_MS });

/**
 * The shared answer's copy, computed only when none is fresh. `Age` lets browsers and CDNs count
 * the copy's age against `max-age`, so nobody keeps it past 60 s in all.
 */
async function serveShared<T>(c: Context<AppEnv>, shared: SharedAnswer<T>, compute: (now: Date) => Promise<T>) {
  const nowMs = Date.now();
  const copy = await shared.get({
    url: c.req.url,
    nowMs,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    compute: () => compute(new Date(nowMs)),
  });
  return jsonText<T>(c, copy.json, { Age: String(Math.floor((nowMs - copy.computedAtMs) / 1000)) });
}

export const getPlatformStats: RouteHandler<typeof getPlatformStatsRoute, AppEnv> = (c) =>
  serveShared(c, platformStats, async (now) => {
    const figures = await computePlatformStatistics(c.get("db"), now);
    return {
      demo_sessions: figures.demoSessions,
      organizations_evaluated: figures.organizationsEvaluated,
      unique_orgs: figures.organizationsEvaluated,
      deals_through_ai: figures.dealsThroughAi,
      active_rooftops: figures.activeRooftops,
      uptime_pct_90d: figures.uptimePct90d,
      last_updated: now.toISOString(),
    };
  });

export const getPublicMarketFeed: RouteHandler<typeof getPublicMarketFeedRoute, AppEnv> = (c) =>
  serveShared(c, marketFeed, async () => {
    const { entries, lastRefresh } = await latestMarketFeed(c.get("db"), MARKET_FEED_SIZE);
    return { count: entries.length, last_refresh: lastRefresh, entries };
  });
