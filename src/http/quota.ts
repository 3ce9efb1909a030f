import { createMiddleware } from "hono/factory";
import { REVOCATION_WINDOW_MS } from "../credentials/credential-cache";
import type { LeaseAnswer, QuotaCounter } from "../durable-objects/quota-counter";
import { utcDay } from "../engines/dates";
import { leaseCap, nextLeaseRequest, nextResetMs, secondsUntilReset } from "../engines/quota/policy";
import { IN_STANDING, type KeyEndReason, type KeyStanding, type Refusal, refusalOf } from "../engines/quota/standing";
import type { Background } from "../lib/background";
import { describeError, logEvent } from "../lib/log";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { refusalError } from "./org-standing";

export const LIMIT_HEADER = "X-Service-RateLimit-Limit";
export const REMAINING_HEADER = "X-Service-RateLimit-Remaining";
export const RESET_HEADER = "X-Service-RateLimit-Reset";
export const RATE_LIMIT_EXPOSED_HEADERS = [LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER, "Retry-After"];

const MAX_KEYS = 10_000;

type Decision = { admitted: true; remaining: number } | { admitted: false; used: number } | { admitted: false; refusal: Refusal };

type Acquire = (requested: number) => Promise<LeaseAnswer>;

/** What this isolate holds of one key's quota for one UTC day. */
interface Lease {
  day: number;
  limit: number;
  /** The counter's `used` at the latest grant seen here; it already includes every lease handed out. */
  used: number;
  tokens: number;
  lastSize: number;
  lastLeaseAtMs: number;
  refilling: boolean;
  /** What the counter said of the key at its latest answer here, and when that answer was asked for. */
  standing: KeyStanding;
  answeredAtMs: number;
}

/**
 * Requests already counted by the key's QuotaCounter and not yet served, per key. While the quota is
 * large this isolate spends them without asking the counter and leases the next block in the
 * background before the current one runs out; near the end every request asks for itself. A token
 * is spent once and was counted at grant time, so however many isolates hold leases the day's
 * admitted requests never exceed the limit.
 *
 * No request ever awaits a promise another request created: workerd would run the waiter's
 * continuation in the creator's I/O context, and the waiter's response would then fail with
 * "Cannot perform I/O on behalf of a different request". Requests share plain numbers only.
 */
export class LeaseTable {
  private readonly leases = new Map<string, Lease>();

  /**
   * Decides one request. A token this isolate holds (most requests) or a quota known to be spent is
   * decided at once, without a promise; only a request that must ask the counter gets one.
   */
  take(keyId: string, limit: number, nowMs: number, acquire: Acquire, background: Background): Decision | Promise<Decision> {
    const lease = this.current(keyId, limit, nowMs);
    // The standing heard here decides for the revocation window; past it the request asks again, so a
    // revocation reaches this isolate within it however long the lease lasts, and so does a reinstatement.
    const heard = nowMs - lease.answeredAtMs < REVOCATION_WINDOW_MS;
    const refusal = refusalOf(lease.standing, nowMs);
    if (heard && refusal !== null) return { admitted: false, refusal };
    if (heard && lease.tokens > 0) {
      lease.tokens -= 1;
      if (lease.tokens <= lease.lastSize / 2 && !lease.refilling && leaseCap(limit, lease.used) > 1) {
        background(this.refill(lease, nowMs, acquire, false));
      }
      return { admitted: true, remaining: limit - lease.used + lease.tokens };
    }
    // Nothing handed out is ever given back, so once the counter is spent for the day it stays spent.
    if (lease.used >= limit && refusal === null) return { admitted: false, used: lease.used };
    return this.askCounter(lease, limit, nowMs, acquire);
  }

  private async askCounter(lease: Lease, limit: number, nowMs: number, acquire: Acquire): Promise<Decision> {
    // Near the end every request is decided alone; and while a block is on its way, asking for one
    // request beats queueing behind it.
    if (lease.refilling || leaseCap(limit, lease.used) <= 1) {
      const grant = await acquire(1);
      this.record(lease, grant, nowMs);
      return (
        this.refused(lease, nowMs) ?? (grant.granted > 0 ? { admitted: true, remaining: limit - grant.used } : { admitted: false, used: grant.used })
      );
    }
    const grant = await this.refill(lease, nowMs, acquire, true);
    return (
      this.refused(lease, nowMs) ??
      (grant.granted > 0 ? { admitted: true, remaining: limit - lease.used + lease.tokens } : { admitted: false, used: grant.used })
    );
  }

  private current(keyId: string, limit: number, nowMs: number): Lease {
    const day = utcDay(nowMs);
    let lease = this.leases.get(keyId);
    // A request that read the clock just before midnight keeps to the newer day once another has opened it.
    if (!lease || lease.day < day || lease.limit !== limit) {
      if (!lease && this.leases.size >= MAX_KEYS) this.leases.delete(this.leases.keys().next().value as string);
      lease = { day, limit, used: 0, tokens: 0, lastSize: 0, lastLeaseAtMs: 0, refilling: false, standing: IN_STANDING, answeredAtMs: 0 };
      this.leases.set(keyId, lease);
    }
    return lease;
  }

  /** Leases a block; `keepOne` takes one of its requests for the caller before anyone else can. */
  private async refill(lease: Lease, nowMs: number, acquire: Acquire, keepOne: boolean): Promise<LeaseAnswer> {
    lease.refilling = true;
    try {
      const previous = lease.lastSize > 0 ? { size: lease.lastSize, ageMs: nowMs - lease.lastLeaseAtMs } : null;
      const grant = await acquire(nextLeaseRequest(previous));
      this.record(lease, grant, nowMs);
      lease.tokens += keepOne ? Math.max(0, grant.granted - 1) : grant.granted;
      lease.lastSize = grant.granted;
      lease.lastLeaseAtMs = nowMs;
      return grant;
    } finally {
      lease.refilling = false;
    }
  }

  /** `askedAtMs`: when the answer was asked for, so its age counts the time it was on its way. */
  private record(lease: Lease, grant: LeaseAnswer, askedAtMs: number): void {
    lease.used = Math.max(lease.used, grant.used);
    if (askedAtMs >= lease.answeredAtMs) {
      lease.standing = grant.standing;
      lease.answeredAtMs = askedAtMs;
    }
    // Beside a refused key the counter grants nothing only for a spent quota; remembering that keeps refused requests off it.
    if (grant.granted === 0 && refusalOf(grant.standing, askedAtMs) === null) lease.used = Math.max(lease.used, lease.limit);
  }

  private refused(lease: Lease, nowMs: number): Decision | null {
    const refusal = refusalOf(lease.standing, nowMs);
    return refusal === null ? null : { admitted: false, refusal };
  }

  /** This isolate's lease of the key is dropped: its next request asks the counter, and so hears the key's standing. */
  forget(keyId: string): void {
    this.leases.delete(keyId);
  }
}

const leases = new LeaseTable();

/**
 * Durable Object errors say whether trying again can help; an overloaded object is never retried.
 * A call cut off by the object's reset (crash, deploy, eviction) is retried too: otherwise every
 * call in flight at a restart was served uncounted (docs/reliability.md#faults-survived).
 */
const isRetryable = (error: unknown) => {
  if (typeof error !== "object" || error === null) return false;
  const { retryable, overloaded, durableObjectReset } = error as { retryable?: unknown; overloaded?: unknown; durableObjectReset?: unknown };
  return (retryable === true || durableObjectReset === true) && overloaded !== true;
};

type Counter = DurableObjectStub<QuotaCounter>;

/**
 * One call to the key's counter, with one retry on a fresh stub (a failed stub may stay broken), only
 * for errors the runtime marks retryable: `acquire` is not idempotent, so a retry after a lost reply
 * can count a grant twice (telling an end or a suspension again changes nothing).
 */
async function callCounter<T>(namespace: Env["QUOTA"], keyId: string, call: (counter: Counter) => Promise<T>): Promise<T> {
  const once = () => call(namespace.get(namespace.idFromName(keyId)));
  try {
    return await once();
  } catch (error) {
    if (!isRetryable(error)) throw error;
    return once();
  }
}

/**
 * Tells the key's counter that the key is refused from `atMs` on, after D1 says so: every isolate
 * hears it with its next lease answer (docs/consistency.md). This isolate drops its lease, so its
 * next request with the key asks the counter and is refused whatever a replica still says.
 */
export async function tellKeyEnd(namespace: Env["QUOTA"], keyId: string, atMs: number, reason: KeyEndReason): Promise<void> {
  leases.forget(keyId);
  await callCounter(namespace, keyId, (counter) => counter.end(atMs, reason));
}

/** Tells each key's counter of its organization's suspension (ISO-8601 UTC) or reinstatement (null), as `tellKeyEnd` does an end. */
export async function tellKeysSuspended(namespace: Env["QUOTA"], keyIds: readonly string[], suspendedAt: string | null): Promise<void> {
  for (const keyId of keyIds) leases.forget(keyId);
  await Promise.all(keyIds.map((keyId) => callCounter(namespace, keyId, (counter) => counter.setSuspended(suspendedAt))));
}

/**
 * What happened and what to do, after the contract's sentence (the original 429 message is exactly
 * "daily rate limit reached"; clients that compare it still find it at the start).
 */
function dailyLimitMessage(limit: number, nowMs: number): string {
  const resetAt = new Date(nextResetMs(nowMs)).toISOString();
  const minutes = Math.ceil(secondsUntilReset(nowMs) / 60);
  const wait = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  return (
    `daily rate limit reached: this key has made its ${limit} calls for today (UTC). ` +
    `The quota resets at ${resetAt} (in ${wait}; Retry-After gives the seconds). ` +
    "For a higher limit, create a key with a larger rate_limit (POST /api/public-api/keys) and use it instead."
  );
}

/**
 * Counts every admitted `lak_` call against the key's daily quota and refuses the rest with 429.
 * Runs after the credential check, so 401s and 403s never count; legacy tokens are not metered.
 * The counter's answer also refuses a key it was told is revoked, ended or suspended (401/403),
 * before the handler runs, whatever the replica the credential was read at says.
 * If the counter cannot be reached the request is served (fail open, see docs/quota.md).
 */
export const meterQuota = createMiddleware<AppEnv>((c, next) => {
  const principal = c.get("principal");
  if (principal.kind !== "api_key") return next();

  const nowMs = Date.now();
  const { keyId, dailyLimit: limit } = principal;
  const unavailable = (decision: string, error: unknown) =>
    logEvent("warn", { event: "quota_counter_unavailable", decision, request_id: c.get("requestId"), key_id: keyId, ...describeError(error) });
  const acquire = (requested: number) => callCounter(c.env.QUOTA, keyId, (counter) => counter.acquire(limit, nowMs, requested));
  // A failed lease ahead of need costs nothing now: the requests that find no tokens ask themselves.
  const background: Background = (work) => c.executionCtx.waitUntil(work.catch((error) => unavailable("lease_skipped", error)));
  const decide = (decision: Decision | null) => {
    const limitHeader = String(limit);
    const resetHeader = String(nextResetMs(nowMs) / 1000);
    if (decision && "refusal" in decision) throw refusalError(decision.refusal);
    if (decision && !decision.admitted) {
      throw new ApiError("daily_rate_limit_reached", dailyLimitMessage(limit, nowMs), {
        headers: {
          [LIMIT_HEADER]: limitHeader,
          [RESET_HEADER]: resetHeader,
          [REMAINING_HEADER]: "0",
          "Retry-After": String(secondsUntilReset(nowMs)),
        },
        body: { reset_at: new Date(nextResetMs(nowMs)).toISOString(), limit, used: decision.used },
      });
    }
    c.header(LIMIT_HEADER, limitHeader);
    c.header(RESET_HEADER, resetHeader);
    if (decision) c.header(REMAINING_HEADER, String(decision.remaining));
    return next();
  };

  const taken = leases.take(keyId, limit, nowMs, acquire, background);
  // Most calls are decided without a promise: they go on without an async frame or a turn of their own.
  if (!(taken instanceof Promise)) return decide(taken);
  return taken.then(decide, (error: unknown) => {
    unavailable("fail_open", error);
    return decide(null);
  });
});
