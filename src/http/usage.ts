import { createMiddleware } from "hono/factory";
import { type Database, getDb } from "../db/client";
import { recordUsage, type UsageSnapshot } from "../db/queries/usage";
import { isoDay, utcDay } from "../engines/dates";
import { describeError, logEvent } from "../lib/log";
import type { AppEnv, Principal } from "./app-env";
import { DEAL_TOOL_ENDPOINTS, type EndpointName } from "./endpoints";

/**
 * Usage for the platform statistics is counted in memory and written to D1 in one batch at most
 * every FLUSH_INTERVAL_MS per isolate, so no request waits on (or pays for) a D1 write. An isolate
 * that is evicted before flushing loses at most that interval's counts.
 */
const FLUSH_INTERVAL_MS = 10_000;

let today = { day: -1, iso: "" };

/** YYYY-MM-DD (UTC) of `nowMs`. Every request asks, so each day's string is made once. */
function usageDay(nowMs: number): string {
  const day = utcDay(nowMs);
  if (day !== today.day) today = { day, iso: isoDay(nowMs) };
  return today.iso;
}

class UsageBuffer {
  private snapshot: UsageSnapshot = { keys: new Map(), platform: new Map() };
  private lastFlushMs = 0;

  recordResponse(nowMs: number, status: number): void {
    const day = usageDay(nowMs);
    const entry = this.snapshot.platform.get(day) ?? { requests: 0, serverErrors: 0 };
    entry.requests += 1;
    if (status >= 500) entry.serverErrors += 1;
    this.snapshot.platform.set(day, entry);
  }

  recordAuthenticatedCall(nowMs: number, principal: Principal, dealToolCall: boolean): void {
    const credentialId = principal.kind === "api_key" ? principal.keyId : principal.tokenId;
    const id = `${usageDay(nowMs)}|${credentialId}`;
    const entry = this.snapshot.keys.get(id) ?? {
      orgId: principal.orgId,
      isApiKey: principal.kind === "api_key",
      requests: 0,
      dealToolCalls: 0,
      lastUsedAtMs: 0,
    };
    entry.requests += 1;
    if (dealToolCall) entry.dealToolCalls += 1;
    entry.lastUsedAtMs = nowMs;
    this.snapshot.keys.set(id, entry);
  }

  isDue(nowMs: number): boolean {
    return nowMs - this.lastFlushMs >= FLUSH_INTERVAL_MS;
  }

  /**
   * Hands what has been counted to the caller's own write; on failure the counts go back into the
   * buffer for the next flush. Each flush is a promise of the request that started it: no request
   * ever awaits another's (workerd refuses I/O across requests).
   */
  flush(db: Database, nowMs: number): Promise<void> {
    this.lastFlushMs = nowMs;
    const pending = this.snapshot;
    this.snapshot = { keys: new Map(), platform: new Map() };
    if (pending.keys.size === 0 && pending.platform.size === 0) return Promise.resolve();
    return recordUsage(db, pending).catch((error: unknown) => {
      logEvent("error", { event: "usage_flush_failed", ...describeError(error) });
      this.merge(pending);
    });
  }

  private merge(older: UsageSnapshot): void {
    for (const [day, counts] of older.platform) {
      const entry = this.snapshot.platform.get(day) ?? { requests: 0, serverErrors: 0 };
      entry.requests += counts.requests;
      entry.serverErrors += counts.serverErrors;
      this.snapshot.platform.set(day, entry);
    }
    for (const [id, counts] of older.keys) {
      const entry = this.snapshot.keys.get(id);
      if (!entry) this.snapshot.keys.set(id, counts);
      else {
        entry.requests += counts.requests;
        entry.dealToolCalls += counts.dealToolCalls;
      }
    }
  }
}

export const usageBuffer = new UsageBuffer();

/** Runs around every route (after the request id and headers): counts every answered request, and every admitted authenticated call. */
export const trackUsage = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const nowMs = Date.now();
  const status = c.res.status;
  usageBuffer.recordResponse(nowMs, status);
  const principal = c.get("principal");
  const endpoint = c.get("endpoint") as EndpointName | undefined;
  if (principal && status !== 429) {
    const dealToolCall = endpoint !== undefined && DEAL_TOOL_ENDPOINTS.has(endpoint) && status < 400;
    usageBuffer.recordAuthenticatedCall(nowMs, principal, dealToolCall);
  }
  if (usageBuffer.isDue(nowMs)) c.executionCtx.waitUntil(usageBuffer.flush(getDb(c.env.DB), nowMs));
});
