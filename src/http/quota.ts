import { createMiddleware } from "hono/factory";
import { utcDay } from "../engines/dates";
import { leaseCap, nextLeaseRequest, nextResetMs, type QuotaGrant, secondsUntilReset } from "../engines/quota/policy";
import { describeError, logEvent } from "../lib/log";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

export const LIMIT_HEADER = "X-Service-RateLimit-Limit";
export const REMAINING_HEADER = "X-Service-RateLimit-Remaining";
export const RESET_HEADER = "X-Service-RateLimit-Reset";
export const RATE_LIMIT_EXPOSED_HEADERS = [LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER, "Retry-After"];

const MAX_KEYS = 10_000;

type Decision = { admitted: true; remaining: number } | { admitted: false; used: number };

type Acquire = (requested: number) => Promise<QuotaGrant>;

/** Keeps work alive past the response without the response waiting for it (`ctx.waitUntil`). */
type Background = (work: Promise<unknown>) => void;

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
    if (lease.tokens > 0) {
      lease.tokens -= 1;
      if (lease.tokens <= lease.lastSize / 2 && !lease.refilling && leaseCap(limit, lease.used) > 1) {
        background(this.refill(lease, nowMs, acquire, false));
      }
      return { admitted: true, remaining: limit - lease.used + lease.tokens };
    }
    // Nothing handed out is ever given back, so once the counter is spent for the day it stays spent.
    if (lease.used >= limit) return { admitted: false, used: lease.used };
    return this.askCounter(lease, limit, nowMs, acquire);
  }

  private async askCounter(lease: Lease, limit: number, nowMs: number, acquire: Acquire): Promise<Decision> {
    // Near the end every request is decided alone; and while a block is on its way, asking for one
    // request beats queueing behind it.
    if (lease.refilling || leaseCap(limit, lease.used) <= 1) {
      const grant = await acquire(1);
      this.record(lease, grant);
      return grant.granted > 0 ? { admitted: true, remaining: limit - grant.used } : { admitted: false, used: grant.used };
    }
    const grant = await this.refill(lease, nowMs, acquire, true);
    return grant.granted > 0 ? { admitted: true, remaining: limit - lease.used + lease.tokens } : { admitted: false, used: grant.used };
  }

  private current(keyId: string, limit: number, nowMs: number): Lease {
    const day = utcDay(nowMs);
    let lease = this.leases.get(keyId);
    // A request that read the clock just before midnight keeps to the newer day once another has opened it.
    if (!lease || lease.day < day || lease.limit !== limit) {
      if (!lease && this.leases.size >= MAX_KEYS) this.leases.delete(this.leases.keys().next().value as string);
      lease = { day, limit, used: 0, tokens: 0, lastSize: 0, lastLeaseAtMs: 0, refilling: false };
      this.leases.set(keyId, lease);
    }
    return lease;
  }

  /** Leases a block; `keepOne` takes one of its requests for the caller before anyone else can. */
  private async refill(lease: Lease, nowMs: number, acquire: Acquire, keepOne: boolean): Promise<QuotaGrant> {
    lease.refilling = true;
    try {
      const previous = lease.lastSize > 0 ? { size: lease.lastSize, ageMs: nowMs - lease.lastLeaseAtMs } : null;
      const grant = await acquire(nextLeaseRequest(previous));
      this.record(lease, grant);
      lease.tokens += keepOne ? Math.max(0, grant.granted - 1) : grant.granted;
      lease.lastSize = grant.granted;
      lease.lastLeaseAtMs = nowMs;
      return grant;
    } finally {
      lease.refilling = false;
    }
  }

  private record(lease: Lease, grant: QuotaGrant): void {
    lease.used = Math.max(lease.used, grant.used);
    // The counter refuses only a spent quota; remembering that keeps refused requests off it.
    if (grant.granted === 0) lease.used = Math.max(lease.used, lease.limit);
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

/**
 * One call to the key's counter, with one retry on a fresh stub (a failed stub may stay broken), only
 * for errors the runtime marks retryable: `acquire` is not idempotent, so a retry after a lost reply
 * can count a grant twice.
 */
async function acquireFromCounter(namespace: Env["QUOTA"], keyId: string, limit: number, nowMs: number, requested: number) {
  const call = () => namespace.get(namespace.idFromName(keyId)).acquire(limit, nowMs, requested);
  try {
    return await call();
  } catch (error) {
    if (!isRetryable(error)) throw error;
    return call();
  }
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
 * If the counter cannot be reached the request is served (fail open, see docs/quota.md).
 */
export const meterQuota = createMiddleware<AppEnv>((c, next) => {
  const principal = c.get("principal");
  if (principal.kind !== "api_key") return next();

  const nowMs = Date.now();
  const { keyId, dailyLimit: limit } = principal;
  const unavailable = (decision: string, error: unknown) =>
    logEvent("warn", { event: "quota_counter_unavailable", decision, request_id: c.get("requestId"), key_id: keyId, ...describeError(error) });
  const acquire = (requested: number) => acquireFromCounter(c.env.QUOTA, keyId, limit, nowMs, requested);
  // A failed lease ahead of need costs nothing now: the requests that find no tokens ask themselves.
  const background = (work: Promise<unknown>) => c.executionCtx.waitUntil(work.catch((error) => unavailable("lease_skipped", error)));
  const decide = (decision: Decision | null) => {
    const limitHeader = String(limit);
    const resetHeader = String(nextResetMs(nowMs) / 1000);
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
