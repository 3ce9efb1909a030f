import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { clientAddress } from "./credential-failures";
import { ApiError } from "./errors";

/** Every login attempt costs real scrypt CPU, so attempts are capped per client address. */
export const limitLoginAttempts = createMiddleware<AppEnv>(async (c, next) => {
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: `login:${clientAddress(c)}` });
  if (!success) {
    throw new ApiError("rate_limited", "Too many login attempts from this client; try again in a minute.", { headers: { "Retry-After": "60" } });
  }
  await next();
});
