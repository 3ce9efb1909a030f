/**
 * The endpoints `npm run bench:latency` measures and the limits of issue 37 they are held to: a
 * warm read makes no round trip to the D1 primary and at most one to a replica; a write exactly one
 * to the primary (one batch); no warm call waits for the quota's Durable Object (leases); a first
 * call on a fresh isolate comes within FIRST_CALL_WITHIN_MS of the warm median; and (issue 39) a
 * warm call reaches its organization's storage object at most once. Where an endpoint
 * misses a limit for a reason that stays, `stays` says why, and the table prints it.
 */
import type { Hop } from "./model";

export const FIRST_CALL_WITHIN_MS = 100;

export interface LatencyEndpoint {
  /** A scenario of the request-rate bench (scripts/bench/areas/), run here as it is there. */
  scenario: string;
  kind: "read" | "write";
  /** Why a limit this endpoint misses stays missed. */
  stays?: string;
}

export const latencyEndpoints: LatencyEndpoint[] = [
  { scenario: "health", kind: "read", stays: "an uptime probe: whether the database's primary answers is what it reports" },
  { scenario: "public_stats", kind: "read" },
  { scenario: "public_moat", kind: "read" },
  { scenario: "metered_v1", kind: "read" },
  { scenario: "unmetered_v1", kind: "read" },
  { scenario: "inventory_page", kind: "read" },
  { scenario: "inventory_changes", kind: "read" },
  { scenario: "sales_summary", kind: "read" },
  { scenario: "settings_stores", kind: "read" },
  { scenario: "inventory-alerts", kind: "read" },
  { scenario: "market-pulse", kind: "read" },
  { scenario: "morning-briefing", kind: "read" },
  { scenario: "lender_route", kind: "read" },
  { scenario: "stip_check", kind: "read" },
  { scenario: "gross_calc", kind: "read" },
  { scenario: "deal_coach", kind: "read" },
  { scenario: "trade_appraisal", kind: "read" },
  { scenario: "vehicle_decode", kind: "read" },
  { scenario: "compliance_pass", kind: "write" },
  { scenario: "compliance_hold", kind: "write" },
];

export interface LatencyRow {
  warm: Record<Hop, number>;
  /** The organization's object's methods a warm call called (overlapping calls each count). */
  warm_org_calls: string[];
  first_over_warm_ms: number;
}

/**
 * "met", or which limits the row misses, and the reason that stays where there is one. A write to
 * an organization's data is its object's transaction: one object call, and at most one primary
 * batch (the relay of the events it raised) instead of exactly one.
 */
export function checkLimits(name: string, row: LatencyRow): string {
  const endpoint = latencyEndpoints.find((e) => e.scenario === name);
  if (!endpoint) throw new Error(`${name} is not in latencyEndpoints`);
  const misses: string[] = [];
  const { primary, replica, durable_object } = row.warm;
  if (endpoint.kind === "read" && primary > 0) misses.push(`a warm read reached the primary ${primary}×`);
  if (endpoint.kind === "read" && replica > 1) misses.push(`${replica} sequential replica reads`);
  const writesInObject = row.warm_org_calls.length > 0;
  if (endpoint.kind === "write" && (writesInObject ? primary > 1 : primary !== 1)) misses.push(`${primary} sequential round trips to the primary`);
  if (durable_object > 0) misses.push("a warm call waited for the quota's Durable Object");
  if (row.warm_org_calls.length > 1) misses.push(`the organization's object called ${row.warm_org_calls.length}× (${row.warm_org_calls.join(", ")})`);
  if (row.first_over_warm_ms > FIRST_CALL_WITHIN_MS) misses.push(`first call ${row.first_over_warm_ms} ms over warm`);
  if (misses.length === 0) return "met";
  return `**missed**: ${misses.join("; ")}${endpoint.stays ? ` — ${endpoint.stays}` : ""}`;
}
