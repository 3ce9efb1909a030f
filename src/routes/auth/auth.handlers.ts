import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { ApiError } from "../../http/errors";
import { clearSessionCookie, sessionIdHashFromCookie, setSessionCookie } from "../../http/staff-session";
import type { logIn as logInRoute, logOut as logOutRoute } from "./auth.routes";
import * as auth from "./auth.service";

export const logIn: RouteHandler<typeof logInRoute, AppEnv> = async (c) => {
  const { email, password } = c.req.valid("json");
  const { success } = await c.env.LOGIN_RATE_LIMITER.limit({ key: email });
  if (!success) {
    throw new ApiError("rate_limited", "Too many login attempts for this account; try again in a minute.", { headers: { "Retry-After": "60" } });
  }
  const session = await auth.logIn(
    c.get("db"),
    c.get("config").passwordPepper,
    { email, password },
    { replacesIdHash: await sessionIdHashFromCookie(c), nowMs: Date.now() },
  );
  setSessionCookie(c, session.rawSessionId, session.cookieMaxAgeSeconds);
  const { user } = session;
  return c.json({ user: { id: user.id, email: user.email, name: user.name }, org_id: user.orgId, expires_at: session.expiresAt }, 200);
};

export const logOut: RouteHandler<typeof logOutRoute, AppEnv> = async (c) => {
  await auth.logOut(c.get("db"), await sessionIdHashFromCookie(c));
  clearSessionCookie(c);
  return c.body(null, 204);
};
