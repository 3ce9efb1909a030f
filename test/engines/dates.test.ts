import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DAY_MS, daysBefore, daysElapsed, daysSince, isoDay, utcDay } from "../../src/engines/dates";

const NOW = new Date("2026-11-26T23:59:59.999Z");

describe("UTC calendar days", () => {
  it("names the UTC day of an instant, as a Date or as epoch ms", () => {
    expect(isoDay(NOW)).toBe("2026-11-26");
    expect(isoDay(NOW.getTime() + 1)).toBe("2026-11-27");
    expect(utcDay(Date.parse("1970-01-02T00:00:00Z"))).toBe(1);
    expect(utcDay(Date.parse("1970-01-01T23:59:59.999Z"))).toBe(0);
  });

  it("counts whole days since a day by the calendar, not by the hour, and never below zero", () => {
    expect(daysSince("2026-11-26", NOW)).toBe(0);
    expect(daysSince("2026-11-25", new Date("2026-11-26T00:00:01Z"))).toBe(1);
    expect(daysSince("2026-10-27", NOW)).toBe(30);
    expect(daysSince("2026-11-27", NOW)).toBe(0);
  });

  it("goes back whole days from an instant, and measures fractional days between instants", () => {
    expect(daysBefore(NOW, 29).toISOString()).toBe("2026-10-28T23:59:59.999Z");
    expect(daysElapsed(NOW.getTime() - 1.5 * DAY_MS, NOW.getTime())).toBe(1.5);
  });

  it("gives back n for the day n days before, for any instant", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.nat(20_000), (ms, n) => {
        const now = new Date(ms);
        expect(daysSince(isoDay(daysBefore(now, n)), now)).toBe(n);
      }),
    );
  });
});
