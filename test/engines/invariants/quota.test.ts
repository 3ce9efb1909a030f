/**
 * Quota invariants (docs/domain/invariants.md#the-daily-quota-and-a-keys-standing): rules a key's
 * owner would never see broken, over generated traffic through several isolates' lease tables
 * sharing one counter (the counter's own arithmetic in memory), with a revocation or suspension
 * told to the counter part-way.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { REVOCATION_WINDOW_MS } from "../../../src/credentials/credential-cache";
import { acquire, type CounterState } from "../../../src/engines/quota/policy";
import { IN_STANDING, type KeyStanding, refusalOf, withEnd } from "../../../src/engines/quota/standing";
import { LeaseTable } from "../../../src/http/quota";
import { holds } from "./check";

const NOON = Date.UTC(2031, 0, 1, 12);

/** One counter (src/durable-objects/quota-counter.ts), answering a turn later like an RPC. */
function counter(limit: number) {
  let state: CounterState | undefined;
  let standing: KeyStanding = IN_STANDING;
  return {
    acquireAt: (nowMs: number) => async (requested: number) => {
      await Promise.resolve();
      const result = acquire(state, limit, nowMs, refusalOf(standing, nowMs) === null ? requested : 0);
      state = result.state;
      return { ...result.grant, standing };
    },
    tell(told: (before: KeyStanding) => KeyStanding) {
      standing = told(standing);
    },
  };
}

const traffic = fc.record({
  limit: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1_000, max: 1_000_000 })),
  isolates: fc.integer({ min: 1, max: 3 }),
  requests: fc.array(
    fc.record({
      isolate: fc.nat(2),
      // Bursts (leases grow while each lasts under a second) and quiet spells past the minute.
      gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 90_000 })),
      settle: fc.boolean(),
    }),
    {
      minLength: 1,
      maxLength: 80,
    },
  ),
  toldAt: fc.nat(79),
  told: fc.constantFrom("revoked" as const, "suspended" as const),
});

describe("the daily quota and a key's standing", () => {
  it("no isolate admits a key a minute or more after its counter was told it is revoked or suspended, nor more than the limit", async () => {
    await holds(
      fc.asyncProperty(traffic, async ({ limit, isolates, requests, toldAt, told }) => {
        const shared = counter(limit);
        const tables = Array.from({ length: isolates }, () => new LeaseTable());
        const pending: Promise<unknown>[] = [];
        const background = (work: Promise<unknown>) => void pending.push(work);
        let nowMs = NOON;
        let toldAtMs: number | null = null;
        let admitted = 0;
        for (const [i, request] of requests.entries()) {
          nowMs += request.gapMs;
          if (i === toldAt) {
            toldAtMs = nowMs;
            shared.tell((s) =>
              told === "revoked" ? withEnd(s, { atMs: nowMs, reason: "revoked" }) : { ...s, suspendedAt: new Date(nowMs).toISOString() },
            );
          }
          const decision = await tables[request.isolate % isolates].take("key", limit, nowMs, shared.acquireAt(nowMs), background);
          if (decision.admitted) {
            admitted++;
            if (toldAtMs !== null && nowMs >= toldAtMs + REVOCATION_WINDOW_MS) return false;
          }
          if (request.settle) await Promise.allSettled(pending.splice(0));
        }
        return admitted <= limit;
      }),
    );
  });
});
