import { describe, expect, it } from "vitest";
import { DAY_MS, utcDay } from "../../src/engines/dates";
import {
  acquire,
  type CounterState,
  exactFloor,
  leaseCap,
  MAX_LEASE,
  nextLeaseRequest,
  nextResetMs,
  secondsUntilReset,
  usage,
} from "../../src/engines/quota/policy";
import { IN_STANDING, refusalOf, withEnd } from "../../src/engines/quota/standing";

const MIDNIGHT = Date.UTC(2026, 10, 19);

describe("UTC day arithmetic", () => {
  it("puts the last millisecond before midnight in the old day and midnight itself in the new one", () => {
    expect(utcDay(MIDNIGHT - 1)).toBe(utcDay(MIDNIGHT) - 1);
    expect(nextResetMs(MIDNIGHT - 1)).toBe(MIDNIGHT);
    expect(nextResetMs(MIDNIGHT)).toBe(MIDNIGHT + DAY_MS);
  });

  it("counts whole seconds to the reset, never zero", () => {
    expect(secondsUntilReset(MIDNIGHT - 1)).toBe(1);
    expect(secondsUntilReset(MIDNIGHT - 1500)).toBe(2);
    expect(secondsUntilReset(MIDNIGHT)).toBe(86_400);
  });
});

describe("leaseCap", () => {
  it("grants single requests only for limits at or below the floor", () => {
    for (let used = 0; used < 100; used++) expect(leaseCap(100, used)).toBe(1);
    expect(leaseCap(100, 100)).toBe(0);
    expect(leaseCap(100, 250)).toBe(0);
  });

  it("leases blocks while the quota is large, and single requests within the floor", () => {
    expect(leaseCap(1_000_000, 0)).toBe(MAX_LEASE);
    expect(exactFloor(1_000_000)).toBe(100_000);
    expect(leaseCap(1_000_000, 899_999)).toBe(1);
    expect(leaseCap(1_000_000, 900_000)).toBe(1);
    expect(leaseCap(300, 195)).toBe(1);
  });

  it("keeps a lease within 1% of the limit and 10% of what remains above the floor", () => {
    expect(leaseCap(10_000, 0)).toBe(100);
    expect(leaseCap(1_000, 0)).toBe(10);
    expect(leaseCap(300, 0)).toBe(3);
    expect(leaseCap(1_000_000, 898_000)).toBe(MAX_LEASE);
    expect(leaseCap(1_000_000, 899_000)).toBe(100);
  });
});

describe("acquire", () => {
  it("never grants more than the limit, whatever is asked for and in whatever order", () => {
    for (const limit of [1, 7, 100, 101, 300, 1_000, 25_000]) {
      let state: CounterState | undefined;
      let admitted = 0;
      for (let i = 0; admitted < limit || i < 50; i++) {
        const result = acquire(state, limit, MIDNIGHT + i, 1 + ((i * 37) % 64));
        state = result.state;
        admitted += result.grant.granted;
        expect(result.grant.used).toBe(admitted);
        expect(admitted).toBeLessThanOrEqual(limit);
        if (admitted === limit) break;
      }
      expect(admitted).toBe(limit);
      expect(acquire(state, limit, MIDNIGHT + 99, 1).grant).toMatchObject({ granted: 0, used: limit });
    }
  });

  it("starts a fresh count on the first call of a new UTC day", () => {
    const spent = acquire({ day: utcDay(MIDNIGHT - 1), used: 100, limit: 100 }, 100, MIDNIGHT - 1, 1);
    expect(spent.grant).toEqual({ granted: 0, used: 100, limit: 100, resetAtMs: MIDNIGHT });
    const fresh = acquire(spent.state, 100, MIDNIGHT, 1);
    expect(fresh.grant).toEqual({ granted: 1, used: 1, limit: 100, resetAtMs: MIDNIGHT + DAY_MS });
  });

  it("counts a caller whose clock is behind in the newer day instead of reopening the old one", () => {
    const today = { day: utcDay(MIDNIGHT), used: 5, limit: 100 };
    const late = acquire(today, 100, MIDNIGHT - 10, 1);
    expect(late.state).toEqual({ day: utcDay(MIDNIGHT), used: 6, limit: 100 });
    expect(late.grant.resetAtMs).toBe(MIDNIGHT + DAY_MS);
  });

  it("grants nothing for a request of zero or a nonsensical size", () => {
    expect(acquire(undefined, 100, MIDNIGHT, 0).grant.granted).toBe(0);
    expect(acquire(undefined, 100, MIDNIGHT, Number.NaN).grant.granted).toBe(0);
    expect(acquire(undefined, 100, MIDNIGHT, -3).grant.granted).toBe(0);
  });
});

describe("usage", () => {
  it("reports today's count, and zero once the day has passed", () => {
    const state = { day: utcDay(MIDNIGHT - 1), used: 42, limit: 100 };
    expect(usage(state, MIDNIGHT - 1)).toEqual({ used: 42, limit: 100, resetAtMs: MIDNIGHT });
    expect(usage(state, MIDNIGHT)).toEqual({ used: 0, limit: 100, resetAtMs: MIDNIGHT + DAY_MS });
    expect(usage(undefined, MIDNIGHT)).toEqual({ used: 0, limit: null, resetAtMs: MIDNIGHT + DAY_MS });
  });
});

describe("nextLeaseRequest", () => {
  it("starts at one request and doubles while leases run out within a second", () => {
    expect(nextLeaseRequest(null)).toBe(1);
    expect(nextLeaseRequest({ size: 4, ageMs: 200 })).toBe(8);
    expect(nextLeaseRequest({ size: 160, ageMs: 10 })).toBe(MAX_LEASE);
  });

  it("halves a lease that lasted longer, down to one", () => {
    expect(nextLeaseRequest({ size: 8, ageMs: 5_000 })).toBe(4);
    expect(nextLeaseRequest({ size: 1, ageMs: 5_000 })).toBe(1);
  });
});

describe("a key's standing, as its counter says it", () => {
  const AT = Date.UTC(2031, 0, 1, 12);

  it("refuses an ended key from its end to the millisecond, and says why", () => {
    const revoked = withEnd(IN_STANDING, { atMs: AT, reason: "revoked" });
    expect(refusalOf(revoked, AT - 1)).toBeNull();
    expect(refusalOf(revoked, AT)).toBe("revoked");
    expect(refusalOf(withEnd(IN_STANDING, { atMs: AT, reason: "rotated" }), AT)).toBe("rotated");
    expect(refusalOf(IN_STANDING, AT)).toBeNull();
  });

  it("keeps the earliest end told: a revocation during a rotation's overlap brings it forward, a later end changes nothing", () => {
    const rotated = withEnd(IN_STANDING, { atMs: AT + 1_000, reason: "rotated" });
    const revoked = withEnd(rotated, { atMs: AT, reason: "revoked" });
    expect(revoked.end).toEqual({ atMs: AT, reason: "revoked" });
    expect(withEnd(revoked, { atMs: AT + 5, reason: "rotated" })).toBe(revoked);
    expect(withEnd(revoked, { atMs: AT, reason: "rotated" })).toBe(revoked);
  });

  it("refuses a suspended organization's key, and an ended key as ended even while suspended", () => {
    const suspended = { ...IN_STANDING, suspendedAt: "2031-01-01T11:00:00.000Z" };
    expect(refusalOf(suspended, AT)).toBe("suspended");
    expect(refusalOf(withEnd(suspended, { atMs: AT, reason: "revoked" }), AT)).toBe("revoked");
    expect(refusalOf(withEnd(suspended, { atMs: AT + 1, reason: "revoked" }), AT)).toBe("suspended");
  });
});
