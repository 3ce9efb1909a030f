import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { isJsonContentType, METHODS_WITH_BODY } from "./body";
import { ApiError } from "./errors";
import { isAllowedStaffOrigin } from "./staff-cors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for writes that a cookie authenticates. A cross-site page can send a form-encoded
 * or text/plain POST without a preflight, and Hono's csrf() does not look at JSON, so both the
 * content type and the Origin are checked here; requests without an Origin are refused too.
 */
export function assertCookieWriteAllowed(c: Context<AppEnv>): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  if (METHODS_WITH_BODY.has(c.req.method) && !isJsonContentType(c.req.header("Content-Type"))) {
    throw new ApiError("forbidden", "Session-authenticated writes must be sent as Content-Type: application/json.");
  }
  if (!isAllowedStaffOrigin(c, c.req.header("Origin"))) {
    throw new ApiError(
      "forbidden",
      "Session-authenticated writes must come from an allowed Origin: one listed in the deployment's STAFF_ALLOWED_ORIGINS variable (wrangler.toml [vars]; .dev.vars locally).",
    );
  }
}

/** Answers writes that carry a session cookie only when they pass the CSRF rules. */
export const sameOriginStaffWrite = createMiddleware<AppEnv>(async (c, next) => {
  assertCookieWriteAllowed(c);
  await next();
});
