import { describe, expect, it } from "vitest";
import {
  assessSession,
  newSessionTimes,
  SESSION_ABSOLUTE_LIFETIME_MS,
  SESSION_IDLE_TIMEOUT_MS,
  SESSION_TOUCH_INTERVAL_MS,
  sessionCookieMaxAgeSeconds,
} from "../../src/engines/sessions/session-expiry";

const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe("staff session expiry", () => {
  const fresh = newSessionTimes(T0);

  it("states the documented limits once: 30 idle minutes, 12 hours in all, the idle clock written once a minute", () => {
    expect(SESSION_IDLE_TIMEOUT_MS).toBe(30 * 60_000);
    expect(SESSION_ABSOLUTE_LIFETIME_MS).toBe(12 * 3_600_000);
    expect(SESSION_TOUCH_INTERVAL_MS).toBe(60_000);
  });

  it("starts with the absolute expiry one lifetime out, which the cookie's Max-Age matches", () => {
    expect(fresh).toEqual({ createdAt: iso(T0), lastSeenAt: iso(T0), expiresAt: iso(T0 + SESSION_ABSOLUTE_LIFETIME_MS) });
    expect(sessionCookieMaxAgeSeconds(fresh, T0)).toBe(SESSION_ABSOLUTE_LIFETIME_MS / 1000);
  });

  it("is valid and untouched within the touch interval", () => {
    expect(assessSession(fresh, T0 + SESSION_TOUCH_INTERVAL_MS - 1)).toEqual({ valid: true, touch: false });
  });

  it("asks for a touch once the touch interval has passed since last seen", () => {
    expect(assessSession(fresh, T0 + SESSION_TOUCH_INTERVAL_MS)).toEqual({ valid: true, touch: true });
  });

  it("expires after the idle timeout", () => {
    expect(assessSession(fresh, T0 + SESSION_IDLE_TIMEOUT_MS - 1).valid).toBe(true);
    expect(assessSession(fresh, T0 + SESSION_IDLE_TIMEOUT_MS).valid).toBe(false);
  });

  it("expires at the absolute limit however recently it was used", () => {
    const end = T0 + SESSION_ABSOLUTE_LIFETIME_MS;
    const busy = { ...fresh, lastSeenAt: iso(end - 1_000) };
    expect(assessSession(busy, end - 1).valid).toBe(true);
    expect(assessSession(busy, end).valid).toBe(false);
  });

  it("fails closed on an unreadable timestamp", () => {
    expect(assessSession({ ...fresh, lastSeenAt: "garbage" }, T0).valid).toBe(false);
    expect(assessSession({ ...fresh, expiresAt: "" }, T0).valid).toBe(false);
  });
});
