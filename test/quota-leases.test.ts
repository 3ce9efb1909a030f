import { describe, expect, it } from "vitest";
import { acquire, type CounterState, DAY_MS, MAX_LEASE } from "../src/engines/quota/policy";
import { LeaseTable } from "../src/http/quota";

const MIDNIGHT = Date.UTC(2031, 0, 1);

/** The counter's own arithmetic in memory, recording what each isolate asked for. */
function fakeCounter(limit: number) {
  let state: CounterState | undefined;
  const calls: { nowMs: number; requested: number; granted: number }[] = [];
  const acquireAt = (nowMs: number) => async (requested: number) => {
    await Promise.resolve();
    const result = acquire(state, limit, nowMs, requested);
    state = result.state;
    calls.push({ nowMs, requested, granted: result.grant.granted });
    return result.grant;
  };
  return { calls, acquireAt, used: () => state?.used ?? 0 };
}

describe("LeaseTable", () => {
  it("serves a burst on a large quota with a few coalesced refills, never one per request", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    const leases = new LeaseTable();
    const decisions = await Promise.all(Array.from({ length: 200 }, () => leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1))));
    expect(decisions.every((d) => d.admitted)).toBe(true);
    expect(counter.calls.length).toBeLessThanOrEqual(6);
    expect(Math.max(...counter.calls.map((c) => c.granted))).toBe(MAX_LEASE);
    expect(counter.used() - 200).toBeLessThan(MAX_LEASE);
  });

  it("reports what remains from the counter's last count plus the tokens still held", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    const leases = new LeaseTable();
    await Promise.all(Array.from({ length: 8 }, () => leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1))));
    const next = await leases.take("key", limit, MIDNIGHT + 2, counter.acquireAt(MIDNIGHT + 2));
    expect(next).toEqual({ admitted: true, remaining: limit - 9 });
  });

  it("drops tokens left from the day before at midnight and asks the counter for the new day", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    const leases = new LeaseTable();
    await Promise.all(Array.from({ length: 20 }, () => leases.take("key", limit, MIDNIGHT - 10, counter.acquireAt(MIDNIGHT - 10))));
    const callsBefore = counter.calls.length;
    const decision = await leases.take("key", limit, MIDNIGHT, counter.acquireAt(MIDNIGHT));
    expect(counter.calls.length).toBe(callsBefore + 1);
    expect(counter.calls.at(-1)?.nowMs).toBe(MIDNIGHT);
    expect(decision).toEqual({ admitted: true, remaining: limit - counter.used() + (counter.calls.at(-1)!.granted - 1) });
    expect(counter.used()).toBeLessThanOrEqual(MAX_LEASE);
  });

  it("keeps a request that read the clock just before midnight in the day another request already opened", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    const leases = new LeaseTable();
    const noon = MIDNIGHT + DAY_MS / 2;
    await leases.take("key", limit, noon, counter.acquireAt(noon));
    await leases.take("key", limit, noon, counter.acquireAt(noon));
    expect(counter.calls.map((c) => c.granted)).toEqual([1, 2]);
    await leases.take("key", limit, MIDNIGHT - 1, counter.acquireAt(MIDNIGHT - 1));
    expect(counter.calls).toHaveLength(2);
  });

  it("refuses locally once the counter's count has reached the limit", async () => {
    const counter = fakeCounter(3);
    const leases = new LeaseTable();
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await leases.take("key", 3, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1)));
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false, false, false]);
    expect(decisions[5]).toEqual({ admitted: false, used: 3 });
    expect(counter.calls.length).toBe(3);
  });

  it("asks the counter again when the key's limit changes", async () => {
    const counter = fakeCounter(1);
    const leases = new LeaseTable();
    await leases.take("key", 1, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1));
    expect((await leases.take("key", 1, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1))).admitted).toBe(false);
    const raised = fakeCounter(2);
    await raised.acquireAt(MIDNIGHT + 1)(1);
    expect(await leases.take("key", 2, MIDNIGHT + 1, raised.acquireAt(MIDNIGHT + 1))).toEqual({ admitted: true, remaining: 0 });
  });

  it("passes a counter failure to every request waiting on the same refill", async () => {
    const leases = new LeaseTable();
    const failing = async () => {
      await Promise.resolve();
      throw new Error("unreachable");
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => leases.take("key", 1_000_000, MIDNIGHT + 1, failing)));
    expect(results.every((r) => r.status === "rejected")).toBe(true);
  });
});
