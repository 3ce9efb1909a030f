import type { OutboxRow } from "../db/queries/events";
import { signWebhook } from "./signing";

export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 200;

/** The body partners receive (SPEC §6 plus `id`); `timestamp` is when the event happened. */
export function envelopeOf(event: Pick<OutboxRow, "id" | "event" | "orgId" | "storeId" | "occurredAt" | "data">) {
  return { id: event.id, event: event.event, org_id: event.orgId, store_id: event.storeId, timestamp: event.occurredAt, data: event.data };
}

export interface AttemptResult {
  delivered: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * One signed POST. 2xx is delivered; any other answer (3xx included: redirects are not followed)
 * or no answer within 10 s is a failure. The response body is never read, only released.
 */
export async function postSigned(url: string, secret: string, webhookId: string, body: string, now: Date): Promise<AttemptResult> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "DealerIntelligence-Webhooks/1.0",
    "X-Service-Webhook-Id": webhookId,
    "X-Service-Webhook-Timestamp": String(timestamp),
    "X-Service-Signature": await signWebhook(secret, webhookId, timestamp, body),
  };
  const started = Date.now();
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    await response.body?.cancel();
    const delivered = response.status >= 200 && response.status < 300;
    return {
      delivered,
      responseStatus: response.status,
      durationMs: Date.now() - started,
      error: delivered ? null : `The receiver answered HTTP ${response.status}.`,
    };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    const message = timedOut
      ? `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s.`
      : `Could not connect: ${error instanceof Error ? error.message : "unknown error"}`;
    return { delivered: false, responseStatus: null, durationMs: Date.now() - started, error: message.slice(0, MAX_ERROR_LENGTH) };
  }
}
