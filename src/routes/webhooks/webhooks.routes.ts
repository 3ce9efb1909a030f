import { z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES } from "../../db/schema";
import { RESPONSE_PREVIEW_BYTES, WEBHOOK_BODY_RETENTION_DAYS } from "../../events/delivery";
import { EVENT_NAMES } from "../../events/emit";
import { documentedError, notFoundResponse } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";

export const MAX_ENDPOINTS_PER_ORG = 20;
const DELIVERIES_PAGE_MAX = 100;

const EventName = z.enum(EVENT_NAMES);
const EXAMPLE_ID = "whk_7fQ2mZp9LkR4sT1v";

const url = z.string().trim().max(2048).openapi({
  description:
    "Where events are POSTed. https only, no user name or password, not a loopback, private, link-local or internal address. (`http://localhost` and `http://127.0.0.1` only in local development.)",
  example: "https://dms.example.com/hooks/dealer-intelligence",
});
const events = z
  .array(EventName)
  .min(1)
  .max(EVENT_NAMES.length)
  .openapi({ description: "The event types to send here.", example: ["compliance.hold_triggered", "inventory.aged_alert"] });
const description = z
  .string()
  .trim()
  .max(200)
  .openapi({ description: "A note for your team, up to 200 characters.", example: "Desk manager alerts" });

export const CreateWebhookEndpointSchema = z.object({ url, events, description: description.optional() }).openapi("WebhooksCreateEndpoint");

export const UpdateWebhookEndpointSchema = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().openapi({ description: "false stops deliveries; true resumes them (also after a 410 disabled it)." }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "Send at least one of url, events, description, enabled." })
  .openapi("WebhooksUpdateEndpoint", { example: { enabled: false } });

const endpointFields = {
  id: z.string().openapi({ example: EXAMPLE_ID }),
  url: z.string().openapi({ example: "https://dms.example.com/hooks/dealer-intelligence" }),
  description: z.string(),
  events: z.array(EventName),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable().openapi({ description: "Why the service disabled the endpoint (a 410 answer); null otherwise." }),
  previous_secret_expires_at: z.iso.datetime().nullable().openapi({
    description: "After a secret rotation: until this moment deliveries are also signed with the previous secret; null when none signs.",
  }),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
};

export const WebhookEndpointSchema = z.object(endpointFields).openapi("WebhooksEndpoint");
export const CreatedWebhookEndpointSchema = z
  .object({
    ...endpointFields,
    secret: z.string().openapi({
      description: "The signing secret. Shown in this response only; verify `X-Service-Signature` with it (docs/webhooks.md).",
      example: "whsec_q0Jm0n6pVYpQ1l3b7rZ7b7gk8n0S9mQ3b3P5bqS3Jp4=",
    }),
  })
  .openapi("WebhooksCreatedEndpoint");
export const WebhookEndpointListSchema = z.object({ count: z.int(), endpoints: z.array(WebhookEndpointSchema) }).openapi("WebhooksEndpointList");

const WebhookAttemptSchema = z
  .object({
    attempt: z.int().openapi({ example: 1 }),
    attempted_at: z.iso.datetime(),
    duration_ms: z.int().openapi({ example: 182 }),
    response_status: z.int().nullable().openapi({ description: "The receiver's HTTP status; null when it did not answer.", example: 503 }),
    error: z.string().nullable().openapi({ example: "The receiver answered HTTP 503." }),
    outcome: z.enum(["delivered", "retrying", "failed", "disabled"]),
    request_body: z
      .string()
      .nullable()
      .openapi({
        description: `The envelope exactly as POSTed (the signature is over these bytes). Null once the attempt is older than the ${WEBHOOK_BODY_RETENTION_DAYS}-day retention.`,
      }),
    response_body: z
      .string()
      .nullable()
      .openapi({
        description: `The first ${RESPONSE_PREVIEW_BYTES} bytes of the receiver's answer, when it is text (\`text/*\`, JSON, XML, a form; no Content-Type is taken as text). Null when it did not answer, answered nothing or answered binary, and once the attempt is older than ${WEBHOOK_BODY_RETENTION_DAYS} days.`,
        example: "upstream unavailable",
      }),
    response_body_bytes: z
      .int()
      .nullable()
      .openapi({ description: "The answer's whole size in bytes, counted up to 1 MiB; null when it did not answer.", example: 20 }),
  })
  .openapi("WebhooksAttempt");

export const WebhookDeliverySchema = z
  .object({
    id: z.string().openapi({ example: "dlv_3bT9xQ2mN7pR1sK8" }),
    event_id: z.string().openapi({ description: "The envelope `id` and `X-Service-Webhook-Id`.", example: "evt_9pQ2mZ7LkR4sT1vB" }),
    event: EventName,
    sample: z.boolean().openapi({ description: "A sample sent by `POST /api/v1/webhooks/{id}/trigger`, not a real event." }),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.int(),
    last_response_status: z.int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    attempts: z.array(WebhookAttemptSchema),
  })
  .openapi("WebhooksDelivery");
export const WebhookDeliveryListSchema = z
  .object({
    count: z.int().openapi({ description: "Deliveries on this page." }),
    deliveries: z.array(WebhookDeliverySchema),
    has_more: z.boolean().openapi({ description: "Older deliveries follow; ask for them with `starting_after=<next_cursor>`." }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `starting_after` for the next page; null on the last page." }),
  })
  .openapi("WebhooksDeliveryList");

const MAX_SECRET_OVERLAP_HOURS = 168;

const RotateWebhookSecretSchema = z
  .strictObject({
    overlap_hours: z
      .int()
      .min(0)
      .max(MAX_SECRET_OVERLAP_HOURS)
      .default(24)
      .openapi({
        description: `How long deliveries carry the old secret's signature beside the new one, 0 to ${MAX_SECRET_OVERLAP_HOURS} hours; default 24.`,
      }),
  })
  .openapi("WebhooksRotateSecret", { example: { overlap_hours: 24 } });

export const RotatedWebhookSecretSchema = z
  .object({
    ...endpointFields,
    secret: z.string().openapi({ description: "The new signing secret. Shown in this response only." }),
    previous_secret_expires_at: z.iso.datetime().openapi({ description: "Until this moment every delivery carries both signatures." }),
  })
  .openapi("WebhooksRotatedSecret");

const TriggerWebhookEventSchema = z
  .strictObject({
    event: EventName.openapi({ description: "The event type to send a sample of; the endpoint need not be subscribed to it." }),
  })
  .openapi("WebhooksTriggerEvent", { example: { event: "deal.stip_alert" } });

const WebhookTestResultSchema = z
  .object({
    delivered: z.boolean(),
    response_status: z.int().nullable().openapi({ example: 200 }),
    duration_ms: z.int().openapi({ example: 143 }),
    error: z.string().nullable(),
  })
  .openapi("WebhooksTestResult");

const idParam = z
  .string()
  .min(1)
  .max(64)
  .openapi({ param: { name: "id", in: "path" }, example: EXAMPLE_ID });
const deliveryIdParam = z
  .string()
  .min(1)
  .max(64)
  .openapi({ param: { name: "delivery_id", in: "path" }, example: "dlv_3bT9xQ2mN7pR1sK8" });

const json = <T extends z.ZodType>(schema: T, desc: string, example: z.input<T>) => ({
  description: desc,
  content: { "application/json": { schema, example } },
});

// Examples: what the API answered for the demo organization org_summit (only the URL is the example receiver's).
const ENDPOINT_EXAMPLE = {
  id: EXAMPLE_ID,
  url: "https://dms.example.com/hooks/dealer-intelligence",
  description: "Desk manager alerts",
  events: ["compliance.hold_triggered", "inventory.aged_alert"],
  enabled: true,
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: "2026-11-26T04:06:43.787Z",
  updated_at: "2026-11-26T04:06:43.787Z",
} satisfies z.input<typeof WebhookEndpointSchema>;
const DELIVERY_EXAMPLE = {
  id: "dlv_3bT9xQ2mN7pR1sK8",
  event_id: "evt_9pQ2mZ7LkR4sT1vB",
  event: "inventory.aged_alert",
  status: "delivered",
  attempt_count: 1,
  last_response_status: 204,
  last_error: null,
  created_at: "2026-11-26T04:06:44.839Z",
  updated_at: "2026-11-26T04:06:45.889Z",
  sample: false,
  attempts: [
    {
      attempt: 1,
      attempted_at: "2026-11-26T04:06:45.889Z",
      duration_ms: 182,
      response_status: 204,
      error: null,
      outcome: "delivered",
      request_body:
        '{"id":"evt_9pQ2mZ7LkR4sT1vB","event":"inventory.aged_alert","org_id":"org_summit","store_id":"sto_summit_north","timestamp":"2026-11-26T04:06:44.839Z","sample":false,"data":{"stock_no":"N10154","days_on_lot":45,"recommendation":"Reprice to market now: 45 days on the lot (store threshold 45); about $1575 of holding cost so far."}}',
      response_body: null,
      response_body_bytes: 0,
    },
  ],
} satisfies z.input<typeof WebhookDeliverySchema>;

const common = { tags: ["Webhooks"] };

export const createWebhookEndpoint = v1Route({
  ...common,
  method: "post",
  path: "/api/v1/webhooks",
  operationId: "createWebhookEndpoint",
  summary: "Register a URL to receive events",
  description: `The signing secret is returned once, in this response. At most ${MAX_ENDPOINTS_PER_ORG} endpoints per organization.`,
  endpoint: "webhooks",
  body: true,
  idempotent: true,
  reads: "primary",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: CreateWebhookEndpointSchema,
          example: { url: "https://dms.example.com/hooks/dealer-intelligence", events: ["compliance.hold_triggered"], description: "F&I desk" },
        },
      },
    },
  },
  responses: {
    201: json(CreatedWebhookEndpointSchema, "Created; sent with `Cache-Control: no-store`.", {
      ...ENDPOINT_EXAMPLE,
      secret: "whsec_jaTHshp6J/YRxyNzVNnpy9rq73+vEN2uLulTXwZKmno=",
    }),
  },
});

export const listWebhookEndpoints = v1Route({
  ...common,
  method: "get",
  path: "/api/v1/webhooks",
  operationId: "listWebhookEndpoints",
  summary: "The organization's webhook endpoints, newest first",
  description: "Never the secrets.",
  endpoint: "webhooks",
  reads: "nearest-replica",
  responses: { 200: json(WebhookEndpointListSchema, "Endpoints.", { count: 1, endpoints: [ENDPOINT_EXAMPLE] }) },
});

export const getWebhookEndpoint = v1Route({
  ...common,
  method: "get",
  path: "/api/v1/webhooks/{id}",
  operationId: "getWebhookEndpoint",
  summary: "One webhook endpoint",
  description: "Another organization's endpoint answers 404.",
  endpoint: "webhooks",
  reads: "nearest-replica",
  request: { params: z.object({ id: idParam }) },
  responses: { 200: json(WebhookEndpointSchema, "The endpoint.", ENDPOINT_EXAMPLE), ...notFoundResponse },
});

export const updateWebhookEndpoint = v1Route({
  ...common,
  method: "patch",
  path: "/api/v1/webhooks/{id}",
  operationId: "updateWebhookEndpoint",
  summary: "Change an endpoint's URL, events or description, or disable or enable it",
  description: "Fields left out are unchanged. The secret is never changed here.",
  endpoint: "webhooks",
  body: true,
  reads: "primary",
  request: {
    params: z.object({ id: idParam }),
    body: { required: true, content: { "application/json": { schema: UpdateWebhookEndpointSchema } } },
  },
  responses: {
    200: json(WebhookEndpointSchema, "The endpoint after the change.", {
      ...ENDPOINT_EXAMPLE,
      enabled: false,
      updated_at: "2026-11-26T04:06:45.969Z",
    }),
    ...notFoundResponse,
  },
});

export const deleteWebhookEndpoint = v1Route({
  ...common,
  method: "delete",
  path: "/api/v1/webhooks/{id}",
  operationId: "deleteWebhookEndpoint",
  summary: "Delete an endpoint with its delivery log",
  description: "Pending deliveries to it are dropped.",
  endpoint: "webhooks",
  reads: "primary",
  request: { params: z.object({ id: idParam }) },
  responses: { 204: { description: "Deleted." }, ...notFoundResponse },
});

export const listWebhookDeliveries = v1Route({
  ...common,
  method: "get",
  path: "/api/v1/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "An endpoint's deliveries, newest first, with every attempt",
  description: `Status \`pending\` (queued or waiting for a retry), \`delivered\` (a 2xx answer) or \`failed\` (retries spent, a 410, or the endpoint disabled). Each attempt keeps the body sent and the first KiB of the answer for ${WEBHOOK_BODY_RETENTION_DAYS} days. Pages of \`limit\` (default 50, at most ${DELIVERIES_PAGE_MAX}); while \`has_more\` is true, pass \`next_cursor\` as \`starting_after\` for the next, older page.`,
  endpoint: "webhooks",
  reads: "nearest-replica",
  request: {
    params: z.object({ id: idParam }),
    query: z.object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(DELIVERIES_PAGE_MAX)
        .default(50)
        .openapi({ description: `1 to ${DELIVERIES_PAGE_MAX}, default 50.`, example: 20 }),
      starting_after: z.string().min(1).max(64).optional().openapi({
        description: "The previous page's `next_cursor`: this page starts with the next older delivery. An unknown cursor answers 422.",
        example: "dlv_3bT9xQ2mN7pR1sK8",
      }),
    }),
  },
  responses: {
    200: json(WebhookDeliveryListSchema, "Deliveries.", { count: 1, deliveries: [DELIVERY_EXAMPLE], has_more: false, next_cursor: null }),
    ...notFoundResponse,
    422: documentedError(
      "`limit` out of range, or `starting_after` is not a delivery of this endpoint (`validation_error`, detail code `invalid_cursor`).",
    ),
  },
});

export const redeliverWebhookDelivery = v1Route({
  ...common,
  method: "post",
  path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  operationId: "redeliverWebhookDelivery",
  summary: "Send a delivery again",
  description:
    "Queues the same event (same `id`, so receivers de-duplicate it) for a new round of attempts with the same retry schedule. The endpoint must be enabled.",
  endpoint: "webhooks",
  reads: "primary",
  request: { params: z.object({ id: idParam, delivery_id: deliveryIdParam }) },
  responses: {
    202: json(WebhookDeliverySchema, "Queued; the delivery is `pending` again.", {
      ...DELIVERY_EXAMPLE,
      status: "pending",
      updated_at: "2026-11-26T04:06:45.947Z",
    }),
    ...notFoundResponse,
    422: documentedError("The endpoint is disabled; enable it first (`validation_error`)."),
  },
});

export const triggerWebhookEvent = v1Route({
  ...common,
  method: "post",
  path: "/api/v1/webhooks/{id}/trigger",
  operationId: "triggerWebhookEvent",
  summary: "Send a sample of any event type to this endpoint",
  description: [
    "Like `stripe trigger`, without waiting for a cron or a deal: queues one signed delivery of the event type to this endpoint only (never to your other endpoints, which may be production receivers), through the same outbox, queue, retries and delivery log as a real event.",
    "The envelope's `data` is the example of the event in this document's `webhooks` section, `sample` is `true` (ignore such events in production) and `store_id` is your primary store. The endpoint must be enabled; it need not be subscribed to the event.",
    "`npm run webhook:trigger -- --event deal.stip_alert [--endpoint <id>]` calls it against the local server.",
  ].join("\n\n"),
  endpoint: "webhooks",
  body: true,
  reads: "primary",
  request: {
    params: z.object({ id: idParam }),
    body: { required: true, content: { "application/json": { schema: TriggerWebhookEventSchema } } },
  },
  responses: {
    202: json(WebhookDeliverySchema, "Queued; poll the deliveries list for its attempts.", {
      ...DELIVERY_EXAMPLE,
      event: "deal.stip_alert",
      sample: true,
      status: "pending",
      attempt_count: 0,
      last_response_status: null,
      updated_at: DELIVERY_EXAMPLE.created_at,
      attempts: [],
    }),
    ...notFoundResponse,
    422: documentedError("An unknown event type or field (`validation_error`), or the endpoint is disabled (detail code `endpoint_disabled`)."),
  },
});

export const testWebhookEndpoint = v1Route({
  ...common,
  method: "post",
  path: "/api/v1/webhooks/{id}/test",
  operationId: "testWebhookEndpoint",
  summary: "Send a signed ping now and report the answer",
  description:
    "POSTs a `webhook.test` envelope, signed like every delivery, and waits for the answer (10 s at most). Not retried and not in the delivery log. Works on a disabled endpoint too. The URL rules are checked again before sending (docs/webhooks.md#url-rules): a stored URL that breaks one is not fetched, and the answer is `delivered: false` with the rule in `error`.",
  endpoint: "webhooks",
  reads: "primary",
  request: { params: z.object({ id: idParam }) },
  responses: {
    200: json(WebhookTestResultSchema, "What the receiver answered.", {
      delivered: true,
      response_status: 204,
      duration_ms: 143,
      error: null,
    }),
    ...notFoundResponse,
  },
});

export const rotateWebhookSecret = v1Route({
  ...common,
  method: "post",
  path: "/api/v1/webhooks/{id}/rotate-secret",
  operationId: "rotateWebhookSecret",
  summary: "Replace the endpoint's signing secret, signing with both during an overlap",
  description: [
    "Returns the new secret, once. Until `previous_secret_expires_at` (now + `overlap_hours`) every delivery's `X-Service-Signature` carries two values, `sha256=<new> sha256=<old>`, so a receiver can switch secrets without dropping a delivery; after it, only the new one.",
    "Rotating again during an overlap drops the oldest secret at once (the current one becomes the previous). With `overlap_hours` 0 the old secret stops signing at once.",
  ].join("\n\n"),
  endpoint: "webhooks",
  body: true,
  idempotent: true,
  reads: "primary",
  request: {
    params: z.object({ id: idParam }),
    body: { required: true, content: { "application/json": { schema: RotateWebhookSecretSchema } } },
  },
  responses: {
    200: json(RotatedWebhookSecretSchema, "The endpoint with its new secret; sent with `Cache-Control: no-store`.", {
      ...ENDPOINT_EXAMPLE,
      secret: "whsec_jaTHshp6J/YRxyNzVNnpy9rq73+vEN2uLulTXwZKmno=",
      previous_secret_expires_at: "2026-11-27T04:06:45.969Z",
      updated_at: "2026-11-26T04:06:45.969Z",
    }),
    ...notFoundResponse,
  },
});
