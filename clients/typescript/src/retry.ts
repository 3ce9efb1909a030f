export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  retries?: number;
  /** The first backoff; each retry doubles it (with full jitter). Default 250 ms. */
  baseDelayMs?: number;
  /** No single wait is longer than this, `Retry-After` included. Default 8 s. */
  maxDelayMs?: number;
  /** How to wait; tests pass one that does not. */
  sleep?: (ms: number) => Promise<void>;
}

/** The server failed or was briefly unavailable; the same request may well succeed. Never 4xx. */
const RETRIED_STATUSES = new Set([500, 503]);

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that retries 500 and 503 with exponential backoff and full jitter, honouring
 * `Retry-After` up to `maxDelayMs`. Network errors are not retried: whether the request reached
 * the service is unknown, and the caller should decide.
 */
export function retryingFetch(fetchOnce: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 8_000;
  const sleep = options.sleep ?? wait;
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      // A body can be read once: every attempt but the last sends a copy.
      const response = await fetchOnce(attempt < retries ? request.clone() : request);
      if (attempt >= retries || !RETRIED_STATUSES.has(response.status)) return response;
      await response.body?.cancel();
      const retryAfterMs = Number(response.headers.get("Retry-After")) * 1000;
      const backoffMs = Math.random() * baseDelayMs * 2 ** attempt;
      await sleep(Math.min(maxDelayMs, Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : backoffMs));
    }
  };
}
