/**
 * Signals from the store's own data (docs/domain/invariants.md#signals-from-the-stores-own-data):
 * the own-outcomes tightening detector and the feeds' freshness, over generated decision histories
 * and deliveries, run through the engines themselves.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DAY_MS, isoDay } from "../../../src/engines/dates";
import { dataAsOf, type StoreFeed } from "../../../src/engines/freshness";
import {
  detectOutcomeShifts,
  fisherLowerTail,
  type OutcomeDecision,
  type OutcomeDecisionKind,
  type OutcomeSettings,
} from "../../../src/engines/lender-routing/outcome-shift";
import { holds } from "./check";

const NOW = new Date("2026-11-29T05:00:00Z");
/** The shipped row of `lender_outcome_settings` (migration 0033). */
const SETTINGS: OutcomeSettings = { recentDays: 30, baselineDays: 180, alpha: 0.01, recoveryP: 0.2, minRecentDecisions: 5 };

/** `approved` approvals of `total` decisions, `daysBack` days before NOW (the rest countered or declined). */
function decisions(total: number, approved: number, daysBack: (i: number) => number, other: OutcomeDecisionKind = "declined"): OutcomeDecision[] {
  return Array.from({ length: total }, (_, i) => ({
    storeId: "sto_1",
    programId: "lp_1",
    submittedOn: isoDay(NOW.getTime() - daysBack(i) * DAY_MS),
    decision: i < approved ? "approved" : other,
    stipsAsked: 2,
    turnaroundHours: null,
    fundingDays: null,
  }));
}
/** A history: `base` decisions in the baseline (days 31–209 back), `recent` in the last 30 days. */
const history = (base: { n: number; a: number }, recent: { n: number; a: number }) => [
  ...decisions(base.n, base.a, (i) => 31 + (i % 179)),
  ...decisions(recent.n, recent.a, (i) => i % 30),
];

const countsArb = (max: number) => fc.integer({ min: 0, max }).chain((n) => fc.record({ n: fc.constant(n), a: fc.integer({ min: 0, max: n }) }));

describe("the own-outcomes detector (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions)", () => {
  it("a recent approval rate at or above the baseline's never opens an episode", () => {
    holds(
      fc.property(countsArb(120), countsArb(60), (base, recent) => {
        fc.pre(base.n > 0 && recent.n > 0 && recent.a * base.n >= base.a * recent.n);
        expect(detectOutcomeShifts(history(base, recent), [], SETTINGS, NOW).opened).toEqual([]);
      }),
    );
  });

  it("fewer recent decisions than the minimum never open or close an episode, whatever they are", () => {
    holds(
      fc.property(countsArb(120), countsArb(SETTINGS.minRecentDecisions - 1), fc.boolean(), (base, recent, open) => {
        const episodes = open
          ? [{ id: "loe_1", storeId: "sto_1", programId: "lp_1", before: { decisions: base.n, approved: base.a, approval_rate: null } }]
          : [];
        expect(detectOutcomeShifts(history(base, recent), episodes, SETTINGS, NOW)).toEqual({ opened: [], recovered: [] });
      }),
    );
  });

  it("an open episode is never opened again: a program has one episode until it recovers", () => {
    holds(
      fc.property(countsArb(120), countsArb(60), (base, recent) => {
        const episode = { id: "loe_1", storeId: "sto_1", programId: "lp_1", before: { decisions: base.n, approved: base.a, approval_rate: null } };
        expect(detectOutcomeShifts(history(base, recent), [episode], SETTINGS, NOW).opened).toEqual([]);
      }),
    );
  });

  it("an episode opens exactly when the one-sided Fisher p is at or under alpha", () => {
    holds(
      fc.property(countsArb(120), countsArb(60), (base, recent) => {
        fc.pre(recent.n >= SETTINGS.minRecentDecisions);
        const { opened } = detectOutcomeShifts(history(base, recent), [], SETTINGS, NOW);
        expect(opened.length === 1).toBe(fisherLowerTail(recent.a, recent.n, base.a, base.n) <= SETTINGS.alpha);
      }),
    );
  });

  it("an open episode recovers exactly when the recent window against its own baseline gives p over recovery_p", () => {
    holds(
      fc.property(countsArb(120), countsArb(60), (base, recent) => {
        fc.pre(recent.n >= SETTINGS.minRecentDecisions);
        const episode = { id: "loe_1", storeId: "sto_1", programId: "lp_1", before: { decisions: base.n, approved: base.a, approval_rate: null } };
        const { recovered } = detectOutcomeShifts(history({ n: 0, a: 0 }, recent), [episode], SETTINGS, NOW);
        expect(recovered.length === 1).toBe(fisherLowerTail(recent.a, recent.n, base.a, base.n) > SETTINGS.recoveryP);
      }),
    );
  });

  it("one more recent decline never takes away the evidence, one more recent approval never adds to it", () => {
    holds(
      fc.property(countsArb(120), countsArb(60), (base, recent) => {
        const p = fisherLowerTail(recent.a, recent.n, base.a, base.n);
        expect(fisherLowerTail(recent.a, recent.n + 1, base.a, base.n)).toBeLessThanOrEqual(p + 1e-12);
        expect(fisherLowerTail(recent.a + 1, recent.n + 1, base.a, base.n)).toBeGreaterThanOrEqual(p - 1e-12);
      }),
    );
  });

  it("a counter-offer counts against approval like a decline, and the figures say how many were counters", () => {
    holds(
      fc.property(countsArb(120), countsArb(60), (base, recent) => {
        fc.pre(recent.n >= SETTINGS.minRecentDecisions);
        const declined = detectOutcomeShifts(history(base, recent), [], SETTINGS, NOW).opened;
        const countered = [...decisions(base.n, base.a, (i) => 31 + (i % 179)), ...decisions(recent.n, recent.a, (i) => i % 30, "countered")];
        const withCounters = detectOutcomeShifts(countered, [], SETTINGS, NOW).opened;
        expect(withCounters.map((s) => s.p_value)).toEqual(declined.map((s) => s.p_value));
        for (const s of withCounters) expect(s.after.counter_rate).toBeCloseTo((recent.n - recent.a) / recent.n, 4);
      }),
    );
  });
});

describe("the feeds' freshness (docs/ingestion.md#when-a-feed-stops)", () => {
  const store = (inventoryStaleHours: number, dealsStaleHours: number) => ({ id: "sto_1", name: "North", inventoryStaleHours, dealsStaleHours });

  it("a feed is stale exactly when older than its store's threshold, and then, only then, the answer warns", () => {
    holds(
      fc.property(
        fc.integer({ min: 1, max: 720 }),
        fc.integer({ min: 1, max: 720 }),
        fc.integer({ min: 0, max: 2000 * 60 }),
        fc.constantFrom<StoreFeed>("inventory", "deals"),
        (inventoryHours, dealsHours, ageMinutes, feed) => {
          const receivedAt = new Date(NOW.getTime() - ageMinutes * 60_000).toISOString();
          const [entry] = dataAsOf([store(inventoryHours, dealsHours)], [{ storeId: "sto_1", feed, receivedAt }], [feed], NOW);
          const threshold = feed === "inventory" ? inventoryHours : dealsHours;
          expect(entry.stale).toBe(ageMinutes > threshold * 60);
          expect(entry.warning !== null).toBe(entry.stale);
          expect(entry.as_of).toBe(receivedAt);
        },
      ),
    );
  });

  it("exactly at the threshold a feed is still fresh; a minute past it, stale", () => {
    const at = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
    const entries = dataAsOf([store(24, 72)], [{ storeId: "sto_1", feed: "inventory", receivedAt: at(24 * 60) }], ["inventory"], NOW);
    expect(entries[0].stale).toBe(false);
    expect(dataAsOf([store(24, 72)], [{ storeId: "sto_1", feed: "inventory", receivedAt: at(24 * 60 + 1) }], ["inventory"], NOW)[0].stale).toBe(true);
  });

  it("a store with no delivery recorded is never called stale, and says it has no date", () => {
    holds(
      fc.property(fc.integer({ min: 1, max: 720 }), fc.constantFrom<StoreFeed>("inventory", "deals"), (hours, feed) => {
        expect(dataAsOf([store(hours, hours)], [], [feed], NOW)).toEqual([
          { store_id: "sto_1", feed, as_of: null, age_hours: null, stale_after_hours: hours, stale: false, warning: null },
        ]);
      }),
    );
  });
});
