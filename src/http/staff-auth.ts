import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { verifyPassword } from "../credentials/password";
import { BROKER_TOKEN_PREFIX, randomBase62, sha256Hex } from "../credentials/tokens";
import { findActiveBrokerTokenByHash } from "../db/queries/credentials";
import { endStaffSession, findStaffSession, findStaffUserByEmail, startStaffSession, touchStaffSession } from "../db/queries/staff-sessions";
import {
  SESSION_IDLE_TIMEOUT_MS,
  assessSession,
  newSessionTimes,
  sessionCookieMaxAgeSeconds,
} from "../engines/sessions/session-expiry";
import type { AppEnv } from "./app-env";
import { isJsonContentType, METHODS_WITH_BODY } from "./body";
import { ApiError, unauthorized } from "./errors";

/** Sent as `__Host-session`: the prefix makes the browser insist on Secure, Path=/ and no Domain. */
export const SESSION_COOKIE = "session";
const SESSION_ID_LENGTH = 43; // 43 base62 characters ≈ 256 bits
const SESSION_ID_PATTERN = /^[0-9A-Za-z]{43}$/;
const BROKER_TOKEN_PATTERN = new RegExp(`^${BROKER_TOKEN_PREFIX}[0-9A-Za-z]{40}$`);

/**
 * Verified when the email is unknown, so that answer costs the same scrypt work as a wrong
 * password. Its parameters must match DEFAULT_PARAMS in credentials/password.ts (a test checks).
 */
export const DUMMY_PASSWORD_HASH = "scrypt$16384$8$5$rjWoz+SRplbS67JGahjORA==$nWeHNJcztMeDStHqVSf7sXSNVo+1m6hgqvBgUsNXTFo=";

/** Who is managing an organization's keys: a logged-in staff member, or a broker token bound to it. */
export type KeyManager = { kind: "staff"; userId: string; orgId: string } | { kind: "broker"; tokenId: string; orgId: string };

declare module "./app-env" {
  interface AppVariables {
    keyManager: KeyManager;
  }
}


function isAllowedOrigin(env: Env, origin: string | undefined): origin is string {
  if (!origin) return false;
  return env.STAFF_ALLOWED_ORIGINS.split(",").some((allowed) => allowed.trim() === origin);
}

const credentialedCors = cors({
  origin: (origin) => origin,
  credentials: true,
  allowMethods: ["GET", "POST", "DELETE"],
  allowHeaders: ["Content-Type", "Authorization"],
  exposeHeaders: ["X-Request-Id"],
  maxAge: 600,
});

/**
 * CORS for the staff and key-management routes, separate from the open public policy: only the
 * configured origins, with credentials. Other origins get no CORS headers at all, so
 * `Access-Control-Allow-Credentials` is never sent to them.
 */
export const staffCors = createMiddleware<AppEnv>(async (c, next) => {
  if (!isAllowedOrigin(c.env, c.req.header("Origin"))) return next();
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
  if (!isAllowedOrigin(c.env, c.req.header("Origin"))) {
    throw new ApiError("forbidden", "Session-authenticated writes must come from an allowed Origin.");
  }
}

/** Answers writes that carry a session cookie only when they pass the CSRF rules. */
export const sameOriginStaffWrite = createMiddleware<AppEnv>(async (c, next) => {
  assertCookieWriteAllowed(c);
  await next();
});

async function sessionIdHashFromCookie(c: Context<AppEnv>): Promise<string | null> {
  const raw = getCookie(c, SESSION_COOKIE, "host");
  return raw && SESSION_ID_PATTERN.test(raw) ? sha256Hex(raw) : null;
}

/** The live session behind the cookie, or null. A lapsed session is deleted when it is seen. */
async function resolveSession(c: Context<AppEnv>, nowMs: number) {
  const idHash = await sessionIdHashFromCookie(c);
  if (!idHash) return null;
  const db = c.var.db;
  const session = await findStaffSession(db, idHash);
  if (!session) return null;
  const verdict = assessSession(session, nowMs);
  if (!verdict.valid) {
    await endStaffSession(db, idHash);
    return null;
  }
  if (verdict.touch) await touchStaffSession(db, session.orgId, idHash, new Date(nowMs).toISOString());
  return session;
}

/**
 * Key management accepts either credential. `Authorization: Bearer <broker token>` wins when
 * present and is not subject to the Origin rule (no browser sends it on its own); otherwise the
 * staff session cookie, under the CSRF rules. Both resolve to the organization they belong to.
 */
export const requireStaffOrBroker = createMiddleware<AppEnv>(async (c, next) => {
  const authorization = c.req.header("Authorization");
  if (authorization !== undefined) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (!token || !BROKER_TOKEN_PATTERN.test(token)) {
      throw unauthorized(`The Authorization header must be "Bearer <broker token>" with a ${BROKER_TOKEN_PREFIX} token.`);
    }
    const record = await findActiveBrokerTokenByHash(c.var.db, await sha256Hex(token));
    if (!record) throw unauthorized("This broker token is unknown or has been revoked.");
    c.set("keyManager", { kind: "broker", tokenId: record.id, orgId: record.orgId });
    return next();
  }

  // Checked before the session is looked up, so a forged request does not even keep it alive.
  if (getCookie(c, SESSION_COOKIE, "host") !== undefined) assertCookieWriteAllowed(c);
  const session = await resolveSession(c, Date.now());
  if (!session) {
    throw unauthorized("Log in with POST /api/auth/login, or send Authorization: Bearer <broker token>.");
  }
  c.set("keyManager", { kind: "staff", userId: session.userId, orgId: session.orgId });
  return next();
});

/** Every login attempt costs real scrypt CPU, so attempts are capped per client address. */
export const limitLoginAttempts = createMiddleware<AppEnv>(async (c, next) => {
  const client = c.req.header("CF-Connecting-IP") ?? "unknown-client";
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: `login:${client}` });
  if (!success) {
    throw new ApiError("rate_limited", "Too many login attempts from this client; try again in a minute.", { headers: { "Retry-After": "60" } });
  }
  await next();
});

/**
 * Checks the password (the same scrypt work whether or not the email exists) and starts a new
 * session, replacing the one the browser held, so a session id planted before login is useless.
 */
export async function logIn(c: Context<AppEnv>, email: string, password: string) {
  const { success } = await c.env.LOGIN_RATE_LIMITER.limit({ key: email });
  if (!success) {
    throw new ApiError("rate_limited", "Too many login attempts for this account; try again in a minute.", { headers: { "Retry-After": "60" } });
  }
  const db = c.var.db;
  const user = await findStaffUserByEmail(db, email);
  const passwordOk = await verifyPassword(password, c.env.PASSWORD_PEPPER, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!user || !passwordOk) throw unauthorized("The email or password is incorrect.");

  const nowMs = Date.now();
  const rawId = randomBase62(SESSION_ID_LENGTH);
  const times = newSessionTimes(nowMs);
  await startStaffSession(
    db,
    { idHash: await sha256Hex(rawId), userId: user.id, orgId: user.orgId, ...times },
    { replacesIdHash: (await sessionIdHashFromCookie(c)) ?? undefined, idleCutoff: new Date(nowMs - SESSION_IDLE_TIMEOUT_MS).toISOString() },
  );
  setCookie(c, SESSION_COOKIE, rawId, {
    prefix: "host",
    path: "/",
    secure: true,
    httpOnly: true,
    sameSite: "Lax",
    maxAge: sessionCookieMaxAgeSeconds(times, nowMs),
  });
  return { user, expiresAt: times.expiresAt };
}

/** Ends the cookie's session, if any, and tells the browser to drop the cookie. */
export async function logOut(c: Context<AppEnv>): Promise<void> {
  const idHash = await sessionIdHashFromCookie(c);
  if (idHash) await endStaffSession(c.var.db, idHash);
  deleteCookie(c, SESSION_COOKIE, { prefix: "host", path: "/", secure: true, httpOnly: true, sameSite: "Lax" });
}
