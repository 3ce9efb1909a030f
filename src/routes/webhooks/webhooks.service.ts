import type { z } from "@hono/zod-openapi";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { findPrimaryStoreId } from "../../db/queries/events";
import type * as queries from "../../db/queries/webhooks";
import { envelopeOf, postSigned } from "../../events/delivery";
import type { EventName } from "../../events/emit";
import { encryptSecret, generateWebhookSecret, signingSecrets } from "../../events/signing";
import { webhookUrlProblem } from "../../events/url-policy";
import type { WebhookAnswer } from "../../jobs/webhook-requests";
import type { WebhookStorage } from "../../jobs/webhook-storage";
import { DomainError } from "../../lib/domain-error";
import { newId } from "../../lib/ids";
import { sampleEventData } from "./webhooks.events";
import { type CreateWebhookEndpointSchema, MAX_ENDPOINTS_PER_ORG, type UpdateWebhookEndpointSchema } from "./webhooks.routes";

function assertUsableUrl(config: Config, url: string): void {
  const problem = webhookUrlProblem(url, config.webhookAllowLocalhost);
  if (problem)
    throw new DomainError("invalid", "The webhook URL is not allowed.", {
      problems: [{ path: "url", code: "invalid_url", message: `The URL ${problem}.` }],
    });
}

const notFound = () => new DomainError("not_found", "This organization has no webhook endpoint with that id.");

/** The previous secret's end while it still signs; null once it has ended or when there is none. */
function previousSecretEnd(row: queries.WebhookEndpointRow, now: Date): string | null {
  const end = row.previousSecretExpiresAt;
  return row.previousSecretCiphertext !== null && end !== null && Date.parse(end) > now.getTime() ? end : null;
}

export function toEndpointFields(row: queries.WebhookEndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events as z.infer<typeof CreateWebhookEndpointSchema>["events"],
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    previous_secret_expires_at: previousSecretEnd(row, new Date()),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export async function createEndpoint(on: WebhookStorage, config: Config, input: z.infer<typeof CreateWebhookEndpointSchema>) {
  assertUsableUrl(config, input.url);
  const secret = generateWebhookSecret();
  const row = await on("create", {
    row: {
      id: newId("whk"),
      url: input.url,
      description: input.description ?? "",
      events: [...new Set(input.events)],
      secretCiphertext: await encryptSecret(config.webhookSecretsKey, secret),
    },
    cap: MAX_ENDPOINTS_PER_ORG,
  });
  if (!row) {
    throw new DomainError("invalid", `An organization can have at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints.`, {
      problems: [{ path: "url", code: "too_many_endpoints", message: "Delete an endpoint first." }],
    });
  }
  return { ...toEndpointFields(row), secret };
}

export async function listEndpoints(on: WebhookStorage) {
  const endpoints = (await on("list", undefined)).map(toEndpointFields);
  return { count: endpoints.length, endpoints };
}

/** Deletes the endpoint with its deliveries and their attempts. */
export async function deleteEndpoint(on: WebhookStorage, id: string): Promise<void> {
  if (!(await on("delete", { id }))) throw notFound();
}

export async function getEndpoint(on: WebhookStorage, id: string) {
  const row = await on("get", { id });
  if (!row) throw notFound();
  return row;
}

export async function updateEndpoint(on: WebhookStorage, config: Config, id: string, input: z.infer<typeof UpdateWebhookEndpointSchema>, now: Date) {
  if (input.url !== undefined) assertUsableUrl(config, input.url);
  const row = await on("update", {
    id,
    changes: {
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.events === undefined ? {} : { events: [...new Set(input.events)] }),
      // Any explicit enable or disable replaces the service's reason for disabling.
      ...(input.enabled === undefined ? {} : { enabled: input.enabled, disabledReason: null }),
    },
    at: now.toISOString(),
  });
  if (!row) throw notFound();
  return row;
}

/** A new secret, shown once; the one it replaces signs beside it for `overlapHours`. */
export async function rotateSecret(on: WebhookStorage, config: Config, id: string, overlapHours: number, now: Date) {
  const secret = generateWebhookSecret();
  const previousExpiresAt = new Date(now.getTime() + overlapHours * 3_600_000).toISOString();
  const row = await on("rotate", {
    id,
    rotation: { secretCiphertext: await encryptSecret(config.webhookSecretsKey, secret), previousExpiresAt },
    at: now.toISOString(),
  });
  if (!row) throw notFound();
  return { ...toEndpointFields(row), secret, previous_secret_expires_at: previousExpiresAt };
}

function toDeliveryFields(delivery: Awaited<ReturnType<typeof queries.listDeliveries>>[number]) {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event: delivery.event as EventName,
    sample: delivery.sample,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    last_response_status: delivery.lastResponseStatus,
    last_error: delivery.lastError,
    created_at: delivery.createdAt,
    updated_at: delivery.updatedAt,
    attempts: delivery.attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attemptedAt,
      duration_ms: a.durationMs,
      response_status: a.responseStatus,
      error: a.error,
      outcome: a.outcome,
      request_body: a.requestBody,
      response_body: a.responseBody,
      response_body_bytes: a.responseBytes,
    })),
  };
}

/** One page, newest first; `startingAfter` is the previous page's `next_cursor` (a delivery id). */
export async function listEndpointDeliveries(on: WebhookStorage, endpointId: string, page: { limit: number; startingAfter?: string }) {
  // One more than asked for says whether another page follows.
  const found = await on("deliveries", { endpointId, limit: page.limit + 1, startingAfter: page.startingAfter });
  if (!found.endpoint) throw notFound();
  if (!found.cursor) {
    throw new DomainError("invalid", "starting_after is not a delivery of this endpoint.", {
      problems: [
        { path: "starting_after", code: "invalid_cursor", message: "Pass the next_cursor of a previous page of this endpoint's deliveries." },
      ],
    });
  }
  const deliveries = found.rows.slice(0, page.limit).map(toDeliveryFields);
  const hasMore = found.rows.length > page.limit;
  return { count: deliveries.length, deliveries, has_more: hasMore, next_cursor: hasMore ? deliveries[deliveries.length - 1].id : null };
}

/** The queued delivery, or the refusal's error. */
function queuedDelivery(answer: WebhookAnswer<"redeliver" | "sample">, action: string) {
  if ("delivery" in answer) return toDeliveryFields(answer.delivery);
  if (answer.refused === "no_endpoint") throw notFound();
  if (answer.refused === "no_delivery") throw new DomainError("not_found", "This endpoint has no delivery with that id.");
  throw new DomainError("invalid", `The endpoint is disabled; enable it before ${action}.`, {
    problems: [{ path: "id", code: "endpoint_disabled", message: 'PATCH the endpoint with {"enabled": true} first.' }],
  });
}

/** Reopened and queued where the delivery is (recorded first, sent second: if the queue refuses it, the outbox sweeper sends it within minutes). */
export async function redeliver(on: WebhookStorage, endpointId: string, deliveryId: string, now: Date) {
  return queuedDelivery(await on("redeliver", { endpointId, deliveryId, at: now.toISOString() }), "redelivering");
}

/**
 * A sample of `event` for this endpoint only, queued like a redelivery (recorded first, then sent;
 * the sweeper sends it if the queue refuses it), with the documented example as its data.
 */
export async function triggerSample(on: WebhookStorage, endpointId: string, event: EventName, now: Date) {
  const sample = { eventId: newId("evt"), deliveryId: newId("dlv"), endpointId, event, data: sampleEventData(event) };
  return queuedDelivery(await on("sample", { sample, at: now.toISOString() }), "triggering events");
}

/** A signed `webhook.test` envelope, sent now; nothing is recorded. */
export async function ping(on: WebhookStorage, db: Database, config: Config, orgId: string, endpointId: string, now: Date) {
  const endpoint = await getEndpoint(on, endpointId);
  const envelope = envelopeOf({
    id: newId("evt"),
    event: "webhook.test",
    orgId,
    storeId: await findPrimaryStoreId(db, orgId),
    occurredAt: now.toISOString(),
    sample: true,
    data: { message: "A test event from Dealer Intelligence. No action is needed." },
  });
  const secrets = await signingSecrets(config.webhookSecretsKey, endpoint, now);
  const result = await postSigned(endpoint.url, secrets, envelope.id, JSON.stringify(envelope), now, config.webhookAllowLocalhost);
  return { delivered: result.delivered, response_status: result.responseStatus, duration_ms: result.durationMs, error: result.error };
}
