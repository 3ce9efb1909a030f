import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { openCors } from "./response-headers";

/** How long browsers and CDNs may keep a public answer, and the oldest copy the Worker itself serves. */
export const PUBLIC_MAX_AGE_SECONDS = 60;

/** Open CORS without credentials: these figures are meant to be embedded on any site. */
export const publicCors = openCors({ allowMethods: ["GET", "HEAD", "OPTIONS"] });

/**
 * A per-client burst limit of its own (the Rate Limiting binding, keyed by client address); it never
 * touches a key's daily quota. Successful answers may be cached by browsers and CDNs for a minute.
 */
export const publicAccess = createMiddleware<AppEnv>(async (c, next) => {
  const client = c.req.header("CF-Connecting-IP") ?? "unknown-client";
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: client });
  if (!success) {
    throw new ApiError("rate_limited", "Too many requests from this client; try again in a minute.", {
      headers: { "Retry-After": "60" },
    });
  }
  await next();
  // On the response itself: c.header() after the handler would copy the whole response.
  if (c.res.status === 200) c.res.headers.set("Cache-Control", `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`);
});
