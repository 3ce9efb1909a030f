/**
 * Staff session lifetime rules. Pure functions of the stored timestamps and `now`, so tests age a
 * row instead of faking timers.
 */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_LIFETIME_MS = 12 * 60 * 60_000;
/** The idle clock is pushed forward at most this often, so a busy session is not a D1 write per request. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

export interface SessionTimes {
  createdAt: string;
  lastSeenAt: string;
  /** The absolute expiry, fixed at login. */
  expiresAt: string;
}

export function newSessionTimes(nowMs: number): SessionTimes {
  const now = new Date(nowMs).toISOString();
  return { createdAt: now, lastSeenAt: now, expiresAt: new Date(nowMs + SESSION_ABSOLUTE_LIFETIME_MS).toISOString() };
}

export type SessionVerdict = { valid: false } | { valid: true; touch: boolean };

export function assessSession(session: SessionTimes, nowMs: number): SessionVerdict {
  const lastSeenMs = Date.parse(session.lastSeenAt);
  // Written as "still inside both limits" so an unparseable timestamp (NaN) fails closed.
  const alive = nowMs < Date.parse(session.expiresAt) && nowMs < lastSeenMs + SESSION_IDLE_TIMEOUT_MS;
  if (!alive) return { valid: false };
  return { valid: true, touch: nowMs - lastSeenMs >= SESSION_TOUCH_INTERVAL_MS };
}

/** When the cookie should stop being sent: the absolute expiry, as the idle limit is enforced server-side. */
export function sessionCookieMaxAgeSeconds(session: SessionTimes, nowMs: number): number {
  return Math.max(0, Math.floor((Date.parse(session.expiresAt) - nowMs) / 1000));
}
