import { createRoute, z } from "@hono/zod-openapi";
import { documentedError } from "../../http/errors";
import { publicAccess } from "../../http/public-access";

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
  .openapi("PlatformStats");

export const MarketFeedEntrySchema = z
  .object({
    id: z.string(),
    category: z.string().openapi({ example: "lender_environment" }),
    signal: z.string(),
    severity: z.enum(["high", "medium", "low"]),
    source: z.string(),
    date: z.iso.date(),
  })
  .openapi("MarketFeedEntry");

export const MarketFeedSchema = z
  .object({
    count: z.int(),
    last_refresh: z.iso.datetime().nullable().openapi({ description: "When the feed was last refreshed; null before the first refresh." }),
    entries: z.array(MarketFeedEntrySchema),
  })
  .openapi("MarketFeed");

const rateLimited = { 429: documentedError("This client made too many requests (`rate_limited`).") };

export const getPlatformStats = createRoute({
  method: "get",
  path: "/api/public/stats",
  operationId: "getPlatformStats",
  tags: ["Public"],
  summary: "Platform statistics, for embedding",
  description:
    "Platform figures (each field says what it counts), from running totals kept as usage is recorded. Served from a copy that is at most 60 s old (`last_updated` says when it was computed); usage itself reaches those totals within about 10 s of a call. No credential; a per-client burst limit applies.",
  security: [],
  middleware: [publicAccess] as const,
  responses: { 200: { description: "Platform statistics.", content: { "application/json": { schema: PlatformStatsSchema } } }, ...rateLimited },
});

export const getPublicMarketFeed = createRoute({
  method: "get",
  path: "/api/moat/public",
  operationId: "getPublicMarketFeed",
  tags: ["Public"],
  summary: "The 20 most recent market-intelligence entries",
  description: "Served from a copy that is at most 60 s old. No credential; a per-client burst limit applies.",
  security: [],
  middleware: [publicAccess] as const,
  responses: { 200: { description: "Market feed.", content: { "application/json": { schema: MarketFeedSchema } } }, ...rateLimited },
});
