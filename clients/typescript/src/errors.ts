import { type Quota, readQuota } from "./quota.js";
import type { components } from "./schema.js";

export type ErrorBody = components["schemas"]["Error"];
export type ErrorCode = ErrorBody["error"];
export type ValidationDetail = NonNullable<ErrorBody["details"]>[number];
/** The 429 body of a spent daily quota: `reset_at` (ISO date-time), `limit` and `used` beside the error fields. */
export type QuotaExceededBody = components["schemas"]["QuotaExceeded"];

/** Any non-2xx answer of the API, with what its error body and headers say. */
export class DealerIntelError extends Error {
  override readonly name = "DealerIntelError";
  /** The HTTP status. */
  readonly status: number;
  /** The machine-readable code, e.g. `validation_error`, `daily_rate_limit_reached`. */
  readonly error: ErrorCode | "unknown_error";
  /** Field-level problems; on 422 only. */
  readonly details: ValidationDetail[];
  /** Quote it when asking for support: it finds the request in the service's logs. */
  readonly requestId: string | null;
  /** The key's quota figures, when the response carried them. */
  readonly quota: Quota | null;
  /** Seconds to wait before retrying, from `Retry-After` (429 and some 503s). */
  readonly retryAfterSeconds: number | null;
  /** The whole JSON body; a 429 for a spent quota adds `reset_at` (a string), `limit` and `used`. */
  readonly body: (Partial<QuotaExceededBody> & Record<string, unknown>) | null;

  constructor(response: Response, body: unknown) {
    const parsed = isErrorBody(body) ? body : null;
    super(parsed?.message ?? notThisApi(response));
    this.status = response.status;
    this.error = parsed?.error ?? "unknown_error";
    this.details = parsed?.details ?? [];
    this.requestId = parsed?.request_id ?? response.headers.get("X-Request-Id");
    this.quota = readQuota(response.headers);
    const retryAfter = Number(response.headers.get("Retry-After"));
    this.retryAfterSeconds = response.headers.has("Retry-After") && Number.isFinite(retryAfter) ? retryAfter : null;
    this.body = body !== null && typeof body === "object" ? (body as Partial<QuotaExceededBody> & Record<string, unknown>) : null;
  }
}

/**
 * A status without the API's error body came from something else at that address (a proxy, another
 * server, a path outside the API): say where, and what to check.
 */
function notThisApi(response: Response): string {
  const where = response.url ? ` from ${response.url}` : "";
  return `HTTP ${response.status}${where}, without the API's error body: check that baseUrl is the API's origin and that the path is one the API reference lists (GET /api/openapi.json).`;
}

function isErrorBody(body: unknown): body is ErrorBody {
  return body !== null && typeof body === "object" && typeof (body as ErrorBody).error === "string";
}
