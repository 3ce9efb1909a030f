import { DurableObject } from "cloudflare:workers";
import { acquire, type CounterState, type QuotaGrant, type QuotaUsage, usage } from "../engines/quota/policy";

const STATE_KEY = "state";

/**
 * One object per API key (`idFromName(keyId)`), the only writer of that key's count for the UTC
 * day. Each method reads and writes storage synchronously, so concurrent calls cannot interleave
 * and a grant is never made twice; the output gate holds the reply until the write is durable.
 */
export class QuotaCounter extends DurableObject<Env> {
  /** Grants up to `requested` requests of today's quota (0 once it is used up); a grant counts as used at once. */
  async acquire(limit: number, nowMs: number, requested: number): Promise<QuotaGrant> {
    const before = this.ctx.storage.kv.get<CounterState>(STATE_KEY);
    const { state, grant } = acquire(before, limit, nowMs, requested);
    // A refusal on an unchanged day writes nothing, so a client hammering past its limit costs no commits.
    if (grant.granted > 0 || before?.day !== state.day || before.limit !== limit) this.ctx.storage.kv.put(STATE_KEY, state);
    return grant;
  }

  /** Today's count, read-only; `limit` is the one the last `acquire` was made with (null if none). */
  async usage(nowMs: number): Promise<QuotaUsage> {
    return usage(this.ctx.storage.kv.get<CounterState>(STATE_KEY), nowMs);
  }
}
