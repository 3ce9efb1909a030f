import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** The size limit middleware; it carries its limit so a test can hold every body route to its own. */
export const limitBody = (maxSize: number) =>
  Object.assign(
    bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError("payload_too_large", `The request body is over the ${maxSize / (1024 * 1024)} MiB limit.`);
      },
    }),
    { maxBytes: maxSize },
  );

export const METHODS_WITH_BODY: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"]);

/**
 * `application/json`, optionally with `; name=value` parameters: exactly what @hono/zod-openapi's
 * media-type gate accepts (its jsonRequestRegex, minus `+json` types), so a value we let through is
 * never refused later by the validator. `application/json;`, `application/json ; charset=utf-8`
 * and `application/json; charset` are refused here with the contract's 400.
 */
const JSON_CONTENT_TYPE = /^application\/json(;\s*[a-zA-Z0-9-]+=[^;]+)*$/i;

export const isJsonContentType = (contentType: string | undefined) => JSON_CONTENT_TYPE.test(contentType ?? "");

/** Bodies are JSON only; anything else is refused before validation runs. */
export const requireJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    if (!isJsonContentType(c.req.header("Content-Type"))) {
      throw new ApiError("invalid_request", "Send the request body as JSON with Content-Type: application/json.");
    }
  }
  await next();
});

export const isCsvContentType = (contentType: string | undefined) => /^text\/csv\s*(;|$)/i.test(contentType ?? "");

/** The ingestion endpoints take JSON or CSV (RFC 4180, UTF-8, a header row). */
export const requireJsonOrCsvBody = createMiddleware<AppEnv>(async (c, next) => {
  const contentType = c.req.header("Content-Type");
  if (METHODS_WITH_BODY.has(c.req.method) && !isJsonContentType(contentType) && !isCsvContentType(contentType)) {
    throw new ApiError("invalid_request", "Send the request body as Content-Type: application/json or text/csv.");
  }
  await next();
});
