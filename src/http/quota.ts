import { createMiddleware } from "hono/factory";
import { leaseCap, nextLeaseRequest, nextResetMs, type QuotaGrant, secondsUntilReset, utcDay } from "../engines/quota/policy";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

export const RATE_LIMIT_EXPOSED_HEADERS = ["X-Service-RateLimit-Limit", "X-Service-RateLimit-Remaining", "X-Service-RateLimit-Reset", "Retry-After"];

const MAX_KEYS = 10_000;

type Decision = { admitted: true; remaining: number } | { admitted: false; used: number };

type Acquire = (requested: number) => Promise<QuotaGrant>;

/** What this isolate holds of one key's quota for one UTC day. */
interface Lease {
  day: number;
  limit: number;
  /** The counter's `used` at the latest grant seen here; it already includes every lease handed out. */
  used: number;
  tokens: number;
  lastSize: number;
  lastGrantAtMs: number;
  refill: Promise<void> | null;
  waiting: number;
}

/**
 * Requests already counted by the key's QuotaCounter and not yet served, per key. While the quota is
 * large this isolate spends them without asking the counter; near the end every request asks for
 * itself. A token is only ever spent once and the counter counted it at grant time, so however many
 * isolates hold leases the day's admitted requests never exceed the limit.
 */
export class LeaseTable {
  private readonly leases = new Map<string, Lease>();

  async take(keyId: string, limit: number, nowMs: number, acquire: Acquire): Promise<Decision> {
    for (;;) {
      const lease = this.current(keyId, limit, nowMs);
      if (lease.tokens > 0) {
        lease.tokens -= 1;
        return { admitted: true, remaining: limit - lease.used + lease.tokens };
      }
      // Nothing handed out is ever given back, so once the counter is spent for the day it stays spent.
      if (lease.used >= limit) return { admitted: false, used: lease.used };
      if (leaseCap(limit, lease.used) <= 1) {
        // Single grants gain nothing from queueing behind one another, so each request asks for itself.
        const grant = await acquire(1);
        this.record(lease, grant, nowMs);
        return grant.granted > 0 ? { admitted: true, remaining: grant.limit - grant.used } : { admitted: false, used: grant.used };
      }
      // One refill per key at a time: concurrent misses wait for it rather than each leasing a block.
      lease.waiting += 1;
      lease.refill ??= this.refill(lease, nowMs, acquire);
      try {
        await lease.refill;
      } finally {
        lease.waiting -= 1;
      }
    }
  }

  private current(keyId: string, limit: number, nowMs: number): Lease {
    const day = utcDay(nowMs);
    let lease = this.leases.get(keyId);
    // A request that read the clock just before midnight keeps to the newer day once another has opened it.
    if (!lease || lease.day < day || lease.limit !== limit) {
      if (!lease && this.leases.size >= MAX_KEYS) this.leases.delete(this.leases.keys().next().value as string);
      lease = { day, limit, used: 0, tokens: 0, lastSize: 0, lastGrantAtMs: 0, refill: null, waiting: 0 };
      this.leases.set(keyId, lease);
    }
    return lease;
  }

  private async refill(lease: Lease, nowMs: number, acquire: Acquire): Promise<void> {
    try {
      const previous = lease.lastSize > 0 ? { size: lease.lastSize, ageMs: nowMs - lease.lastGrantAtMs } : null;
      const grant = await acquire(nextLeaseRequest(previous, lease.waiting));
      this.record(lease, grant, nowMs);
      lease.tokens += grant.granted;
      lease.lastSize = grant.granted;
    } finally {
      lease.refill = null;
    }
  }

  private record(lease: Lease, grant: QuotaGrant, nowMs: number): void {
    lease.used = Math.max(lease.used, grant.used);
    lease.lastGrantAtMs = nowMs;
    // The counter refuses only a spent quota; remembering that keeps refused requests off it.
    if (grant.granted === 0) lease.used = Math.max(lease.used, lease.limit);
  }
}

const leases = new LeaseTable();

const isOverloaded = (error: unknown) => typeof error === "object" && error !== null && (error as { overloaded?: unknown }).overloaded === true;

/** One retry on a fresh stub (a failed stub may stay broken), except when the object says it is overloaded. */
function counterFor(namespace: Env["QUOTA"], keyId: string, limit: number, nowMs: number): Acquire {
  const call = (requested: number) => namespace.get(namespace.idFromName(keyId)).acquire(limit, nowMs, requested);
  return async (requested) => {
    try {
      return await call(requested);
    } catch (error) {
      if (isOverloaded(error)) throw error;
      return call(requested);
    }
  };
}

/**
 * Counts every admitted `lak_` call against the key's daily quota and refuses the rest with 429.
 * Runs after the credential check, so 401s and 403s never count; legacy tokens are not metered.
 * If the counter cannot be reached the request is served (fail open, see docs/quota.md).
 */
export const meterQuota = createMiddleware<AppEnv>(async (c, next) => {
  const principal = c.var.principal;
  if (principal.kind !== "api_key") return next();

  const nowMs = Date.now();
  const limit = principal.dailyLimit;
  const headers: Record<string, string> = {
    "X-Service-RateLimit-Limit": String(limit),
    "X-Service-RateLimit-Reset": String(nextResetMs(nowMs) / 1000),
  };

  let decision: Decision | null = null;
  try {
    decision = await leases.take(principal.keyId, limit, nowMs, counterFor(c.env.QUOTA, principal.keyId, limit, nowMs));
  } catch (error) {
    console.warn(
      JSON.stringify({
        level: "warn",
        event: "quota_counter_unavailable",
        decision: "fail_open",
        request_id: c.var.requestId,
        key_id: principal.keyId,
        error: error instanceof Error ? error.name : "unknown",
        message: error instanceof Error ? error.message : undefined,
      }),
    );
  }

  if (decision && !decision.admitted) {
    throw new ApiError("daily_rate_limit_reached", "daily rate limit reached", {
      headers: { ...headers, "X-Service-RateLimit-Remaining": "0", "Retry-After": String(secondsUntilReset(nowMs)) },
      body: { reset_at: new Date(nextResetMs(nowMs)).toISOString(), limit, used: decision.used },
    });
  }
  if (decision) headers["X-Service-RateLimit-Remaining"] = String(decision.remaining);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  await next();
});
