import createFetchClient from "openapi-fetch";
import { DealerIntelError } from "./errors.js";
import { type Quota, readQuota } from "./quota.js";
import { type RetryOptions, retryingFetch } from "./retry.js";
import type { paths } from "./schema.js";

export interface DealerIntelClientOptions {
  /** The API's origin, e.g. `https://api.dealer-intelligence.example`. */
  baseUrl: string;
  /** A `lak_` key, sent as `X-Service-API-Key` on every request. Leave out for the public endpoints only. */
  apiKey?: string;
  /** Retries of 500 and 503 (never 4xx). Default: 3 retries from 250 ms, doubling, with jitter. */
  retry?: RetryOptions;
  /** A fetch of your own (a proxy, a test double, a Worker's `fetch`). Default: `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers for every request (e.g. a `User-Agent` naming your integration). */
  headers?: Record<string, string>;
}

/**
 * The typed client: `client.GET("/api/v1/inventory")`, `client.POST(path, { body })`, …, with
 * paths, parameters, bodies and responses typed from the OpenAPI document (openapi-fetch).
 * Pass a call to `unwrap` to get its data or a thrown `DealerIntelError`.
 */
export function createDealerIntelClient(options: DealerIntelClientOptions) {
  // Every path starts with /api/…: a baseUrl that ends with it would make every call a path that does not exist.
  if (/\/api(\/v\d+)?\/*$/.test(options.baseUrl)) {
    throw new TypeError(`baseUrl is the API's origin, without /api (the paths carry it): not "${options.baseUrl}".`);
  }
  const fetchOnce = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch: retryingFetch(fetchOnce, options.retry),
    headers: { ...options.headers, ...(options.apiKey ? { "X-Service-API-Key": options.apiKey } : {}) },
  });
}

export type DealerIntelClient = ReturnType<typeof createDealerIntelClient>;

export interface Unwrapped<T> {
  data: T;
  /** The key's quota after this call; null on unmetered endpoints. */
  quota: Quota | null;
  requestId: string | null;
  response: Response;
}

/** The successful result of a client call, or a `DealerIntelError` carrying the error body. */
export async function unwrap<T, E>(call: Promise<{ data?: T; error?: E; response: Response }>): Promise<Unwrapped<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new DealerIntelError(response, error ?? null);
  return { data: data as T, quota: readQuota(response.headers), requestId: response.headers.get("X-Request-Id"), response };
}
