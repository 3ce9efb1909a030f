import { type RouteConfig, z } from "@hono/zod-openapi";
import { SANDBOX_LIFETIME_DAYS } from "../credentials/sandbox-limits";
import { CREDENTIAL_FLOOD_DESCRIPTION } from "./credential-failures";
import { documentedError, ErrorSchema, payloadTooLargeResponse, validationErrorResponse } from "./errors";
import { LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER } from "./quota";

export const SECURITY_SCHEMES = {
  ServiceApiKey: {
    type: "apiKey",
    in: "header",
    name: "X-Service-API-Key",
    description: "A `lak_` key (or a sandbox's `lak_test_` key, answered with `X-Service-Mode: test`); metered against its daily quota.",
  },
  LegacyToken: {
    type: "apiKey",
    in: "header",
    name: "X-Api-Token",
    description: "Deprecated `svc_live_` token, accepted on inventory and sales-summary only, unmetered.",
  },
  BrokerToken: { type: "http", scheme: "bearer", description: "A broker token, bound to one organization, for creating keys." },
  StaffSession: { type: "apiKey", in: "cookie", name: "__Host-session", description: "A staff session from POST /api/auth/login." },
  OperatorToken: {
    type: "http",
    scheme: "bearer",
    description: "A `dot_` operator token (`npm run operator-token -- issue`), on /api/operator only; never a dealer credential.",
  },
} as const;

const serviceKeySecurity = [{ ServiceApiKey: [] }];

/** Which credentials a `/api/v1` route accepts, for the document: what `v1Chain` checks for the same options. */
export const v1Security = (options: { legacy?: boolean; ingest?: boolean }): Record<string, string[]>[] => [
  ...serviceKeySecurity,
  ...(options.legacy ? [{ LegacyToken: [] }] : []),
  ...(options.ingest ? [{ BrokerToken: [] }] : []),
];

/** On every metered response, whatever its status. */
export const RATE_LIMIT_HEADERS = {
  [LIMIT_HEADER]: { description: "The key's daily request limit.", schema: { type: "integer" } },
  [REMAINING_HEADER]: { description: "Requests left today (UTC).", schema: { type: "integer" } },
  [RESET_HEADER]: { description: "Next 00:00 UTC, as Unix seconds.", schema: { type: "integer" } },
  "X-Service-Mode": {
    description: "On every answer to a key: `test` for a sandbox's `lak_test_` key (docs/sandboxes.md), `live` for a `lak_` key.",
    // A mutable array: the document's types take no readonly one (this object is `as const`).
    schema: { type: "string", enum: ["live", "test"] as string[] },
  },
} as const;

const QuotaExceededSchema = ErrorSchema.extend({
  error: z.literal("daily_rate_limit_reached"),
  message: z.string().startsWith("daily rate limit reached").openapi({
    description: 'Starts with the contract\'s sentence, "daily rate limit reached", then says when the quota resets and how to get a larger one.',
  }),
  reset_at: z.iso.datetime().openapi({ description: "The next 00:00 UTC, when the quota resets." }),
  limit: z.int().openapi({ description: "The key's daily limit." }),
  used: z.int().openapi({ description: "Requests counted today." }),
}).openapi("QuotaExceeded");

/** The 429s every metered route can return: its quota, or a flood of bad credentials from the caller's address. */
const meteredResponses = {
  429: {
    description: `The key's daily quota is used up (\`daily_rate_limit_reached\`); resets at 00:00 UTC. Or: ${CREDENTIAL_FLOOD_DESCRIPTION}`,
    headers: { ...RATE_LIMIT_HEADERS, "Retry-After": { description: "Seconds until the reset.", schema: { type: "integer" } } },
    content: { "application/json": { schema: z.union([QuotaExceededSchema, ErrorSchema]) } },
  },
} as const;

/**
 * The errors the `/api/v1` middleware chain itself answers with, for the document, from the same
 * options as the chain (`v1Route`): credential (401), scope or permission (403), quota (429), and
 * for a body its content type (400), size (413) and validation (422). A route adds only its own.
 */
export function v1ErrorResponses(options: { body?: unknown; ingest?: boolean; idempotent?: boolean }): RouteConfig["responses"] {
  const malformedKey = options.idempotent ? " Or a malformed `Idempotency-Key` (`invalid_request`)." : "";
  return {
    401: documentedError("Missing, malformed, unknown or revoked credentials (`unauthorized`)."),
    403: documentedError(
      `${options.ingest ? "The key lacks the `ingest` permission or scope" : "The key's scopes do not include this endpoint"} (\`forbidden\`); or its organization is suspended (\`organization_suspended\`) or a sandbox past its expiry (\`sandbox_expired\`).`,
    ),
    500: documentedError("Unexpected server error (`internal_error`); retry with exponential backoff."),
    ...meteredResponses,
    ...(options.body
      ? {
          400: options.ingest
            ? documentedError(`Body missing or empty, not JSON or CSV, or CSV that cannot be parsed (\`invalid_request\`).${malformedKey}`)
            : documentedError(`Malformed or missing JSON body (\`invalid_request\`).${malformedKey}`),
          ...payloadTooLargeResponse,
          ...validationErrorResponse,
        }
      : {}),
  };
}

/** The headers of every webhook delivery (docs/webhooks.md); receivers verify them before trusting the body. */
const WebhookDeliveryHeadersSchema = z.object({
  "x-service-signature": z.string().openapi({
    description:
      'sha256=<hex HMAC-SHA256(endpoint secret, id + "." + timestamp + "." + raw body)>. During a secret rotation two values, space-separated; accept either.',
    example: "sha256=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  }),
  "x-service-webhook-id": z.string().openapi({
    description: "The delivery's id, the same on every retry: de-duplicate on it for at least 24 hours.",
    example: "evt_01JDZ3Q4N6X8M2P5R7T9V1W3Y5",
  }),
  "x-service-webhook-timestamp": z.string().openapi({
    description: "Unix seconds of this attempt. Reject the delivery when it is more than 300 seconds from your clock.",
    example: "1795686600",
  }),
});

const webhookResponses = {
  200: { description: "Any 2xx: delivered. Anything else is retried at about +20 min, +2 h and +12 h." },
  410: { description: "Gone: the endpoint is disabled and receives nothing more until it is re-enabled." },
} as const;

export interface WebhookEventDoc<Data extends z.ZodType> {
  /** The event name, e.g. `deal.stip_alert` (src/events/emit.ts EVENT_NAMES). */
  event: string;
  summary: string;
  /** When the event is raised, and what a receiver should do with it. */
  description: string;
  /** The event's `data`; registered as `<Name>` when given `.openapi("Name")`. */
  data: Data;
  /** A realistic `data`, shown in the reference inside a whole envelope, and the `data` of a sample of the event. */
  example: z.input<Data>;
}

/**
 * An event for the OpenAPI document's `webhooks` section: the delivery envelope around its `data`,
 * the signature headers and what the receiver's status means. Register the result on the app's
 * registry, `app.openAPIRegistry.registerWebhook(documentedWebhook({ … }))`, so it is keyed by the
 * bare event name.
 */
export function documentedWebhook<Data extends z.ZodType>(doc: WebhookEventDoc<Data>) {
  const envelope = z.object({
    id: z.string().openapi({ description: "The event's id; equals the X-Service-Webhook-Id header." }),
    event: z.literal(doc.event),
    org_id: z.string(),
    store_id: z.string().openapi({
      description:
        "The store the event concerns. An event with no store of its own (a compliance hold, a lender-environment change, a sample, a ping) carries the organization's primary store.",
    }),
    timestamp: z.iso.datetime().openapi({ description: "When the event was raised (UTC)." }),
    sample: z.boolean().openapi({
      description:
        "True for a sample you asked for (`POST /api/v1/webhooks/{id}/trigger`, or the `webhook.test` ping): its data is the documented example, not something that happened. Ignore such events in production.",
    }),
    data: doc.data,
  });
  const example = {
    id: "evt_01JDZ3Q4N6X8M2P5R7T9V1W3Y5",
    event: doc.event,
    org_id: "org_summit",
    store_id: "sto_summit_north",
    timestamp: "2026-11-26T12:30:00.000Z",
    sample: false,
    data: doc.example,
  };
  return {
    method: "post" as const,
    path: doc.event,
    operationId: `webhook.${doc.event}`,
    tags: ["Webhooks"],
    // The service calls the receiver; the signature headers, not a credential, prove the sender.
    security: [],
    summary: doc.summary,
    description: `${doc.description}\n\nSent as a signed \`POST\` to each endpoint subscribed to \`${doc.event}\` (see \`/api/v1/webhooks\`). Verify it with \`verifyWebhook\` from the TypeScript client, or as docs/developer-experience.md shows.`,
    request: {
      headers: WebhookDeliveryHeadersSchema,
      body: { required: true, content: { "application/json": { schema: envelope, example } } },
    },
    responses: webhookResponses,
  };
}

/** The origin scripts write into a document they build outside a request (the linter refuses localhost). */
export const PUBLISHED_ORIGIN = "https://dealer-intelligence-api.workers.dev";

/** The published contract's header; `servers` names the origin that served the document. */
export const openApiDocument = (origin: string) => ({
  openapi: "3.1.0",
  info: {
    title: "Dealer Intelligence API",
    version: "1.0.0",
    description: [
      "Lender routing, stip prediction, true-cost gross, deal coaching, trade appraisal, compliance screening and dealer reports.",
      "## First call",
      `A sandbox key (no credential needed), then the inventory it holds:\n\n\`\`\`sh\nKEY=$(curl -s -X POST ${origin}/api/sandboxes | jq -r .api_key)\ncurl -H "X-Service-API-Key: $KEY" ${origin}/api/v1/inventory\n\`\`\``,
      'With the typed client (`@dealer-intel/client`, installed from this repository: [getting started](/docs/guides/getting-started#3-the-typed-client)):\n\n```ts\nconst api = createDealerIntelClient({ baseUrl, apiKey });\nconst { data } = await unwrap(api.GET("/api/v1/inventory"));\n```',
      "## Getting a key",
      "Send your key in the `X-Service-API-Key` header. To try the service now, `POST /api/sandboxes` (no credential) creates a sandbox seeded with demo data and returns a `lak_test_` key for it (see **Sandboxes**; guide: [Sandboxes](/docs/guides/sandboxes)). A live key is created with `POST /api/public-api/keys` (see **Keys** below) by your organization's staff, logged in, or by your integration partner with its broker token; the raw key is shown once. Running the service locally (`npm run dev`), the demo keys are printed at start-up.",
      "## Guides",
      "[Errors](/docs/guides/errors) · [Quota and rate-limit headers](/docs/guides/quota) · [Webhooks](/docs/guides/webhooks) · [Versioning](/docs/guides/versioning) · [Ingestion](/docs/guides/ingestion) · [Retrying creates: Idempotency-Key](/docs/guides/idempotency) · [Feeds: paging and changes](/docs/guides/feeds) · [Consistency](/docs/guides/consistency) · [Sandboxes](/docs/guides/sandboxes) · [all guides](/docs/guides/)",
      "Every error has the body `{ error, message, request_id }` (422 adds `details`). Metered responses carry `X-Service-RateLimit-Limit`, `X-Service-RateLimit-Remaining` and `X-Service-RateLimit-Reset`. Changes are additive within `/api/v1`, so ignore fields and enum values you do not know.",
    ].join("\n\n"),
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
  servers: [{ url: origin, description: "This deployment" }],
  // Every tag an operation uses, in the order a reader meets them: the deal tools first.
  tags: [
    { name: "Deal desk", description: "Tools for one deal: lender routing, stips, true-cost gross, coaching and trade appraisal." },
    { name: "Compliance", description: "Sanctions (OFAC SDN) and identity red-flag screening, with an audit record of each check." },
    { name: "Reports", description: "Aged-inventory alerts, role briefings and the market pulse, from your own data." },
    {
      name: "Feeds",
      description: "Read-only organization data, with a key: whole, by store, by page or only what changed (guide: /docs/guides/feeds).",
    },
    { name: "Ingestion", description: "Push inventory snapshots and deals from your DMS." },
    { name: "Webhooks", description: "Signed event deliveries to your endpoints; verify each before trusting it." },
    {
      name: "Sandboxes",
      description: `One call, no credential: a sandbox organization on demo data and a \`lak_test_\` key for it, for ${SANDBOX_LIFETIME_DAYS} days (guide: /docs/guides/sandboxes).`,
    },
    { name: "Keys", description: "Create, list, rotate and revoke API keys (staff session or broker token)." },
    {
      name: "Settings",
      description:
        "Each store's economics and lender panel and the organization's screening thresholds, with an audit log of every change (staff session or broker token).",
    },
    { name: "Staff session", description: "Log staff in and out of the key-management pages." },
    { name: "Public", description: "No credentials: figures and feeds for marketing sites." },
    {
      name: "Operator",
      description:
        "The service operator's onboarding, with an operator token (`dot_`, `npm run operator-token`): organizations (create, suspend, reinstate), stores, staff users and broker tokens. Never reachable with a dealer credential.",
    },
  ],
});
