import type { OutboxRow } from "../db/queries/events";
import { signWebhook } from "./signing";
import { webhookUrlProblem } from "./url-policy";

export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 200;
/** How much of the receiver's answer the delivery log keeps (docs/webhooks.md#the-delivery-log). */
export const RESPONSE_PREVIEW_BYTES = 1024;
/** How long the delivery log keeps each attempt's request and response bodies (src/jobs/purge-webhook-bodies.ts). */
export const WEBHOOK_BODY_RETENTION_DAYS = 30;
/** The answer's size is counted this far, then the rest is dropped unread. */
const RESPONSE_COUNT_LIMIT = 1024 * 1024;

/**
 * The body partners receive (docs/webhooks.md#the-delivery): the contract's envelope plus `id` and `sample`;
 * `timestamp` is when the event happened. `storeId` is the event's own store, else the
 * organization's primary store (`findPrimaryStoreId`).
 */
export function envelopeOf(event: Pick<OutboxRow, "id" | "event" | "orgId" | "occurredAt" | "data" | "sample"> & { storeId: string | null }) {
  return {
    id: event.id,
    event: event.event,
    org_id: event.orgId,
    store_id: event.storeId,
    timestamp: event.occurredAt,
    sample: event.sample,
    data: event.data,
  };
}

export interface AttemptResult {
  delivered: boolean;
  /** Not sent: the URL breaks a URL rule (the error names it); no retry can change that. */
  refused: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  /** The first KiB of a text answer; null for no answer, an empty or a binary one. */
  responseBody: string | null;
  /** The answer's size in bytes (counted up to 1 MiB); null when there was no answer. */
  responseBytes: number | null;
}

const TEXT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|xml|x-www-form-urlencoded)\b)/i;

/**
 * Reads the answer's first KiB and counts its size, then drops the rest: a receiver that streams
 * forever is cut off at 1 MiB (or by the delivery timeout), and what was read so far is kept.
 */
async function readAnswer(response: Response): Promise<{ body: string | null; bytes: number }> {
  if (!response.body) return { body: null, bytes: 0 };
  const reader = response.body.getReader();
  const preview = new Uint8Array(RESPONSE_PREVIEW_BYTES);
  let bytes = 0;
  try {
    while (bytes < RESPONSE_COUNT_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      if (bytes < RESPONSE_PREVIEW_BYTES) preview.set(value.subarray(0, RESPONSE_PREVIEW_BYTES - bytes), bytes);
      bytes += value.byteLength;
    }
  } catch {
    // A broken or timed-out answer keeps what arrived; the status already decided the outcome.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const contentType = response.headers.get("Content-Type") ?? "text/plain";
  if (bytes === 0 || !TEXT_TYPE.test(contentType)) return { body: null, bytes };
  // `stream: true` leaves out a character the cut split in two rather than writing U+FFFD for it.
  return { body: new TextDecoder().decode(preview.subarray(0, Math.min(bytes, RESPONSE_PREVIEW_BYTES)), { stream: true }), bytes };
}

/**
 * One POST signed with each of `secrets` (docs/webhooks.md#rotating-the-signing-secret). 2xx is delivered; any other answer (3xx included: redirects are not followed)
 * or no answer within 10 s is a failure. The first KiB of the answer is kept for the delivery log.
 * The URL rules are checked here, on every send, not only when the URL was stored: a row written
 * before a rule existed, or by a migration, is refused (`refused`, the rule in `error`) unsent.
 */
export async function postSigned(
  url: string,
  secrets: readonly string[],
  webhookId: string,
  body: string,
  now: Date,
  allowLocalhost: boolean,
): Promise<AttemptResult> {
  const problem = webhookUrlProblem(url, allowLocalhost);
  if (problem !== null) {
    const error = `Not sent: the URL ${problem} (docs/webhooks.md#url-rules).`;
    return { delivered: false, refused: true, responseStatus: null, durationMs: 0, error, responseBody: null, responseBytes: null };
  }
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "DealerIntelligence-Webhooks/1.0",
    "X-Service-Webhook-Id": webhookId,
    "X-Service-Webhook-Timestamp": String(timestamp),
    "X-Service-Signature": await signWebhook(secrets, webhookId, timestamp, body),
  };
  const started = Date.now();
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    const answer = await readAnswer(response);
    const delivered = response.status >= 200 && response.status < 300;
    return {
      delivered,
      refused: false,
      responseStatus: response.status,
      durationMs: Date.now() - started,
      error: delivered ? null : `The receiver answered HTTP ${response.status}.`,
      responseBody: answer.body,
      responseBytes: answer.bytes,
    };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    const message = timedOut
      ? `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s.`
      : `Could not connect: ${error instanceof Error ? error.message : "unknown error"}`;
    return {
      delivered: false,
      refused: false,
      responseStatus: null,
      durationMs: Date.now() - started,
      error: message.slice(0, MAX_ERROR_LENGTH),
      responseBody: null,
      responseBytes: null,
    };
  }
}
