import { describe, expect, it } from "vitest";
import { checkLimits } from "../../scripts/bench/latency/limits";
import { type Call, HOPS, type Hop, isWrite, modelledWaitMs, sequentialRoundTrips } from "../../scripts/bench/latency/model";

const call = (hop: Call["hop"], start: number, end: number): Call => ({ hop, what: "", start, end });

describe("bench:latency's count of sequential round trips", () => {
  it("counts calls one after another each, and calls in flight together once", () => {
    // The credential at the primary, then the counter and a replica read together, then the write.
    const calls = [call("primary", 0, 150), call("durable_object", 150, 175), call("replica", 150, 158), call("primary", 175, 325)];
    expect(sequentialRoundTrips(calls, 330)).toEqual({ primary: 2, replica: 1, durable_object: 1, org_object: 0, queue: 0, cache: 0 });
  });

  it("counts a hop once per wave, however many of its calls the wave holds", () => {
    expect(sequentialRoundTrips([call("replica", 0, 8), call("replica", 0, 8), call("replica", 2, 10)], 10).replica).toBe(1);
  });

  it("leaves out work still running when the Worker answered (a lease refilled ahead of need)", () => {
    const counts = sequentialRoundTrips([call("replica", 0, 8), call("durable_object", 5, 30)], 9);
    expect(counts).toEqual({ primary: 0, replica: 1, durable_object: 0, org_object: 0, queue: 0, cache: 0 });
  });

  it("keeps a wave open until its longest call ends", () => {
    // Two short reads while the write is in flight are not round trips of their own.
    expect(sequentialRoundTrips([call("primary", 0, 150), call("replica", 10, 18), call("replica", 20, 28)], 150)).toMatchObject({
      primary: 1,
      replica: 1,
    });
  });

  it("counts a call that starts as the previous one ends as the next round trip", () => {
    expect(sequentialRoundTrips([call("replica", 0, 8), call("replica", 8, 16)], 16).replica).toBe(2);
  });
});

describe("what the model adds to a request (bench:scale --objects)", () => {
  it("waits for each wave's slowest hop: a replica read beside the object costs the object's round trip alone", () => {
    // The feed of an organization in its object: its page from the object and its age from a replica together.
    expect(modelledWaitMs([call("durable_object", 0, 3), call("replica", 0, 1)], 4)).toBe(25);
    expect(modelledWaitMs([call("primary", 0, 2), call("durable_object", 2, 5), call("primary", 5, 6)], 7)).toBe(325);
  });
});

describe("which statements are writes (they go to the primary whatever the session)", () => {
  it.each([
    ["INSERT INTO compliance_checks (id) VALUES (?)", true],
    ["  update stores set name = ? where id = ?", true],
    ["delete from idempotency_keys where created_at < ?", true],
    ["REPLACE INTO t VALUES (1)", true],
    ["WITH h AS (SELECT 1) INSERT INTO compliance_checks SELECT * FROM h", true],
    ["WITH old AS (SELECT id FROM t) DELETE FROM t WHERE id IN old", true],
    ['select "id", "deleted_at" from "units" where "updated_at" > ?', false],
    ["SELECT count(*) FROM event_outbox", false],
  ])("%s", (sql, write) => {
    expect(isWrite(sql)).toBe(write);
  });
});

describe("bench:latency's limits", () => {
  const warm = (counts: Partial<Record<Hop, number>>) => Object.fromEntries(HOPS.map((hop) => [hop, counts[hop] ?? 0])) as Record<Hop, number>;
  const row = (counts: Partial<Record<Hop, number>>, orgCalls: string[]) => ({ warm: warm(counts), warm_org_calls: orgCalls, first_over_warm_ms: 0 });

  it("holds a warm call to one call of the organization's object, counting calls that overlap", () => {
    expect(checkLimits("inventory_page", row({ org_object: 1 }, ["inventoryPage"]))).toBe("met");
    expect(checkLimits("inventory_page", row({ org_object: 1 }, ["inventoryPage", "storeNames"]))).toBe(
      "**missed**: the organization's object called 2× (inventoryPage, storeNames)",
    );
  });

  it("counts an organization's write as its object's transaction, with at most one primary batch for its events", () => {
    expect(checkLimits("compliance_pass", row({ org_object: 1 }, ["recordCheck"]))).toBe("met");
    expect(checkLimits("compliance_pass", row({ primary: 1, org_object: 1 }, ["recordCheck"]))).toBe("met");
    expect(checkLimits("compliance_pass", row({ primary: 2, org_object: 1 }, ["recordCheck"]))).toContain("2 sequential round trips to the primary");
    // A write that reaches no object (a global table's) makes exactly one round trip to the primary.
    expect(checkLimits("compliance_pass", row({}, []))).toContain("0 sequential round trips to the primary");
  });

  it("gives a miss its reason where one stays, and none where it does not", () => {
    expect(checkLimits("health", row({ primary: 1 }, []))).toContain("an uptime probe");
    expect(checkLimits("settings_stores", row({ primary: 1, org_object: 1 }, ["storeSettingsList"]))).toBe(
      "**missed**: a warm read reached the primary 1×",
    );
    expect(checkLimits("settings_stores", row({ org_object: 1 }, ["storeSettingsList"]))).toBe("met");
  });
});
