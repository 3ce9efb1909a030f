import type { Context } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { IDEMPOTENCY_CORS } from "./idempotency";

/** Whether `origin` is one of the deployment's STAFF_ALLOWED_ORIGINS: the staff pages' own. */
export function isAllowedStaffOrigin(c: Context<AppEnv>, origin: string | undefined): origin is string {
  return origin !== undefined && c.get("config").staffAllowedOrigins.includes(origin);
}

const credentialedCors = cors({
  origin: (origin) => origin,
  credentials: true,
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
  allowHeaders: ["Content-Type", "Authorization", ...IDEMPOTENCY_CORS.allowHeaders],
  exposeHeaders: ["X-Request-Id", ...IDEMPOTENCY_CORS.exposeHeaders],
  maxAge: 600,
});

/**
 * CORS for the staff and key-management routes, separate from the open public policy: only the
 * configured origins, with credentials. Other origins get no CORS headers at all, so
 * `Access-Control-Allow-Credentials` is never sent to them.
 */
export const staffCors = createMiddleware<AppEnv>(async (c, next) => {
  if (!isAllowedStaffOrigin(c, c.req.header("Origin"))) return next();
  return credentialedCors(c, next);
});
