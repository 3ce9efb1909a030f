import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCount, formatUsd, formatUsdCents, formatWholeUsd } from "../../src/engines/format";

describe("money and counts in answers", () => {
  it("writes dollars with thousands separators, cents only when there are any, and the sign before the $", () => {
    expect(formatUsd(1234)).toBe("$1,234");
    expect(formatUsd(1234.5)).toBe("$1,234.50");
    expect(formatUsd(1234567.891)).toBe("$1,234,567.89");
    expect(formatUsd(0.05)).toBe("$0.05");
    expect(formatUsd(-80)).toBe("-$80");
    expect(formatUsd(-80.5)).toBe("-$80.50");
    expect(formatUsd(-1234.56)).toBe("-$1,234.56");
    expect(formatUsd(0)).toBe("$0");
    expect(formatUsd(-0.001)).toBe("$0");
    expect(formatUsd(999.999)).toBe("$1,000");
  });

  it("writes a price per unit with its cents even when whole", () => {
    expect(formatUsdCents(3.5)).toBe("$3.50");
    expect(formatUsdCents(4)).toBe("$4.00");
    expect(formatUsdCents(3.456)).toBe("$3.46");
    expect(formatUsdCents(1234.5)).toBe("$1,234.50");
  });

  it("rounds to the dollar half away from zero, and never writes -$0", () => {
    expect(formatWholeUsd(1234.5)).toBe("$1,235");
    expect(formatWholeUsd(1234.49)).toBe("$1,234");
    expect(formatWholeUsd(-570.4)).toBe("-$570");
    expect(formatWholeUsd(-570.5)).toBe("-$571");
    expect(formatWholeUsd(-12345.6)).toBe("-$12,346");
    expect(formatWholeUsd(-0.4)).toBe("$0");
  });

  it("writes counts with thousands separators", () => {
    expect(formatCount(999)).toBe("999");
    expect(formatCount(12345)).toBe("12,345");
    expect(formatCount(1_000_000)).toBe("1,000,000");
  });

  it("reads back to the same number of cents for every amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }), (cents) => {
        const text = formatUsd(cents / 100);
        expect(text).toMatch(/^-?\$\d{1,3}(,\d{3})*(\.\d{2})?$/);
        expect(Math.round(Number(text.replace(/[$,]/g, "")) * 100)).toBe(cents);
        expect(text.includes(".")).toBe(cents % 100 !== 0);
      }),
    );
  });
});
