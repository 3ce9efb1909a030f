import { z } from "@hono/zod-openapi";
import { STIP_STATES, STORE_FEEDS } from "../../db/schema";
import { PIPELINE_STATUSES } from "../../engines/deal-math/vocabulary";
import { ROLES } from "../../engines/reports/briefings";
import { TRIGGERED_RULES } from "../../engines/screening/decision";
import type { EventName } from "../../events/emit";
import { documentedWebhook, type WebhookEventDoc } from "../../http/openapi";
import type { AppRouter } from "../../http/router";

/**
 * Each event's `data`, as its source sends it: the compliance check (hold), the nightly jobs
 * (src/jobs: briefing ready, lender environment change, aged alert) and DMS ingestion (stip alert).
 * The examples are what those sources raised for the demo organization org_summit; a sample
 * event (`POST /api/v1/webhooks/{id}/trigger`) sends the same `data`.
 */
const WindowFiguresSchema = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    decisions: z.int(),
    approved: z.int(),
    approval_rate: z.number().nullable(),
    counter_rate: z.number().nullable().openapi({ description: "Share of decisions that were counter-offers (conditions)." }),
    avg_stips_asked: z.number().nullable(),
    avg_turnaround_hours: z.number().nullable().openapi({ description: "Submission to stips cleared, where recorded." }),
    avg_funding_days: z.number().nullable().openapi({ description: "Submission to funding of the linked deal, where recorded." }),
  })
  .openapi("LenderOutcomeWindow");

/** A program's approvals at one store fell below its own baseline beyond chance, or recovered. */
const OwnOutcomesChangeSchema = z
  .object({
    source: z.literal("own_outcomes"),
    trend: z.enum(["tightening", "recovered"]),
    store_id: z.string(),
    program_id: z.string(),
    lender: z.string(),
    episode_id: z.string().openapi({ description: "The episode; its `recovered` event carries the same id." }),
    window_days: z.int().openapi({ description: "The recent window, days." }),
    baseline_days: z.int().openapi({ description: "The baseline: this many days before the recent window." }),
    before: WindowFiguresSchema.openapi({ description: "The baseline the episode opened against." }),
    after: WindowFiguresSchema.openapi({ description: "The recent window when the event was raised." }),
    test: z.literal("fisher_exact_one_sided"),
    p_value: z.number().openapi({ description: "The chance of so few approvals in the recent window if nothing had changed." }),
    alpha: z.number().openapi({ description: "The p at or under which an episode opens (`lender_outcome_settings`)." }),
    summary: z.string(),
  })
  .openapi("WebhookLenderOwnOutcomesData");

const EVENTS: { [Name in EventName]: Omit<WebhookEventDoc<z.ZodObject | z.ZodDiscriminatedUnion>, "event"> } = {
  "inventory.aged_alert": {
    summary: "A unit crossed its store's aged threshold",
    description:
      "Raised by the daily aged-inventory job once per crossing of the unit's aged threshold: the store's used threshold (default 45 days) or, for a new unit, its new-unit threshold (default 90 days).",
    data: z
      .object({
        stock_no: z.string(),
        days_on_lot: z.int().openapi({ description: "Days since the dealer took ownership." }),
        recommendation: z.string().openapi({
          description:
            "The alert report's sentence for the unit (`GET /api/v1/inventory-alerts`): for a used unit `Aged: …` with a price toward market, never above the asking price, or `Wholesale candidate: …` with the expected auction proceeds; for a new unit `Aged new unit: …` with the new-car manager's actions (docs/domain/reports.md).",
        }),
      })
      .openapi("WebhookInventoryAgedAlertData"),
    example: {
      stock_no: "S10154",
      days_on_lot: 45,
      recommendation:
        "Aged: 45 days (aged at 45). Reprice to $22,395 (toward market $22,400, not above the $22,995 asking price) to turn it in the 15 days before its 60-day wholesale review; each more day costs $35 to hold.",
    },
  },
  "deal.stip_alert": {
    summary: "A deal in the funding pipeline got a new stip, or one was cleared",
    description: "Raised by DMS ingestion (`POST /api/v1/ingest/deals`) for a deal that is pending, submitted or approved.",
    data: z
      .object({
        deal_number: z.string(),
        deal_status: z.enum(PIPELINE_STATUSES),
        lender: z.string().nullable().openapi({ description: "Null for a deal sent without a lender." }),
        stip: z.string(),
        change: z.enum(["added", "cleared"]),
        state: z.enum(STIP_STATES),
      })
      .openapi("WebhookDealStipAlertData"),
    example: {
      deal_number: "D-10442",
      deal_status: "submitted",
      lender: "Ally Financial",
      stip: "proof_of_income",
      change: "added",
      state: "outstanding",
    },
  },
  "compliance.hold_triggered": {
    summary: "A compliance check answered `hold`",
    description: "Raised by `POST /api/v1/compliance-check` when its result is `hold`: high priority, a person must review the deal.",
    data: z
      .object({
        check_id: z.string().openapi({ description: "The compliance check, as in its audit trail." }),
        triggered_rule: z.enum(TRIGGERED_RULES).nullable(),
        score: z.number().openapi({ description: "The best sanctions-list match score, 0 to 100." }),
        ent_num: z.int().nullable().openapi({ description: "The matched OFAC SDN entry, if any." }),
      })
      .openapi("WebhookComplianceHoldTriggeredData"),
    example: { check_id: "chk_Tqbx4XzXqy3kmvmH", triggered_rule: "ofac_sdn_match", score: 100, ent_num: 23343 },
  },
  "morning_briefing.ready": {
    summary: "A store's morning briefing for a role is ready",
    description: "Raised by the nightly briefing job (06:00 UTC) for each store and role; fetch it with `POST /api/v1/morning-briefing`.",
    data: z
      .object({
        role: z.enum(ROLES),
        day: z.iso.date(),
        generated_at: z.iso.datetime(),
        total_aged_units: z.int(),
        alerts: z.int().openapi({ description: "How many alerts the briefing holds." }),
      })
      .openapi("WebhookMorningBriefingReadyData"),
    example: { role: "used_car_manager", day: "2026-11-26", generated_at: "2026-11-26T06:00:06.101Z", total_aged_units: 40, alerts: 5 },
  },
  "lender.environment_change": {
    summary: "The lender environment moved materially: the market's rates, or a program's approvals at the store",
    description:
      '`source: "market_rate"`: raised for every organization by the nightly market refresh when a new reading of the 60-month bank auto-loan rate has moved past the threshold over the last readings. `source: "own_outcomes"`: raised for one store by the nightly outcome check (after the market refresh) when a program\'s approval rate in the store\'s own recent decisions fell below its own baseline beyond chance (one-sided Fisher exact test, docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions), once per episode (`trend: "tightening"`), and again when it recovers (`trend: "recovered"`).',
    data: z
      .discriminatedUnion("source", [
        z
          .object({
            source: z.literal("market_rate"),
            series_id: z.string().openapi({ description: "The FRED series." }),
            value: z.number().openapi({ description: "The newest reading, percent." }),
            as_of: z.iso.date(),
            change_pts: z.number().openapi({ description: "Percentage points moved over `lookback_readings` readings." }),
            lookback_readings: z.int(),
            threshold_pts: z.number(),
            trend: z.enum(["easing", "tightening"]),
          })
          .openapi("WebhookLenderEnvironmentChangeMarketData"),
        OwnOutcomesChangeSchema,
      ])
      .openapi("WebhookLenderEnvironmentChangeData"),
    example: {
      source: "own_outcomes",
      trend: "tightening",
      store_id: "sto_summit_north",
      program_id: "lp_bank_prime_1",
      lender: "Keystone National Bank Prime",
      episode_id: "loe_Vq3nC8rT2xWk9pLm",
      window_days: 30,
      baseline_days: 180,
      before: {
        from: "2026-05-03",
        to: "2026-10-30",
        decisions: 50,
        approved: 39,
        approval_rate: 0.78,
        counter_rate: 0.1,
        avg_stips_asked: 2.1,
        avg_turnaround_hours: 30.5,
        avg_funding_days: 3.2,
      },
      after: {
        from: "2026-10-31",
        to: "2026-11-29",
        decisions: 17,
        approved: 7,
        approval_rate: 0.4118,
        counter_rate: 0.2941,
        avg_stips_asked: 3.4,
        avg_turnaround_hours: 52,
        avg_funding_days: 4.5,
      },
      test: "fisher_exact_one_sided",
      p_value: 0.00671,
      alpha: 0.01,
      summary:
        "Approvals at Keystone National Bank Prime fell from 78% to 41% over the last 30 days, 17 decisions (against 50 before); counter-offers 10% → 29%, stips asked 2.1 → 3.4 a deal, days to fund 3.2 → 4.5",
    },
  },
  "store.feed_stale": {
    summary: "A store's DMS feed stopped delivering",
    description:
      "Raised once per episode by the stale-feed check (every 5 minutes) when a store's inventory or deals feed has not delivered for longer than the store's threshold (`inventory_stale_hours`, default 24; `deals_stale_hours`, default 72). Answers built on that feed keep working from the last delivery and say how old it is (`data_as_of`, docs/ingestion.md#when-a-feed-stops). `store.feed_resumed` follows when the feed delivers again.",
    data: z
      .object({
        feed: z.enum(STORE_FEEDS),
        store_name: z.string(),
        last_received_at: z.iso.datetime().openapi({ description: "The feed's last delivery." }),
        age_hours: z.number().openapi({ description: "Hours since then, when the check ran." }),
        stale_after_hours: z.int().openapi({ description: "The store's threshold for this feed." }),
        summary: z.string(),
      })
      .openapi("WebhookStoreFeedStaleData"),
    example: {
      feed: "inventory",
      store_name: "Summit Auto North",
      last_received_at: "2026-11-27T05:58:12.000Z",
      age_hours: 24.1,
      stale_after_hours: 24,
      summary:
        "Inventory for Summit Auto North was last received 24 hours ago (2026-11-27 05:58 UTC), past the store's 24-hour threshold: this answer is built on the data as it was then.",
    },
  },
  "store.feed_resumed": {
    summary: "A store's stale DMS feed delivered again",
    description:
      "Raised by ingestion (`POST /api/v1/ingest/inventory`, `POST /api/v1/ingest/deals`) on the first delivery after `store.feed_stale`, once per episode.",
    data: z
      .object({
        feed: z.enum(STORE_FEEDS),
        stale_since: z.iso.datetime().openapi({ description: "When the episode was raised." }),
        last_received_at: z.iso.datetime().openapi({ description: "The delivery before the gap." }),
        received_at: z.iso.datetime().openapi({ description: "This delivery." }),
        gap_hours: z.number().openapi({ description: "Hours between the two deliveries." }),
      })
      .openapi("WebhookStoreFeedResumedData"),
    example: {
      feed: "inventory",
      stale_since: "2026-11-28T06:00:00.000Z",
      last_received_at: "2026-11-27T05:58:12.000Z",
      received_at: "2026-11-28T14:02:40.000Z",
      gap_hours: 32.1,
    },
  },
};

/** The `data` of a sample `event` (`POST /api/v1/webhooks/{id}/trigger`): the example this document shows. */
export function sampleEventData(event: EventName): Record<string, unknown> {
  return EVENTS[event].example as Record<string, unknown>;
}

/** Registers every event in the document's `webhooks` section (on the app: see ./index.ts). */
export function documentWebhookEvents(app: AppRouter): void {
  for (const [event, doc] of Object.entries(EVENTS)) app.openAPIRegistry.registerWebhook(documentedWebhook({ event, ...doc }));
}
