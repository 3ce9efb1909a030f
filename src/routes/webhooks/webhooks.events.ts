import { z } from "@hono/zod-openapi";
import type { EventName } from "../../events/emit";
import type { AppRouter } from "../../http/router";

/**
 * What each event's `data` holds, for the OpenAPI document's `webhooks` section. The payloads of
 * compliance.hold_triggered, morning_briefing.ready and lender.environment_change are set where
 * those events are raised (compliance check, nightly jobs); these schemas describe them.
 */
const EVENT_DATA: Record<EventName, { summary: string; data: z.ZodType }> = {
  "inventory.aged_alert": {
    summary: "A unit crossed its store's aged threshold (default 45 days); once per crossing.",
    data: z.object({
      stock_no: z.string().openapi({ example: "U24117" }),
      days_on_lot: z.int().openapi({ description: "Days since the dealer took ownership.", example: 45 }),
      recommendation: z.string().openapi({
        description:
          "`Wholesale candidate: …` at 60 days or when holding cost has eaten the front gross, else `Reprice to market now: …` (DOMAIN.md §3.6).",
        example: "Reprice to market now: 45 days on the lot (store threshold 45); about $1575 of holding cost so far.",
      }),
    }),
  },
  "deal.stip_alert": {
    summary: "A deal in the funding pipeline (pending, submitted, approved) got a new stip, or one was cleared (raised by DMS ingestion).",
    data: z.object({
      deal_number: z.string().openapi({ example: "D-10442" }),
      deal_status: z.enum(["pending", "submitted", "approved"]),
      lender: z.string().nullable().openapi({ example: "Ally Financial" }),
      stip: z.string().openapi({ example: "proof_of_income" }),
      change: z.enum(["added", "cleared"]),
      state: z.enum(["outstanding", "received", "cleared"]),
    }),
  },
  "compliance.hold_triggered": {
    summary: "POST /api/v1/compliance-check answered `hold` (high priority: needs human review).",
    data: z.object({
      check_id: z.string().openapi({ description: "The compliance check, as in its audit trail." }),
      triggered_rule: z.string().nullable(),
      score: z.number().openapi({ description: "The best sanctions-list match score." }),
      ent_num: z.int().nullable().openapi({ description: "The matched OFAC SDN entry, if any." }),
    }),
  },
  "morning_briefing.ready": {
    summary: "The nightly briefing for a store and role is ready (GET it from /api/v1/morning-briefing).",
    data: z.object({
      role: z.string().openapi({ example: "desk_manager" }),
      day: z.iso.date(),
      generated_at: z.iso.datetime(),
      total_aged_units: z.int(),
      alerts: z.int().openapi({ description: "How many alerts the briefing holds." }),
    }),
  },
  "lender.environment_change": {
    summary: "A material move in the lender environment (the 60-month bank auto-loan rate moved past the threshold).",
    data: z.object({
      series_id: z.string(),
      value: z.number(),
      as_of: z.iso.date(),
      change_pts: z.number(),
      lookback_readings: z.int(),
      threshold_pts: z.number(),
      trend: z.enum(["easing", "tightening"]),
    }),
  },
};

const SIGNATURE_HEADERS = z.object({
  "X-Service-Signature": z.string().openapi({
    description: 'sha256=<hex HMAC-SHA256(secret, id + "." + timestamp + "." + raw body)>, keyed with the whole `whsec_…` secret string.',
    example: "sha256=5f1c…",
  }),
  "X-Service-Webhook-Id": z
    .string()
    .openapi({ description: "The event id; the same on every retry. De-duplicate on it.", example: "evt_9pQ2mZ7LkR4sT1vB" }),
  "X-Service-Webhook-Timestamp": z
    .string()
    .openapi({ description: "Unix seconds of this attempt. Reject if more than 300 s off.", example: "1764115200" }),
});

/** Registers every event in the document's `webhooks` section. */
export function documentWebhookEvents(router: AppRouter): void {
  for (const [event, { summary, data }] of Object.entries(EVENT_DATA)) {
    const name = event.replace(".", "_");
    router.openAPIRegistry.registerWebhook({
      method: "post",
      path: event,
      operationId: `webhook_${name}`,
      tags: ["Webhooks"],
      summary,
      description:
        "POSTed to every enabled endpoint subscribed to this event. 2xx acknowledges; anything else (redirects included) is retried at about +20 min, +2 h and +12 h; a 410 disables the endpoint. See docs/webhooks.md.",
      request: {
        headers: SIGNATURE_HEADERS,
        body: {
          content: {
            "application/json": {
              schema: z
                .object({
                  id: z.string().openapi({ example: "evt_9pQ2mZ7LkR4sT1vB" }),
                  event: z.literal(event),
                  org_id: z.string(),
                  store_id: z.string().nullable().openapi({ description: "Null for organization-wide events." }),
                  timestamp: z.iso.datetime().openapi({ description: "When the event happened (UTC)." }),
                  data,
                })
                .openapi(`WebhookEvent_${name}`),
            },
          },
        },
      },
      responses: { 200: { description: "Any 2xx acknowledges the delivery." }, 410: { description: "Gone: the endpoint is disabled." } },
    });
  }
}
