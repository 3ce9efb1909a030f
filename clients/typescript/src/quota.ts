/** A key's daily quota, as the last metered response reported it. */
export interface Quota {
  /** Requests allowed per UTC day. */
  limit: number;
  /** Requests left today. */
  remaining: number;
  /** The next 00:00 UTC, when the count starts again. */
  resetAt: Date;
}

/** The quota headers of a response, or null on responses that are not metered (public, key management). */
export function readQuota(headers: Headers): Quota | null {
  const limit = headers.get("X-Service-RateLimit-Limit");
  const remaining = headers.get("X-Service-RateLimit-Remaining");
  const reset = headers.get("X-Service-RateLimit-Reset");
  if (limit === null || remaining === null || reset === null) return null;
  return { limit: Number(limit), remaining: Number(remaining), resetAt: new Date(Number(reset) * 1000) };
}
