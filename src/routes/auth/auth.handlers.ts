import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { logIn, logOut } from "../../http/staff-auth";
import type { login as loginRoute, logout as logoutRoute } from "./auth.routes";

export const login: RouteHandler<typeof loginRoute, AppEnv> = async (c) => {
  const { email, password } = c.req.valid("json");
  const { user, expiresAt } = await logIn(c, email, password);
  c.header("Cache-Control", "no-store");
  return c.json({ user: { id: user.id, email: user.email, name: user.name }, org_id: user.orgId, expires_at: expiresAt }, 200);
};

export const logout: RouteHandler<typeof logoutRoute, AppEnv> = async (c) => {
  await logOut(c);
  return c.body(null, 204);
};
