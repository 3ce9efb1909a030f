import { createRoute, z } from "@hono/zod-openapi";
import { ALERT_TYPES } from "../../engines/reports/alerts";
import { DEFAULT_ROLE, ROLES } from "../../engines/reports/briefings";
import { commonErrorResponses, notFoundResponse, payloadTooLargeResponse, validationErrorResponse } from "../../http/errors";
import { meteredResponses, RATE_LIMIT_HEADERS, serviceKeySecurity } from "../../http/openapi";
import { v1Chain } from "../../http/v1-chain";

const ALERT_TYPE_DESCRIPTION = [
  "Stable identifiers, most urgent first (a unit's `alert_type` is the first that applies; `conditions` lists all):",
  "`wholesale_candidate` — pre-owned unit at 60+ days, or past the store's aged threshold with projected front gross after holding cost below zero, or cost + recon at or above market value;",
  "`equity_below_floorplan` — market value under the floor-plan payoff (cost) plus interest accrued;",
  "`aged_and_overpriced` — both of the next two;",
  "`aged` — days on lot at or past the store's aged threshold (default 45);",
  "`overpriced` — list price above market value × 1.03.",
].join(" ");

export const ReportsAlertSchema = z
  .object({
    stock_no: z.string(),
    store_id: z.string(),
    year: z.int(),
    make: z.string(),
    model: z.string(),
    condition: z.enum(["new", "used", "cpo"]),
    days_on_lot: z.int().openapi({ description: "Days since the dealer took ownership, computed from today's UTC date." }),
    list_price: z.number(),
    market_value: z.number().openapi({ description: "Retail market value today, USD." }),
    market_value_source: z.enum(["valuation", "estimate"]).openapi({
      description:
        "`valuation`: the unit's stored valuation feed value; `estimate`: no valuation, estimated from cost and days on lot (docs/reports.md).",
    }),
    alert_type: z.enum(ALERT_TYPES).openapi({ description: ALERT_TYPE_DESCRIPTION }),
    conditions: z.array(z.enum(ALERT_TYPES)).openapi({ description: "Every alert kind that applies to the unit." }),
    recommendation: z.string().openapi({ description: "What to do, with the numbers: reprice to what, or wholesale now at what." }),
    recommended_price: z.number().openapi({ description: "The price the recommendation names (new list price, or the wholesale figure)." }),
    wholesale_est: z.number().openapi({ description: "Estimated wholesale (auction) value: 85% of market value." }),
    exposure_usd: z.number().openapi({ description: "Cost tied up in the unit: cost + recon + floor-plan interest accrued." }),
  })
  .openapi("ReportsInventoryAlert", {
    example: {
      stock_no: "N10042",
      store_id: "sto_summit_north",
      year: 2021,
      make: "Honda",
      model: "CR-V",
      condition: "used",
      days_on_lot: 52,
      list_price: 27495,
      market_value: 25900,
      market_value_source: "valuation",
      alert_type: "aged_and_overpriced",
      conditions: ["aged_and_overpriced"],
      recommendation: "Reprice from $27,495 to $25,795 today: 6.2% over market $25,900 at 52 days; wholesale review at 60 days (about $22,025).",
      recommended_price: 25795,
      wholesale_est: 22025,
      exposure_usd: 22786,
    },
  });

const envelope = {
  alerts: z.array(ReportsAlertSchema).openapi({ description: "Largest exposure first." }),
  total_aged_units: z.int().openapi({ description: "Units at or past their store's aged threshold." }),
  total_aged_exposure_usd: z.number().openapi({ description: "Cost tied up in those units (cost + recon + accrued floor-plan interest)." }),
};

export const ReportsAlertReportSchema = z.object(envelope).openapi("ReportsAlertReport");

export const BriefingRequestSchema = z
  .strictObject({
    role: z
      .enum(ROLES)
      .optional()
      .openapi({ description: `Whose briefing; default \`${DEFAULT_ROLE}\`. Any other value is a 422.` }),
    store_id: z.string().min(1).max(64).optional().openapi({ description: "One of the organization's stores; default its primary store." }),
  })
  .openapi("ReportsMorningBriefingRequest", { example: { role: "gm", store_id: "sto_summit_north" } });

const FigureSchema = z
  .object({
    id: z.string().openapi({ description: "Stable within the section." }),
    label: z.string(),
    value: z.number(),
    unit: z.enum(["count", "usd", "days", "percent"]),
    benchmark: z.string().nullable().openapi({ description: "The benchmark and its source, when there is one." }),
    action: z.string().openapi({ description: "The next action this figure calls for." }),
  })
  .openapi("ReportsBriefingFigure");

const SectionSchema = z
  .object({
    id: z.string().openapi({
      description:
        "gm: aged_inventory, lender_flags, funding_pipeline; used_car_manager: acquisition_targets, wholesale_recommendations; fi_director: stip_alerts, funding_risk; bdc_manager: units_to_promote, stip_callbacks; sales_manager: pace, gross_per_unit; new_car_manager: new_units_by_age.",
    }),
    title: z.string(),
    figures: z.array(FigureSchema),
  })
  .openapi("ReportsBriefingSection");

export const BriefingSchema = z
  .object({
    role: z.enum(ROLES),
    store_id: z.string(),
    generated_at: z.iso.datetime().openapi({ description: "When the briefing was built (overnight, or at the day's first request)." }),
    ...envelope,
    alerts: z.array(ReportsAlertSchema).openapi({
      description:
        "The five largest exposures in the role's part of the lot (new units for the new-car manager, pre-owned for the used-car manager, all otherwise).",
    }),
    sections: z.array(SectionSchema),
  })
  .openapi("ReportsMorningBriefing", {
    example: {
      role: "gm",
      store_id: "sto_summit_north",
      generated_at: "2026-11-26T06:00:00.000Z",
      alerts: [],
      total_aged_units: 41,
      total_aged_exposure_usd: 1187450,
      sections: [
        {
          id: "funding_pipeline",
          title: "Funding pipeline",
          figures: [
            {
              id: "oldest_contract_days",
              label: "Oldest contract in transit: N-2611-0007 with Keystone Auto Finance",
              value: 11,
              unit: "days",
              benchmark: "≤ 7 days",
              action: "Escalate N-2611-0007 with Keystone Auto Finance's funding desk.",
            },
          ],
        },
      ],
    },
  });

const PulseFigureFields = {
  series_id: z.string().openapi({ example: "UMCSENT" }),
  name: z.string(),
  unit: z.string().openapi({ description: "`index`, `usd_per_gallon` or `percent`." }),
  value: z.number(),
  change: z.number().nullable().openapi({ description: "Change from the prior reading; null when there is none." }),
  prior_as_of: z.iso.date().nullable(),
  as_of: z.iso.date().openapi({ description: "Date of the reading." }),
  source: z.string(),
};
const PulseFigureSchema = z.object(PulseFigureFields).openapi("ReportsPulseFigure");

const FeedAlertSchema = z
  .object({
    id: z.string(),
    category: z.string(),
    signal: z.string(),
    severity: z.enum(["high", "medium", "low"]),
    source: z.string(),
    date: z.iso.date(),
  })
  .openapi("ReportsMarketAlert");

export const MarketPulseSchema = z
  .object({
    as_of: z.iso.date().nullable().openapi({ description: "The newest reading's date; null before any data exists." }),
    consumer_sentiment: z
      .object({
        ...PulseFigureFields,
        reading: z.enum(["weak", "neutral", "strong"]).openapi({ description: "< 60 weak, 60–80 neutral, > 80 strong." }),
      })
      .nullable(),
    gas_price: z
      .object({ ...PulseFigureFields, favour_fuel_efficient: z.boolean().openapi({ description: "True at or above $3.50/gal." }) })
      .nullable()
      .openapi({ description: "EIA weekly U.S. regular gasoline; FRED's GASREGW mirror when EIA is behind." }),
    lender_environment: z.object({
      trend: z
        .enum(["easing", "stable", "tightening"])
        .nullable()
        .openapi({ description: "From the 60-month bank auto rate's change over three readings against `threshold_pts`." }),
      change_pts: z.number().nullable(),
      threshold_pts: z.number(),
      rates: z.array(PulseFigureSchema).openapi({ description: "Bank auto-loan rates, prime and SOFR." }),
    }),
    // A union, not .nullable(): on a registered schema that documents an allOf that null cannot satisfy.
    wholesale_index: z.union([PulseFigureSchema, z.null()]).openapi({ description: "Manheim Used Vehicle Value Index." }),
    market_alerts: z.array(FeedAlertSchema).openapi({ description: "Up to five high- and medium-severity market-feed entries, newest first." }),
  })
  .openapi("ReportsMarketPulse", {
    example: {
      as_of: "2026-11-24",
      consumer_sentiment: {
        series_id: "UMCSENT",
        name: "Consumer sentiment (University of Michigan)",
        unit: "index",
        value: 53.6,
        change: -1.5,
        prior_as_of: "2026-09-01",
        as_of: "2026-10-01",
        source: "FRED UMCSENT (University of Michigan consumer sentiment)",
        reading: "weak",
      },
      gas_price: null,
      lender_environment: { trend: "stable", change_pts: -0.15, threshold_pts: 0.25, rates: [] },
      wholesale_index: null,
      market_alerts: [],
    },
  });

const ok = (description: string, schema: z.ZodType, example?: unknown) => ({
  description,
  headers: RATE_LIMIT_HEADERS,
  content: { "application/json": { schema, example } },
});

/** The first and last of the demo organization org_summit's alerts (its report lists 118). */
const ALERT_REPORT_EXAMPLE = {
  alerts: [
    {
      stock_no: "N10071",
      store_id: "sto_summit_north",
      year: 2026,
      make: "Toyota",
      model: "Highlander",
      condition: "new",
      days_on_lot: 63,
      list_price: 51435,
      market_value: 52450,
      market_value_source: "valuation",
      alert_type: "aged",
      conditions: ["aged"],
      recommendation: "Reprice to $50,795 (97% of market $52,450) to turn it before 60 days; $2,205 of holding cost so far.",
      recommended_price: 50795,
      wholesale_est: 44575,
      exposure_usd: 47964,
    },
    {
      stock_no: "S10048",
      store_id: "sto_summit_south",
      year: 2016,
      make: "Chevrolet",
      model: "Equinox",
      condition: "used",
      days_on_lot: 46,
      list_price: 6995,
      market_value: 6900,
      market_value_source: "valuation",
      alert_type: "wholesale_candidate",
      conditions: ["wholesale_candidate", "aged"],
      recommendation:
        "Wholesale now at about $5,875: 46 days on lot, projected front gross $-1,536 after $1,748 holding cost; each further day costs $38 to hold.",
      recommended_price: 5875,
      wholesale_est: 5875,
      exposure_usd: 6191,
    },
  ],
  total_aged_units: 100,
  total_aged_exposure_usd: 2613433,
};

export const getInventoryAlerts = createRoute({
  method: "get",
  path: "/api/v1/inventory-alerts",
  operationId: "getInventoryAlerts",
  tags: ["Reports"],
  summary: "Units that need a decision today, with what to do",
  description:
    "Every unit in stock across the organization's stores that is aged, overpriced, under water on its floor plan or a wholesale candidate, largest exposure first. Computed from today's date at request time, so a unit that crosses its threshold today is listed today.",
  security: serviceKeySecurity,
  middleware: v1Chain("inventory-alerts", { reads: "nearest-replica" }),
  responses: {
    200: ok("The alert report (SPEC §2.8).", ReportsAlertReportSchema, ALERT_REPORT_EXAMPLE),
    ...commonErrorResponses,
    ...meteredResponses,
  },
});

export const createMorningBriefing = createRoute({
  method: "post",
  path: "/api/v1/morning-briefing",
  operationId: "createMorningBriefing",
  tags: ["Reports"],
  summary: "A role's morning briefing for one store",
  description:
    "Returns the briefing built overnight (06:00 UTC) for the role and store; if today's has not been built yet, builds it now and stores it for the rest of the day. Send `{}` for the used-car manager's briefing of the primary store.",
  security: serviceKeySecurity,
  middleware: v1Chain("morning-briefing", { body: true, reads: "nearest-replica" }),
  request: { body: { required: true, content: { "application/json": { schema: BriefingRequestSchema } } } },
  responses: {
    200: ok("The briefing.", BriefingSchema),
    ...commonErrorResponses,
    ...notFoundResponse,
    ...payloadTooLargeResponse,
    ...validationErrorResponse,
    ...meteredResponses,
  },
});

export const getMarketPulse = createRoute({
  method: "get",
  path: "/api/v1/market-pulse",
  operationId: "getMarketPulse",
  tags: ["Reports"],
  summary: "Consumer sentiment, lender environment, gas price and key market alerts",
  description:
    "Built from the public series refreshed nightly (FRED, EIA; Manheim entered monthly). Every figure carries its value, the change from the prior reading, `as_of` and `source`.",
  security: serviceKeySecurity,
  middleware: v1Chain("market-pulse", { reads: "nearest-replica" }),
  responses: { 200: ok("The market pulse.", MarketPulseSchema), ...commonErrorResponses, ...meteredResponses },
});
