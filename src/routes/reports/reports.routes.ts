import { z } from "@hono/zod-openapi";
import { ACTIONS, AUCTION_DAYS, OVERPRICED_RATIO, WHOLESALE_DAYS } from "../../engines/aged-inventory/recommendation";
import { UNIT_CONDITIONS } from "../../engines/deal-math/vocabulary";
import { ALERT_TYPES } from "../../engines/reports/alerts";
import { DEFAULT_ROLE, ROLES } from "../../engines/reports/briefings";
import { dataAsOfFields, freshFeedExample } from "../../http/data-as-of";
import { documentedError, notFoundResponse } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";
import { ALERT_EXAMPLE, ALERT_REPORT_EXAMPLE } from "./reports.examples";
import { ALERT_UNITS_PER_PAGE, ALERTS_PAGE_MAX } from "./reports.service";

const ALERT_TYPE_DESCRIPTION = [
  "Stable identifiers, most urgent first (a unit's `alert_type` is the first that applies; `conditions` lists all):",
  `\`wholesale_candidate\` — pre-owned unit to send to auction: at ${AUCTION_DAYS}+ days, or in its wholesale review (${WHOLESALE_DAYS}+ days, or past the store's aged threshold with projected front gross after holding cost below zero or cost + recon at or above market value) when retail no longer pays (docs/domain/gross.md#wholesale-policy; never a new unit); its \`action\` is \`wholesale\`;`,
  "`equity_below_floorplan` — market value under the floor-plan payoff (cost) plus interest accrued;",
  "`aged_and_overpriced` — both of the next two;",
  "`aged` — days on lot at or past the unit's aged threshold: the store's used threshold (default 45) for used and CPO units, its new-unit threshold (default 90) for new units;",
  `\`overpriced\` — list price above market value × ${OVERPRICED_RATIO}.`,
  "Rules and wording: docs/domain/reports.md.",
].join(" ");

const ReportsAlertSchema = z
  .object({
    stock_no: z.string(),
    store_id: z.string(),
    year: z.int(),
    make: z.string(),
    model: z.string(),
    condition: z.enum(UNIT_CONDITIONS),
    days_on_lot: z.int().openapi({ description: "Days since the dealer took ownership, computed from today's UTC date." }),
    list_price: z.number(),
    market_value: z.number().openapi({ description: "Retail market value today, USD." }),
    market_value_source: z.enum(["valuation", "estimate"]).openapi({
      description:
        "`valuation`: the unit's stored valuation feed value; `estimate`: no valuation, estimated from cost and days on lot (docs/reports.md).",
    }),
    alert_type: z.enum(ALERT_TYPES).openapi({ description: ALERT_TYPE_DESCRIPTION }),
    conditions: z.array(z.enum(ALERT_TYPES)).openapi({ description: "Every alert kind that applies to the unit." }),
    owner: z
      .enum(["used_car_manager", "new_car_manager"])
      .openapi({ description: "Who decides: the used-car manager for used and CPO units, the new-car manager for new units." }),
    aged_threshold_days: z.int().openapi({ description: "The unit's aged threshold: the store's used or new-unit threshold." }),
    recommendation: z.string().openapi({
      description:
        "What to do, with the numbers: one action only — keep the price, retail at a price toward market (never above the asking price), send it to auction at the expected proceeds, or (an aged new unit) the new-car manager's plan.",
    }),
    action: z.enum(ACTIONS).openapi({
      description:
        "The one thing the recommendation asks for (docs/domain/reports.md#one-recommendation-per-unit): `hold_price`, `reprice` (retail at `recommended_price`), `wholesale` (auction at `recommended_price`), `new_unit_plan` (dealer trade, demo, OEM incentive, curtailment).",
    }),
    recommended_price: z.number().openapi({
      description:
        "The price the recommendation names: the retail price toward market, or the expected auction proceeds for a wholesale. Never above the asking price.",
    }),
    wholesale_est: z.number().nullable().openapi({
      description:
        "Expected auction proceeds of a pre-owned unit: its wholesale value today (market × the store's wholesale ratio, default 82%, × the value curve at its age: 98% at 30 days, 95% at 60, 90% at 90) less auction and transport fees (default $500); always under the market value (docs/domain/gross.md#expected-auction-proceeds). Null for a new unit, which is never wholesaled.",
    }),
    exposure_usd: z.number().openapi({ description: "Cost tied up in the unit: cost + recon + floor-plan interest accrued." }),
  })
  .openapi("ReportsInventoryAlert", {
    example: ALERT_EXAMPLE,
  });

const envelope = {
  alerts: z.array(ReportsAlertSchema).openapi({ description: "Largest exposure first." }),
  total_aged_units: z.int().openapi({ description: "Units at or past their store's aged threshold." }),
  total_aged_exposure_usd: z.number().openapi({ description: "Cost tied up in those units (cost + recon + accrued floor-plan interest)." }),
};

export const ReportsAlertReportSchema = z
  .object({
    ...envelope,
    alerts: z.array(ReportsAlertSchema).openapi({
      description: `This page's alerts, largest exposure first. A page examines the next units in stock (oldest in stock first, at most ${ALERT_UNITS_PER_PAGE}) until it holds \`limit\` alerts; an organization with more gets the rest on the next pages.`,
    }),
    total_aged_units: z.int().openapi({
      description:
        "Units at or past their store's aged threshold, across the whole organization, or the one `store_id` names (every page carries the same totals).",
    }),
    total_aged_exposure_usd: z.number().openapi({
      description: "Cost tied up in those units (cost + recon + accrued floor-plan interest), across the same stores.",
    }),
    has_more: z.boolean().openapi({ description: "Whether units in stock remain after this page: follow `next_cursor` until it is null." }),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null on the last page (docs/reports.md#paging)." }),
    ...dataAsOfFields,
  })
  .openapi("ReportsAlertReport");

const AlertReportQuerySchema = z.object({
  store_id: z.string().trim().min(1).max(64).optional().openapi({
    description:
      "Only this store's units, and its totals. A store of another organization, or no store at all: 404 `not_found`. Pass the same `store_id` with `cursor`.",
    example: "sto_summit_north",
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(ALERTS_PAGE_MAX)
    .optional()
    .openapi({ description: `Alerts per page at most, 1 to ${ALERTS_PAGE_MAX}; default ${ALERTS_PAGE_MAX}.`, example: 100 }),
  cursor: z.string().min(1).max(1024).optional().openapi({
    description:
      "`next_cursor` of the previous page, unchanged; the next page starts right after the last unit the previous one examined (oldest in stock first, then stock number). Another list's or organization's cursor, or a damaged one: 422 `validation_error` (detail codes `cursor_mismatch`, `invalid_cursor`).",
  }),
});

const BriefingRequestSchema = z
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
    sections: z.array(SectionSchema).openapi({
      description:
        "The role's sections; `stale_data` comes first when a feed the briefing used is past its threshold, and `lender_tightening` (F&I director, sales manager) names each program whose approvals at the store fell below its own baseline.",
    }),
    ...dataAsOfFields,
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
      data_as_of: [freshFeedExample("inventory", "2026-11-26T05:41:00.000Z", 0.3), freshFeedExample("deals", "2026-11-26T05:41:00.000Z", 0.3)],
      data_warnings: [],
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
  demo: z.boolean().openapi({ description: "True for a seeded demo value (its `source` says so too), never a published reading." }),
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
    demo: z.boolean().openapi({ description: "True for a seeded demo entry (its `source` says so too)." }),
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
        demo: false,
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
  content: { "application/json": { schema, example } },
});

export const getInventoryAlerts = v1Route({
  method: "get",
  path: "/api/v1/inventory-alerts",
  operationId: "getInventoryAlerts",
  tags: ["Reports"],
  summary: "Units that need a decision today, with what to do",
  description: `Every unit in stock across the organization's stores that is aged, overpriced, under water on its floor plan or a wholesale candidate. Computed from today's date at request time, so a unit that crosses its threshold today is listed today.

Paged (docs/reports.md#paging), so every page costs the same whatever the organization's size: a page examines the next units in stock, oldest in stock first, at most ${ALERT_UNITS_PER_PAGE}, until it holds \`limit\` alerts (default and most ${ALERTS_PAGE_MAX}), and lists them largest exposure first. When \`has_more\` is true, pass \`next_cursor\` as \`cursor\` for the next page; a page can hold fewer alerts than \`limit\`, even none, and still have more after it. An organization with at most ${ALERT_UNITS_PER_PAGE} units in stock and ${ALERTS_PAGE_MAX} alerts gets them all on the first page, as before paging. \`total_aged_units\` and \`total_aged_exposure_usd\` are the whole organization's on every page, computed with the page from every unit in stock and its store's settings (docs/reports.md#totals).`,
  endpoint: "inventory-alerts",
  reads: "nearest-replica",
  request: { query: AlertReportQuerySchema },
  responses: {
    200: ok("One page of the alert report (docs/reports.md).", ReportsAlertReportSchema, ALERT_REPORT_EXAMPLE),
    ...notFoundResponse,
    422: documentedError(
      "A query parameter is invalid (`validation_error`; details name it): `limit` out of range, or a cursor that is not this list's (another store's included).",
    ),
  },
});

export const createMorningBriefing = v1Route({
  method: "post",
  path: "/api/v1/morning-briefing",
  operationId: "createMorningBriefing",
  tags: ["Reports"],
  summary: "A role's morning briefing for one store",
  description:
    "Returns the briefing built overnight (06:00 UTC) for the role and store; if today's has not been built yet, builds it now and stores it for the rest of the day. Send `{}` for the used-car manager's briefing of the primary store.",
  endpoint: "morning-briefing",
  body: true,
  reads: "nearest-replica",
  request: { body: { required: true, content: { "application/json": { schema: BriefingRequestSchema } } } },
  responses: {
    200: ok("The briefing.", BriefingSchema),
    ...notFoundResponse,
  },
});

export const getMarketPulse = v1Route({
  method: "get",
  path: "/api/v1/market-pulse",
  operationId: "getMarketPulse",
  tags: ["Reports"],
  summary: "Consumer sentiment, lender environment, gas price and key market alerts",
  description:
    "Built from the public series refreshed nightly (FRED, EIA; Manheim entered monthly). Every figure carries its value, the change from the prior reading, `as_of` and `source`.",
  endpoint: "market-pulse",
  reads: "nearest-replica",
  responses: { 200: ok("The market pulse.", MarketPulseSchema) },
});
