import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { brokerTokenCache } from "../credentials/credential-cache";
import { BROKER_TOKEN_PREFIX, sha256Hex } from "../credentials/tokens";
import type { Database } from "../db/client";
import { findActiveBrokerTokenByHash } from "../db/queries/credentials";
import { endStaffSession, findStaffSession, touchStaffSession } from "../db/queries/staff-sessions";
import { assessSession } from "../engines/sessions/session-expiry";
import { describeError, logEvent } from "../lib/log";
import type { AppEnv, KeyManager } from "./app-env";
import { SERVICE_MODE_HEADER } from "./auth";
import { isJsonContentType, METHODS_WITH_BODY } from "./body";
import { assertCredentialLookupAllowed, clientAddress, countFailedCredentialLookup, credentialFloodResponse } from "./credential-failures";
import { ApiError, documentedError, unauthorized } from "./errors";
import { IDEMPOTENCY_CORS } from "./idempotency";
import { assertOrgInStanding } from "./org-standing";

/** Sent as `__Host-session`: the prefix makes the browser insist on Secure, Path=/ and no Domain. */
export const SESSION_COOKIE = "session";
const SESSION_ID_PATTERN = /^[0-9A-Za-z]{43}$/;
const BROKER_TOKEN_PATTERN = new RegExp(`^${BROKER_TOKEN_PREFIX}[0-9A-Za-z]{40}$`);

function isAllowedOrigin(c: Context<AppEnv>, origin: string | undefined): origin is string {
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
  if (!isAllowedOrigin(c, c.req.header("Origin"))) return next();
  return credentialedCors(c, next);
});

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for writes that a cookie authenticates. A cross-site page can send a form-encoded
 * or text/plain POST without a preflight, and Hono's csrf() does not look at JSON, so both the
 * content type and the Origin are checked here; requests without an Origin are refused too.
 */
function assertCookieWriteAllowed(c: Context<AppEnv>): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  if (METHODS_WITH_BODY.has(c.req.method) && !isJsonContentType(c.req.header("Content-Type"))) {
    throw new ApiError("forbidden", "Session-authenticated writes must be sent as Content-Type: application/json.");
  }
  if (!isAllowedOrigin(c, c.req.header("Origin"))) {
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

export async function sessionIdHashFromCookie(c: Context<AppEnv>): Promise<string | null> {
  const raw = getCookie(c, SESSION_COOKIE, "host");
  return raw && SESSION_ID_PATTERN.test(raw) ? sha256Hex(raw) : null;
}

/** The live session behind the cookie, or null. A lapsed session is deleted when it is seen. */
async function resolveSession(c: Context<AppEnv>, nowMs: number) {
  const idHash = await sessionIdHashFromCookie(c);
  if (!idHash) return null;
  const db = c.get("db");
  const session = await findStaffSession(db, idHash);
  if (!session) return null;
  const verdict = assessSession(session, nowMs);
  if (!verdict.valid) {
    await endStaffSession(db, idHash);
    return null;
  }
  assertOrgInStanding(session.org, nowMs);
  if (verdict.touch) await keepSessionAlive(db, session.orgId, idHash, nowMs);
  return session;
}

/** The active broker token of an `Authorization: Bearer <broker token>` header, or a 401. */
export async function brokerTokenFromAuthorization(c: Context<AppEnv>, authorization: string) {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (!token || !BROKER_TOKEN_PATTERN.test(token)) {
    throw unauthorized(`The Authorization header must be "Bearer <broker token>" with a ${BROKER_TOKEN_PREFIX} token.`);
  }
  const nowMs = Date.now();
  const hash = await sha256Hex(token);
  // Looked up once a minute per isolate, as `lak_` keys are (src/http/auth.ts): a revocation reaches
  // other isolates within the cache's 60 s (docs/consistency.md).
  const record = await brokerTokenCache.get(hash, nowMs, () => {
    assertCredentialLookupAllowed(c, nowMs);
    return findActiveBrokerTokenByHash(c.get("db"), hash);
  });
  if (!record) {
    await countFailedCredentialLookup(c, nowMs);
    throw unauthorized("This broker token is unknown or has been revoked.");
  }
  // Before the standing check, so a sandbox's `sandbox_expired` is marked too (docs/sandboxes.md).
  c.header(SERVICE_MODE_HEADER, record.org.isSandbox ? "test" : "live");
  assertOrgInStanding(record.org, nowMs);
  return record;
}

/**
 * Pushes the idle clock forward, best effort: if the write fails the request is still answered,
 * and the next request a minute on tries again (the session lapses only after 30 idle minutes).
 */
async function keepSessionAlive(db: Database, orgId: string, idHash: string, nowMs: number): Promise<void> {
  try {
    await touchStaffSession(db, orgId, idHash, new Date(nowMs).toISOString());
  } catch (err) {
    logEvent("warn", { event: "session_touch_failed", org_id: orgId, ...describeError(err) });
  }
}

/** A sandbox's key management is marked like its keys' answers (docs/sandboxes.md). */
async function nextMarkingMode(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
  await next();
  c.res.headers.set(SERVICE_MODE_HEADER, c.get("keyManager").isSandbox ? "test" : "live");
}

/**
 * Key management accepts either credential. `Authorization: Bearer <broker token>` wins when
 * present and is not subject to the Origin rule (no browser sends it on its own); otherwise the
 * staff session cookie, under the CSRF rules. Both resolve to the organization they belong to.
 */
export const requireStaffOrBroker = createMiddleware<AppEnv>(async (c, next) => {
  const authorization = c.req.header("Authorization");
  if (authorization !== undefined) {
    const record = await brokerTokenFromAuthorization(c, authorization);
    c.set("keyManager", { kind: "broker", tokenId: record.id, orgId: record.orgId, isSandbox: record.org.isSandbox });
    return nextMarkingMode(c, next);
  }

  // Checked before the session is looked up, so a forged request does not even keep it alive.
  if (getCookie(c, SESSION_COOKIE, "host") !== undefined) assertCookieWriteAllowed(c);
  const session = await resolveSession(c, Date.now());
  if (!session) {
    throw unauthorized("Log in with POST /api/auth/login, or send Authorization: Bearer <broker token>.");
  }
  c.set("keyManager", { kind: "staff", userId: session.userId, orgId: session.orgId, isSandbox: session.org.isSandbox });
  return nextMarkingMode(c, next);
});

/** The errors `requireStaffOrBroker` answers, for the OpenAPI document of every route behind it. */
export const staffOrBrokerErrors = {
  401: documentedError("No session cookie or broker token, or an expired session, or an unknown or revoked broker token (`unauthorized`)."),
  403: documentedError(
    "A cookie-authenticated write without `Content-Type: application/json` or from an Origin not allowed (`forbidden`); the organization is suspended (`organization_suspended`) or a sandbox past its expiry (`sandbox_expired`).",
  ),
  ...credentialFloodResponse,
  500: documentedError("Unexpected server error (`internal_error`)."),
} as const;

export const staffOrBrokerSecurity: Record<string, string[]>[] = [{ StaffSession: [] }, { BrokerToken: [] }];

/** Who did it, as key rows (`created_by`) and the settings audit log record it: `staff:<user id>` or `broker:<token id>`. */
export const managerActor = (manager: KeyManager) => (manager.kind === "staff" ? `staff:${manager.userId}` : `${manager.kind}:${manager.tokenId}`);

/** Every login attempt costs real scrypt CPU, so attempts are capped per client address. */
export const limitLoginAttempts = createMiddleware<AppEnv>(async (c, next) => {
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: `login:${clientAddress(c)}` });
  if (!success) {
    throw new ApiError("rate_limited", "Too many login attempts from this client; try again in a minute.", { headers: { "Retry-After": "60" } });
  }
  await next();
});

const SESSION_COOKIE_OPTIONS = { prefix: "host", path: "/", secure: true, httpOnly: true, sameSite: "Lax" } as const;

export function setSessionCookie(c: Context<AppEnv>, rawId: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, rawId, { ...SESSION_COOKIE_OPTIONS, maxAge: maxAgeSeconds });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
}
