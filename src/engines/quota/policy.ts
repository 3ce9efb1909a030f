/**
 * The daily quota's arithmetic: UTC days, the next reset, and how many requests one grant may
 * cover. No clock, no storage: callers pass `nowMs`, so tests cross midnight without fake timers.
 */

import { DAY_MS, utcDay } from "../dates";

/** Below this many remaining requests (or 10% of the limit, if larger) every grant is a single request. */
const EXACT_FLOOR_MIN = 100;
const EXACT_FLOOR_SHARE = 0.1;
/**
 * The most requests one lease may cover. Each lease costs a Durable Object call (a storage commit),
 * so this sets how often a busy isolate calls the counter: smaller leases measured slower
 * (BENCHMARKS.md#figures-behind-choices-in-the-code).
 */
export const MAX_LEASE = 200;
/** Nor more than this share of the day's limit, which bounds what leases can strand on a small limit. */
const LEASE_SHARE_OF_LIMIT = 0.01;
/** Nor more than this share of the remaining quota above the floor. */
const HEADROOM_SHARE = 0.1;
/** A lease used up faster than this was too small; one that lasted longer was too big. */
const LEASE_WINDOW_MS = 1_000;

export interface CounterState {
  day: number;
  used: number;
  limit: number;
}

export interface QuotaGrant {
  granted: number;
  used: number;
  limit: number;
  resetAtMs: number;
}

export interface QuotaUsage {
  used: number;
  limit: number | null;
  resetAtMs: number;
}

const resetAtMsOfDay = (day: number) => (day + 1) * DAY_MS;

export const nextResetMs = (nowMs: number) => resetAtMsOfDay(utcDay(nowMs));

/** Whole seconds to the next 00:00 UTC, at least 1 so a client never retries in the same second. */
export const secondsUntilReset = (nowMs: number) => Math.max(1, Math.ceil((nextResetMs(nowMs) - nowMs) / 1000));

export const exactFloor = (limit: number) => Math.max(EXACT_FLOOR_MIN, Math.ceil(limit * EXACT_FLOOR_SHARE));

/**
 * The largest grant the counter may make with `used` of `limit` spent. Near the end of the quota
 * every request is decided on its own, so a small limit (at or below the floor) is exact per request;
 * above it a lease is capped so that several isolates holding leases still leave the floor intact.
 */
export function leaseCap(limit: number, used: number): number {
  const remaining = limit - used;
  if (remaining <= 0) return 0;
  const floor = exactFloor(limit);
  if (remaining <= floor) return 1;
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(limit * LEASE_SHARE_OF_LIMIT), Math.floor((remaining - floor) * HEADROOM_SHARE)));
}

/**
 * The day a request counts in. A caller whose clock is behind the counter's last day (another
 * isolate already crossed midnight) counts in the newer day, so a day is never reopened.
 */
const effectiveDay = (state: CounterState | undefined, nowMs: number) => Math.max(utcDay(nowMs), state?.day ?? 0);

const usedOn = (state: CounterState | undefined, day: number) => (state && state.day === day ? state.used : 0);

/** One `acquire`: resets lazily on a new day, grants what the policy allows, and counts the grant as used at once. */
export function acquire(
  state: CounterState | undefined,
  limit: number,
  nowMs: number,
  requested: number,
): { state: CounterState; grant: QuotaGrant } {
  const day = effectiveDay(state, nowMs);
  const used = usedOn(state, day);
  const wanted = Number.isFinite(requested) ? Math.max(0, Math.floor(requested)) : 0;
  const granted = Math.min(wanted, leaseCap(limit, used));
  return {
    state: { day, used: used + granted, limit },
    grant: { granted, used: used + granted, limit, resetAtMs: resetAtMsOfDay(day) },
  };
}

export function usage(state: CounterState | undefined, nowMs: number): QuotaUsage {
  const day = effectiveDay(state, nowMs);
  return { used: usedOn(state, day), limit: state?.limit ?? null, resetAtMs: resetAtMsOfDay(day) };
}

/**
 * How many requests an isolate leases next: double the last lease if it lasted under
 * LEASE_WINDOW_MS, halve it otherwise. A lease so tracks about a second of the isolate's own
 * traffic, which bounds what an isolate strands when it goes idle.
 */
export function nextLeaseRequest(previous: { size: number; ageMs: number } | null): number {
  if (previous === null) return 1;
  const sized = previous.ageMs < LEASE_WINDOW_MS ? previous.size * 2 : Math.floor(previous.size / 2);
  return Math.min(MAX_LEASE, Math.max(1, sized));
}
