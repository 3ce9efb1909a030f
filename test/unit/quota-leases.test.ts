import { describe, expect, it } from "vitest";
import { REVOCATION_WINDOW_MS } from "../../src/credentials/credential-cache";
import { DAY_MS } from "../../src/engines/dates";
import { acquire, type CounterState, MAX_LEASE } from "../../src/engines/quota/policy";
import { IN_STANDING, type KeyStanding, refusalOf, withEnd } from "../../src/engines/quota/standing";
import { LeaseTable } from "../../src/http/quota";

const MIDNIGHT = Date.UTC(2031, 0, 1);

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The counter's own arithmetic in memory (src/durable-objects/quota-counter.ts), answering after a turn of the event loop like an RPC. */
function fakeCounter(limit: number) {
  let state: CounterState | undefined;
  let standing: KeyStanding = IN_STANDING;
  const calls: { nowMs: number; requested: number; granted: number }[] = [];
  const acquireAt = (nowMs: number) => async (requested: number) => {
    await tick();
    const result = acquire(state, limit, nowMs, refusalOf(standing, nowMs) === null ? requested : 0);
    state = result.state;
    calls.push({ nowMs, requested, granted: result.grant.granted });
    return { ...result.grant, standing };
  };
  const tell = (told: (before: KeyStanding) => KeyStanding) => {
    standing = told(standing);
  };
  return { calls, acquireAt, tell, used: () => state?.used ?? 0 };
}

/** Stands in for `ctx.waitUntil`. */
function backgroundWork() {
  const pending: Promise<unknown>[] = [];
  return { background: (work: Promise<unknown>) => void pending.push(work), settled: () => Promise.allSettled(pending) };
}

/** A lease table that has served five requests at `nowMs`, each followed by its background lease. */
async function afterFiveRequests(limit: number, nowMs: number) {
  const counter = fakeCounter(limit);
  const work = backgroundWork();
  const leases = new LeaseTable();
  for (let i = 0; i < 5; i++) {
    await leases.take("key", limit, nowMs, counter.acquireAt(nowMs), work.background);
    await work.settled();
  }
  return { counter, work, leases };
}

describe("LeaseTable", () => {
  it("serves steady concurrent traffic on a large quota with about one counter call per lease", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    const work = backgroundWork();
    const leases = new LeaseTable();
    let admitted = 0;
    // Each request then does its own work for about as long as a call to the counter takes.
    const serve = async (nowMs: number) => {
      const decision = await leases.take("key", limit, nowMs, counter.acquireAt(nowMs), work.background);
      await tick();
      return decision;
    };
    for (let wave = 0; wave < 200; wave++) {
      const decisions = await Promise.all(Array.from({ length: 10 }, () => serve(MIDNIGHT + wave)));
      admitted += decisions.filter((d) => d.admitted).length;
    }
    await work.settled();
    expect(admitted).toBe(2_000);
    // Leases grow from one request while singles cover the rest; once grown, every call is a full lease.
    expect(counter.calls.length).toBeLessThan(100);
    expect(counter.calls.slice(-4).map((c) => c.granted)).toEqual(Array(4).fill(MAX_LEASE));
    // What the counter has counted but nobody has used yet: at most half a lease plus a new one.
    expect(counter.used() - admitted).toBeLessThanOrEqual(MAX_LEASE * 1.5);
  });

  it("reports what remains from the counter's last count plus the tokens still held", async () => {
    const limit = 1_000_000;
    const { counter, work, leases } = await afterFiveRequests(limit, MIDNIGHT + 1);
    const held = counter.used() - 5;
    expect(held).toBeGreaterThan(0);
    expect(await leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), work.background)).toEqual({
      admitted: true,
      remaining: limit - counter.used() + held - 1,
    });
  });

  it("drops tokens left from the day before at midnight and asks the counter for the new day", async () => {
    const limit = 1_000_000;
    const { counter, work, leases } = await afterFiveRequests(limit, MIDNIGHT - 10);
    expect(counter.used()).toBeGreaterThan(5);
    const decision = await leases.take("key", limit, MIDNIGHT, counter.acquireAt(MIDNIGHT), work.background);
    expect(counter.calls.at(-1)).toEqual({ nowMs: MIDNIGHT, requested: 1, granted: 1 });
    expect(decision).toEqual({ admitted: true, remaining: limit - 1 });
  });

  it("keeps a request that read the clock just before midnight in the day another request already opened", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    const leases = new LeaseTable();
    const noon = MIDNIGHT + DAY_MS / 2;
    const ignore = () => {};
    await leases.take("key", limit, noon, counter.acquireAt(noon), ignore);
    await leases.take("key", limit, noon, counter.acquireAt(noon), ignore);
    expect(counter.calls.map((c) => c.granted)).toEqual([1, 2]);
    expect(await leases.take("key", limit, MIDNIGHT - 1, counter.acquireAt(MIDNIGHT - 1), ignore)).toEqual({ admitted: true, remaining: limit - 3 });
  });

  it("refuses locally once the counter's count has reached the limit", async () => {
    const counter = fakeCounter(3);
    const leases = new LeaseTable();
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await leases.take("key", 3, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), () => {}));
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false, false, false]);
    expect(decisions[5]).toEqual({ admitted: false, used: 3 });
    expect(counter.calls.length).toBe(3);
  });

  // Every metered call that finds a token pays for no promise (BENCHMARKS.md, "Inside the isolate").
  it("decides a request on a token it holds, or on a spent quota, without a promise", async () => {
    const limit = 1_000_000;
    const { counter, work, leases } = await afterFiveRequests(limit, MIDNIGHT + 1);
    const held = leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), work.background);
    expect(held).not.toBeInstanceOf(Promise);
    expect(held).toMatchObject({ admitted: true });

    // A limit of 1 never leases: the first request asks the counter, and learns the quota is spent.
    const spent = fakeCounter(1);
    const small = new LeaseTable();
    const asked = small.take("key", 1, MIDNIGHT + 1, spent.acquireAt(MIDNIGHT + 1), () => {});
    expect(asked).toBeInstanceOf(Promise);
    expect(await asked).toEqual({ admitted: true, remaining: 0 });
    expect(small.take("key", 1, MIDNIGHT + 1, spent.acquireAt(MIDNIGHT + 1), () => {})).toEqual({ admitted: false, used: 1 });
  });

  it("asks the counter again when the key's limit changes", async () => {
    const counter = fakeCounter(1);
    const leases = new LeaseTable();
    await leases.take("key", 1, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), () => {});
    expect((await leases.take("key", 1, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), () => {})).admitted).toBe(false);
    const raised = fakeCounter(2);
    await raised.acquireAt(MIDNIGHT + 1)(1);
    expect(await leases.take("key", 2, MIDNIGHT + 1, raised.acquireAt(MIDNIGHT + 1), () => {})).toEqual({ admitted: true, remaining: 0 });
  });

  it("fails a request whose own call to the counter fails, and only hands a failed lease ahead of need to the background", async () => {
    const limit = 1_000_000;
    const leases = new LeaseTable();
    const failing = async (): Promise<never> => {
      throw new Error("unreachable");
    };
    await expect(leases.take("key", limit, MIDNIGHT + 1, failing, () => {})).rejects.toThrow("unreachable");

    const counter = fakeCounter(limit);
    const work = backgroundWork();
    await leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), work.background);
    await leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), work.background);
    expect(await leases.take("key", limit, MIDNIGHT + 1, failing, work.background)).toMatchObject({ admitted: true });
    expect((await work.settled()).map((r) => r.status)).toContain("rejected");
  });

  it("refuses a key from the first answer that says it is revoked, without counting the refusal or asking again", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    counter.tell((s) => withEnd(s, { atMs: MIDNIGHT, reason: "revoked" }));
    const leases = new LeaseTable();
    expect(await leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), () => {})).toEqual({ admitted: false, refusal: "revoked" });
    expect(leases.take("key", limit, MIDNIGHT + 2, counter.acquireAt(MIDNIGHT + 2), () => {})).toEqual({ admitted: false, refusal: "revoked" });
    expect(counter.used()).toBe(0);
    expect(counter.calls.length).toBe(1);
  });

  it("refuses a rotated key at its end, told ahead, to the millisecond", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    counter.tell((s) => withEnd(s, { atMs: MIDNIGHT + 100, reason: "rotated" }));
    const leases = new LeaseTable();
    expect(await leases.take("key", limit, MIDNIGHT + 99, counter.acquireAt(MIDNIGHT + 99), () => {})).toMatchObject({ admitted: true });
    expect(await leases.take("key", limit, MIDNIGHT + 100, counter.acquireAt(MIDNIGHT + 100), () => {})).toEqual({
      admitted: false,
      refusal: "rotated",
    });
  });

  it("spends no token on a standing heard a minute ago or more: the request asks, and hears a revocation", async () => {
    const limit = 1_000_000;
    const { counter, work, leases } = await afterFiveRequests(limit, MIDNIGHT + 1);
    expect(counter.used()).toBeGreaterThan(6);
    counter.tell((s) => withEnd(s, { atMs: MIDNIGHT + 2, reason: "revoked" }));
    // Within the minute the tokens held are spent as before.
    expect(leases.take("key", limit, MIDNIGHT + REVOCATION_WINDOW_MS, counter.acquireAt(MIDNIGHT + REVOCATION_WINDOW_MS), () => {})).toMatchObject({
      admitted: true,
    });
    const late = MIDNIGHT + 1 + REVOCATION_WINDOW_MS;
    const asked = leases.take("key", limit, late, counter.acquireAt(late), work.background);
    expect(asked).toBeInstanceOf(Promise);
    expect(await asked).toEqual({ admitted: false, refusal: "revoked" });
  });

  it("refuses while the organization is suspended and admits again once reinstated and heard", async () => {
    const limit = 1_000_000;
    const counter = fakeCounter(limit);
    counter.tell((s) => ({ ...s, suspendedAt: "2031-01-01T00:00:00.000Z" }));
    const leases = new LeaseTable();
    expect(await leases.take("key", limit, MIDNIGHT + 1, counter.acquireAt(MIDNIGHT + 1), () => {})).toEqual({
      admitted: false,
      refusal: "suspended",
    });
    counter.tell((s) => ({ ...s, suspendedAt: null }));
    // Heard a minute ago: this isolate asks again and hears the reinstatement; its refusals were never counted as a spent quota.
    const later = MIDNIGHT + 1 + REVOCATION_WINDOW_MS;
    expect(leases.take("key", limit, later - 1, counter.acquireAt(later - 1), () => {})).toEqual({ admitted: false, refusal: "suspended" });
    expect(await leases.take("key", limit, later, counter.acquireAt(later), () => {})).toEqual({ admitted: true, remaining: limit - 1 });
    expect(await leases.take("key", limit, later, counter.acquireAt(later), () => {})).toMatchObject({ admitted: true });
  });
});
