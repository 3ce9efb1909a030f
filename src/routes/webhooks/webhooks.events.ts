import { z } from "@hono/zod-openapi";
import { STIP_STATES } from "../../db/schema";
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
const EVENTS: { [Name in EventName]: Omit<WebhookEventDoc<z.ZodObject>, "event"> } = {
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
    summary: "The lender environment moved materially",
    description:
      "Raised for every organization by the nightly market refresh when a new reading of the 60-month bank auto-loan rate has moved past the threshold over the last readings.",
    data: z
      .object({
        series_id: z.string().openapi({ description: "The FRED series." }),
        value: z.number().openapi({ description: "The newest reading, percent." }),
        as_of: z.iso.date(),
        change_pts: z.number().openapi({ description: "Percentage points moved over `lookback_readings` readings." }),
        lookback_readings: z.int(),
        threshold_pts: z.number(),
        trend: z.enum(["easing", "tightening"]),
      })
      .openapi("WebhookLenderEnvironmentChangeData"),
    example: {
      series_id: "RIFLPBCIANM60NM",
      value: 7.9,
      as_of: "2026-11-01",
      change_pts: 0.31,
      lookback_readings: 3,
      threshold_pts: 0.25,
      trend: "tightening",
    },
  },
};

/** The `data` of a sample `event` (`POST /api/v1/webhooks/{id}/trigger`): the example this document shows. */
export function sampleEventData(event: EventName): Record<string, unknown> {
  return EVENTS[event].example;
}

/** Registers every event in the document's `webhooks` section (on the app: see ./index.ts). */
export function documentWebhookEvents(app: AppRouter): void {
  for (const [event, doc] of Object.entries(EVENTS)) app.openAPIRegistry.registerWebhook(documentedWebhook({ event, ...doc }));
}
