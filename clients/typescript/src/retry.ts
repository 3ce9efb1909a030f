import { IDEMPOTENT_OPERATIONS } from "./idempotent-operations.js";

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

const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** The server failed or was briefly unavailable; the same request may well succeed. */
const RETRIED_STATUSES = new Set([500, 503]);

/** Reads that a repeat cannot change. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const IDEMPOTENT_MATCHERS = IDEMPOTENT_OPERATIONS.map((operation) => {
  const [method, path] = operation.split(" ");
  const pattern = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
  // The base URL may carry a path prefix, so the operation's path is matched at the end.
  return { method, pattern: new RegExp(`${pattern}$`) };
});

/** Whether the server answers a repeat of this request with the first answer (docs/idempotency.md). */
function takesIdempotencyKey(request: Request): boolean {
  const { pathname } = new URL(request.url);
  return IDEMPOTENT_MATCHERS.some(({ method, pattern }) => method === request.method && pattern.test(pathname));
}

/**
 * The request with an `Idempotency-Key` when it is a create that honours one and the caller gave
 * none: one key per call, set before the first attempt, so every retry repeats it.
 */
function withIdempotencyKey(request: Request): Request {
  if (request.headers.has(IDEMPOTENCY_KEY_HEADER) || !takesIdempotencyKey(request)) return request;
  const headers = new Headers(request.headers);
  headers.set(IDEMPOTENCY_KEY_HEADER, crypto.randomUUID());
  return new Request(request, { headers });
}

/** The first request with this key is still running: asking again shortly gets its answer. */
async function isInProgress(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: unknown } | null;
  return body?.error === "idempotency_in_progress";
}

/**
 * A fetch that retries 500 and 503 with exponential backoff and full jitter, honouring
 * `Retry-After` up to `maxDelayMs`. A create that honours `Idempotency-Key` gets one key for all
 * its attempts, so it is also retried after a network error and on 409 `idempotency_in_progress`:
 * the server runs it at most once. Other writes are not retried after a network error: whether
 * the request reached the service is unknown, and the caller should decide.
 */
export function retryingFetch(fetchOnce: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 8_000;
  const sleep = options.sleep ?? wait;
  return async (original: Request): Promise<Response> => {
    const request = withIdempotencyKey(original);
    const repeatable = SAFE_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_KEY_HEADER);
    for (let attempt = 0; ; attempt++) {
      const backoffMs = Math.random() * baseDelayMs * 2 ** attempt;
      let response: Response;
      try {
        // A body can be read once: every attempt but the last sends a copy.
        response = await fetchOnce(attempt < retries ? request.clone() : request);
      } catch (error) {
        if (attempt >= retries || !repeatable) throw error;
        await sleep(Math.min(maxDelayMs, backoffMs));
        continue;
      }
      const retried = RETRIED_STATUSES.has(response.status) || (repeatable && (await isInProgress(response)));
      if (attempt >= retries || !retried) return response;
      await response.body?.cancel();
      const retryAfterMs = Number(response.headers.get("Retry-After")) * 1000;
      await sleep(Math.min(maxDelayMs, Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : backoffMs));
    }
  };
}
