/**
 * The rules of an `Idempotency-Key` (docs/idempotency.md), pure: what a well-formed key is, how
 * long an answer is kept, and which answers are kept at all.
 */

import { DAY_MS } from "../dates";

/** Answers are kept, and replayed, for this long after the first request (Stripe's 24 h). */
export const IDEMPOTENCY_KEY_TTL_MS = DAY_MS;

/**
 * A reservation still unanswered after this long belongs to a request that died (its isolate was
 * evicted mid-request): the key runs anew rather than answering 409 for the rest of the day.
 * No create endpoint runs anywhere near this long.
 */
export const ABANDONED_RESERVATION_MS = 5 * 60 * 1000;

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Visible ASCII (0x21–0x7E): what a bare key, such as a UUID, is made of. */
const BARE_KEY = /^[\x21-\x7e]+$/;
/** RFC 8941 sf-string: printable ASCII between quotes, `"` and `\` escaped with a backslash. */
const SF_STRING = /^"((?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The key a header value names, or null when it is malformed. The draft's sf-string form
 * (`"8e03978e-…"`) and a bare value name the same key; either way it is 1–255 characters.
 */
export function parseIdempotencyKey(header: string): string | null {
  const value = header.trim();
  const quoted = SF_STRING.exec(value);
  // A value that opens a quote is held to the sf-string form; any other is taken bare.
  const bare = !value.startsWith('"') && BARE_KEY.test(value) ? value : null;
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, "$1") : bare;
  return key !== null && key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? key : null;
}

/**
 * Error codes that refuse the request as it was sent, before anything was done: a corrected
 * retry may use the same key, so these answers are not kept.
 */
const REFUSALS_NOT_KEPT: ReadonlySet<string> = new Set([
  "invalid_request",
  "unauthorized",
  "forbidden",
  "payload_too_large",
  "validation_error",
  "rate_limited",
  "daily_rate_limit_reached",
]);

/**
 * Whether an answer is kept for replay. A 5xx is not: every create writes in one atomic batch, so
 * a failed request left nothing behind and running it again is what the client needs. Refusals of
 * the request as sent are not either. Everything else (successes, a 404 for a store the
 * organization lacks) is, as Stripe does.
 */
export function keepsAnswer(status: number, errorCode: string | null): boolean {
  if (status >= 500) return false;
  return errorCode === null || !REFUSALS_NOT_KEPT.has(errorCode);
}
