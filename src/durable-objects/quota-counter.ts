import { DurableObject } from "cloudflare:workers";
import { acquire, type CounterState, type QuotaGrant, type QuotaUsage, usage } from "../engines/quota/policy";
import { IN_STANDING, type KeyEndReason, type KeyStanding, refusalOf, withEnd } from "../engines/quota/standing";

const STATE_KEY = "state";
const STANDING_KEY = "standing";

/** A lease answer: the grant, and what the counter has been told about the key (docs/consistency.md). */
export type LeaseAnswer = QuotaGrant & { standing: KeyStanding };

/**
 * One object per API key (`idFromName(keyId)`), the only writer of that key's count for the UTC
 * day, and the place a revocation or suspension is said to every isolate (each calls it for its
 * leases). Each method reads and writes storage synchronously, so concurrent calls cannot
 * interleave and a grant is never made twice; the output gate holds the reply until the write is durable.
 */
export class QuotaCounter extends DurableObject<Env> {
  private standing(): KeyStanding {
    return this.ctx.storage.kv.get<KeyStanding>(STANDING_KEY) ?? IN_STANDING;
  }

  /**
   * Grants up to `requested` requests of today's quota (0 once it is used up); a grant counts as
   * used at once. A key refused by its standing is granted nothing, so its refusals are not counted.
   */
  async acquire(limit: number, nowMs: number, requested: number): Promise<LeaseAnswer> {
    const standing = this.standing();
    const before = this.ctx.storage.kv.get<CounterState>(STATE_KEY);
    const { state, grant } = acquire(before, limit, nowMs, refusalOf(standing, nowMs) === null ? requested : 0);
    // A refusal on an unchanged day writes nothing, so a client hammering past its limit costs no commits.
    if (grant.granted > 0 || before?.day !== state.day || before.limit !== limit) this.ctx.storage.kv.put(STATE_KEY, state);
    return { ...grant, standing };
  }

  /** Today's count, read-only; `limit` is the one the last `acquire` was made with (null if none). */
  async usage(nowMs: number): Promise<QuotaUsage> {
    return usage(this.ctx.storage.kv.get<CounterState>(STATE_KEY), nowMs);
  }

  /** The key is refused from `atMs` on (a revocation: now; a rotation: the overlap's end). Repeating it changes nothing. */
  async end(atMs: number, reason: KeyEndReason): Promise<void> {
    this.ctx.storage.kv.put(STANDING_KEY, withEnd(this.standing(), { atMs, reason }));
  }

  /** The organization's suspension (ISO-8601 UTC), or null on reinstatement. */
  async setSuspended(suspendedAt: string | null): Promise<void> {
    this.ctx.storage.kv.put(STANDING_KEY, { ...this.standing(), suspendedAt });
  }
}
