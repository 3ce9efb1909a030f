import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { ConfigError } from "../config";
import { DomainError, type DomainErrorKind } from "../lib/domain-error";
import { describeError, logEvent } from "../lib/log";
import type { AppEnv } from "./app-env";
import { ApiError, type ErrorCode } from "./errors";

function sendError(c: Context<AppEnv>, error: ApiError): Response {
  const body = {
    error: error.code,
    message: error.message,
    request_id: c.get("requestId"),
    ...(error.extra.details ? { details: error.extra.details } : {}),
    ...error.extra.body,
  };
  return c.json(body, error.status, error.extra.headers);
}

/**
 * The framework's own 4xx (hono's validators, body limit, media-type gate) in the contract's terms.
 * A 4xx not listed is the client's fault all the same: it becomes `invalid_request`, never a 500.
 */
const HTTP_EXCEPTION_CODES: Partial<Record<number, ErrorCode>> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  429: "rate_limited",
};

const HTTP_EXCEPTION_MESSAGES: Partial<Record<ErrorCode, string>> = {
  // Hono's validator reports unparseable JSON as a 400; the media-type gate a wrong Content-Type as a 415.
  invalid_request: "The request body is missing or is not valid JSON sent as Content-Type: application/json.",
  payload_too_large: "The request body is over the size limit.",
};

/** The domain's refusals in the contract's terms: the one place a service's error gets its HTTP status. */
const DOMAIN_ERROR_CODES: Record<DomainErrorKind, ErrorCode> = {
  not_found: "not_found",
  invalid: "validation_error",
  conflict: "conflict",
  too_often: "rate_limited",
  sanctions_list_stale: "sanctions_list_stale",
  vehicle_data_missing: "vehicle_data_unavailable",
  upstream_timeout: "upstream_timeout",
};

const fromDomain = (err: DomainError) => {
  const { problems, facts, retryAfterSeconds } = err.extra;
  const headers = retryAfterSeconds === undefined ? undefined : { "Retry-After": String(retryAfterSeconds) };
  return new ApiError(DOMAIN_ERROR_CODES[err.kind], err.message, { details: problems, body: facts, headers });
};

/** Hono's JSON validator drops the parser's error; this is its message for a body it could not parse. */
const MALFORMED_JSON = "Malformed JSON in request body";

/**
 * Where a body stops being JSON, as a line and column a developer can find. Only the position is
 * taken from the parser's message: V8 also quotes the text around it, which may hold personal data.
 */
async function jsonErrorPosition(c: Context<AppEnv>): Promise<string | null> {
  const text = await c.req.text().catch(() => null);
  if (!text) return null;
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    const position = error instanceof SyntaxError ? /at position (\d+)/.exec(error.message)?.[1] : undefined;
    const offset = position === undefined ? text.length : Number(position);
    const before = text.slice(0, offset).split("\n");
    return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1} (character ${offset + 1})`;
  }
}

/** One place turns every failure into the contract's body; nothing unexpected leaks its details. */
export const onError: ErrorHandler<AppEnv> = async (err, c) => {
  if (err instanceof ApiError) return sendError(c, err);
  if (err instanceof DomainError) return sendError(c, fromDomain(err));
  if (err instanceof HTTPException && err.status === 400 && err.message === MALFORMED_JSON) {
    const where = await jsonErrorPosition(c);
    if (where) return sendError(c, new ApiError("invalid_request", `The request body is not valid JSON: it stops parsing at ${where}.`));
  }
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    const code = HTTP_EXCEPTION_CODES[err.status] ?? "invalid_request";
    return sendError(c, new ApiError(code, HTTP_EXCEPTION_MESSAGES[code] ?? (err.message || "The request was refused.")));
  }
  if (err instanceof ConfigError) {
    logEvent("error", { event: "invalid_configuration", request_id: c.get("requestId"), variables: err.variables });
    return sendError(c, new ApiError("internal_error", "An unexpected error occurred."));
  }
  logEvent("error", { event: "unhandled_error", request_id: c.get("requestId"), ...describeError(err) });
  return sendError(c, new ApiError("internal_error", "An unexpected error occurred."));
};

/**
 * A path with a trailing slash is the same endpoint: a 308 to it without the slash keeps the method
 * and the body (a 301 would turn a POST into a GET). Any other unknown path is a 404.
 */
export const onNotFound: NotFoundHandler<AppEnv> = (c) => {
  const url = new URL(c.req.url);
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) {
    url.pathname = url.pathname.replace(/\/+$/, "");
    return c.redirect(url.pathname + url.search, 308);
  }
  return sendError(c, new ApiError("not_found", `No endpoint at ${c.req.method} ${c.req.path}.`));
};

export const onMethodNotAllowed = (c: Context<AppEnv>, methods: string[]) =>
  sendError(
    c,
    new ApiError("method_not_allowed", `${c.req.method} is not allowed here; use ${methods.join(", ")}.`, {
      headers: { Allow: methods.join(", ") },
    }),
  );
