import { z } from "@hono/zod-openapi";
import { documentedError } from "../../http/errors";
import { publicAccess } from "../../http/public-access";
import { route } from "../../http/route";

export const PlatformStatsSchema = z
  .object({
    demo_sessions: z.int().openapi({ description: "Distinct (key, UTC day) pairs with at least one call on a demo organization." }),
    organizations_evaluated: z.int().openapi({ description: "Organizations that made at least one authenticated call." }),
    unique_orgs: z.int().openapi({ description: "Same value as organizations_evaluated (earlier field name)." }),
    deals_through_ai: z.int().openapi({ description: "Successful calls to the deal tools." }),
    active_rooftops: z.int().openapi({ description: "Stores of organizations with an authenticated call in the last 30 days." }),
    uptime_pct_90d: z.number().openapi({ description: "Percent of the last 90 days' requests not answered with a 5xx." }),
    last_updated: z.iso.datetime().openapi({ description: "When these figures were computed (UTC)." }),
  })
  .openapi("PlatformStats", {
    example: {
      demo_sessions: 412,
      organizations_evaluated: 37,
      unique_orgs: 37,
      deals_through_ai: 18_240,
      active_rooftops: 52,
      uptime_pct_90d: 99.98,
      last_updated: "2026-11-26T09:30:00.000Z",
    },
  });

const MarketFeedEntrySchema = z
  .object({
    id: z.string(),
    category: z.string().openapi({ example: "lender_environment" }),
    signal: z.string(),
    severity: z.enum(["high", "medium", "low"]),
    source: z.string(),
    date: z.iso.date(),
    demo: z.boolean().openapi({ description: "True for a seeded demo entry (its `source` says so too), never a published one." }),
  })
  .openapi("MarketFeedEntry");

export const MarketFeedSchema = z
  .object({
    count: z.int(),
    last_refresh: z.iso.datetime().nullable().openapi({ description: "When the feed was last refreshed; null before the first refresh." }),
    entries: z.array(MarketFeedEntrySchema),
  })
  .openapi("MarketFeed", {
    example: {
      count: 1,
      last_refresh: "2026-11-26T06:00:00.000Z",
      entries: [
        {
          id: "mkt_2026_11_25_lender",
          category: "lender_environment",
          signal: "Two captive lenders tightened advance caps on used units to 120% of book.",
          severity: "medium",
          source: "Dealertrack Credit Availability Index",
          date: "2026-11-25",
          demo: false,
        },
      ],
    },
  });

const publicErrors = {
  429: documentedError("This client made too many requests (`rate_limited`); sent with `Retry-After: 60`."),
  500: documentedError("Unexpected server error (`internal_error`)."),
};

const publicHeaders = {
  "Cache-Control": { description: "`public, max-age=60`: figures may be cached for a minute.", schema: { type: "string" as const } },
  "Access-Control-Allow-Origin": { description: "`*`: any site may read these figures.", schema: { type: "string" as const } },
};

export const getPlatformStats = route({
  method: "get",
  path: "/api/public/stats",
  operationId: "getPlatformStats",
  tags: ["Public"],
  summary: "Live platform statistics, for embedding",
  description:
    "No credentials; any origin may call it (this is what the `<dealer-intel-stats>` widget from `/embed/stats.js` shows). Computed from the service's own usage records, each figure as [the public guide](/docs/guides/public#the-figures) defines it; answers may be up to 60 seconds old. Each client address gets a burst limit of 120 requests a minute.",
  caller: "anyone",
  reads: "nearest-replica",
  guard: publicAccess,
  responses: {
    200: { description: "Platform statistics.", headers: publicHeaders, content: { "application/json": { schema: PlatformStatsSchema } } },
    ...publicErrors,
  },
});

export const getPublicMarketFeed = route({
  method: "get",
  path: "/api/moat/public",
  operationId: "getPublicMarketFeed",
  tags: ["Public"],
  summary: "The 20 most recent market-intelligence entries",
  description:
    "No credentials; any origin may call it. Macro signals, lender-environment flags, wholesale-price readings and market alerts, newest first, refreshed nightly. Same burst limit as the statistics.",
  caller: "anyone",
  reads: "nearest-replica",
  guard: publicAccess,
  responses: {
    200: { description: "Market feed.", headers: publicHeaders, content: { "application/json": { schema: MarketFeedSchema } } },
    ...publicErrors,
  },
});
