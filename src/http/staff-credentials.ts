import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv, OrgManager } from "./app-env";
import { SERVICE_MODE_HEADER } from "./auth";
import { brokerTokenFromAuthorization } from "./broker-token";
import { unauthorized } from "./errors";
import { assertCookieWriteAllowed } from "./staff-csrf";
import { hasSessionCookie, resolveSession } from "./staff-session";

/** A sandbox's key management is marked like its keys' answers (docs/sandboxes.md). */
async function nextMarkingMode(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
  await next();
  c.res.headers.set(SERVICE_MODE_HEADER, c.get("orgManager").isSandbox ? "test" : "live");
}

/**
 * Key management and settings accept either credential. `Authorization: Bearer <broker token>`
 * wins when present and is not subject to the Origin rule (no browser sends it on its own);
 * otherwise the staff session cookie, under the CSRF rules. Both resolve to the organization they
 * belong to.
 */
export const requireStaffOrBroker = createMiddleware<AppEnv>(async (c, next) => {
  const authorization = c.req.header("Authorization");
  if (authorization !== undefined) {
    const record = await brokerTokenFromAuthorization(c, authorization);
    c.set("orgManager", { kind: "broker", tokenId: record.id, orgId: record.orgId, isSandbox: record.org.isSandbox });
    return nextMarkingMode(c, next);
  }

  // Checked before the session is looked up, so a forged request does not even keep it alive.
  if (hasSessionCookie(c)) assertCookieWriteAllowed(c);
  const session = await resolveSession(c, Date.now());
  if (!session) {
    throw unauthorized("Log in with POST /api/auth/login, or send Authorization: Bearer <broker token>.");
  }
  c.set("orgManager", {
    kind: "staff",
    userId: session.userId,
    orgId: session.orgId,
    isSandbox: session.org.isSandbox,
  });
  return nextMarkingMode(c, next);
});

/** Who did it, as key rows (`created_by`) and the settings audit log record it: `staff:<user id>`, `broker:<token id>` or `operator:<token id>`. */
export const managerActor = (manager: OrgManager) => (manager.kind === "staff" ? `staff:${manager.userId}` : `${manager.kind}:${manager.tokenId}`);
