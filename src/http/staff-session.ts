import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sha256Hex } from "../credentials/tokens";
import type { Database } from "../db/client";
import { endStaffSession, findStaffSession, touchStaffSession } from "../db/queries/staff-sessions";
import { assessSession } from "../engines/sessions/session-expiry";
import { describeError, logEvent } from "../lib/log";
import type { AppEnv } from "./app-env";
import { assertOrgInStanding } from "./org-standing";

/** Sent as `__Host-session`: the prefix makes the browser insist on Secure, Path=/ and no Domain. */
const SESSION_COOKIE = "session";
const SESSION_ID_PATTERN = /^[0-9A-Za-z]{43}$/;
const SESSION_COOKIE_OPTIONS = { prefix: "host", path: "/", secure: true, httpOnly: true, sameSite: "Lax" } as const;

/** Whether the request carries a session cookie at all (well-formed or not). */
export const hasSessionCookie = (c: Context<AppEnv>) => getCookie(c, SESSION_COOKIE, "host") !== undefined;

export async function sessionIdHashFromCookie(c: Context<AppEnv>): Promise<string | null> {
  const raw = getCookie(c, SESSION_COOKIE, "host");
  return raw && SESSION_ID_PATTERN.test(raw) ? sha256Hex(raw) : null;
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

/** The live session behind the cookie, or null. A lapsed session is deleted when it is seen. */
export async function resolveSession(c: Context<AppEnv>, nowMs: number) {
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

export function setSessionCookie(c: Context<AppEnv>, rawId: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, rawId, { ...SESSION_COOKIE_OPTIONS, maxAge: maxAgeSeconds });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
}
