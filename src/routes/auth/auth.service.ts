import { verifyPassword } from "../../credentials/password";
import { sha256Hex } from "../../credentials/tokens";
import type { Database } from "../../db/client";
import { endStaffSession, findStaffUserByEmail, startStaffSession } from "../../db/queries/staff-sessions";
import { newSessionTimes, SESSION_IDLE_TIMEOUT_MS, sessionCookieMaxAgeSeconds } from "../../engines/sessions/session-expiry";
import { unauthorized } from "../../http/errors";
import { assertOrgInStanding } from "../../http/org-standing";
import { randomBase62 } from "../../lib/ids";

const SESSION_ID_LENGTH = 43; // 43 base62 characters ≈ 256 bits

/**
 * Verified when the email is unknown, so that answer costs the same scrypt work as a wrong
 * password. Its parameters must match DEFAULT_PARAMS in credentials/password.ts (a test checks).
 */
export const DUMMY_PASSWORD_HASH = "scrypt$16384$8$5$rjWoz+SRplbS67JGahjORA==$nWeHNJcztMeDStHqVSf7sXSNVo+1m6hgqvBgUsNXTFo=";

/**
 * Checks the password (the same scrypt work whether or not the email exists) and starts a new
 * session, replacing the one the browser held, so a session id planted before login is useless.
 * Returns the raw session id, which goes into the cookie and nowhere else.
 */
export async function logIn(
  db: Database,
  pepper: string,
  credentials: { email: string; password: string },
  options: { replacesIdHash: string | null; nowMs: number },
) {
  const user = await findStaffUserByEmail(db, credentials.email);
  const passwordOk = await verifyPassword(credentials.password, pepper, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!user || !passwordOk) throw unauthorized("The email or password is incorrect.");
  // Only after the password: the standing of an organization is not told to someone guessing.
  assertOrgInStanding(user.org, options.nowMs);

  const { nowMs } = options;
  const rawSessionId = randomBase62(SESSION_ID_LENGTH);
  const times = newSessionTimes(nowMs);
  await startStaffSession(
    db,
    { idHash: await sha256Hex(rawSessionId), userId: user.id, orgId: user.orgId, ...times },
    { replacesIdHash: options.replacesIdHash ?? undefined, idleCutoff: new Date(nowMs - SESSION_IDLE_TIMEOUT_MS).toISOString() },
  );
  return { user, rawSessionId, expiresAt: times.expiresAt, cookieMaxAgeSeconds: sessionCookieMaxAgeSeconds(times, nowMs) };
}

/** Ends the session, if there is one. */
export async function logOut(db: Database, sessionIdHash: string | null): Promise<void> {
  if (sessionIdHash) await endStaffSession(db, sessionIdHash);
}
