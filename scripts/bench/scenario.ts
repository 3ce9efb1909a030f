import type { SeedRows } from "../../src/db/org-store";

/** What every bench area receives: the seeded organization, its primary store and its credentials. */
export interface BenchFixture {
  key: string;
  legacyToken: string;
  orgId: string;
  storeId: string;
}

import { BARE_ANSWER_PATH } from "./floor-paths";

/**
 * A scenario's target: at least `ratio` of the `of` scenario's requests per second, in the same
 * run. It is met when the median of SETS_FOR_VERDICT sets (`--repeat=3`) is (issue 37).
 */
export interface Target {
  of: string;
  ratio: number;
}

/** How many whole sets a verdict takes: one set on this shared machine is a reading, not a verdict. */
export const SETS_FOR_VERDICT = 3;

/** GET endpoints answered from a per-isolate cache against the metered feed call, also cached (issue 19). */
export const READ_TARGET: Target = { of: "metered_v1", ratio: 0.85 };
/**
 * GET endpoints that read D1 on every call (a page with parameters, a settings read) against the
 * metered chain plus one indexed one-row SELECT: held to the cached feed call, they would measure
 * D1's round trip, not our code (issue 19, as compliance against `metered_write`).
 */
export const D1_READ_TARGET: Target = { of: "metered_read", ratio: 0.85 };
/**
 * Feed pages against the metered chain plus one plain 100-row SELECT of the same columns: against
 * a one-row read they measured the local D1 turning a hundred rows into JSON and back (BENCHMARKS.md).
 */
export const PAGE_READ_TARGET: Target = { of: "metered_page", ratio: 0.85 };
/** POST engines against the metered chain that parses, validates and answers a 1 KiB body. */
export const ENGINE_TARGET: Target = { of: "metered_echo", ratio: 0.85 };
/** Endpoints that must record before answering, against the metered chain plus one audit-row INSERT. */
export const RECORDING_TARGET: Target = { of: "metered_write", ratio: 0.8 };

export interface Scenario {
  name: string;
  path: string;
  method?: "GET" | "POST" | "PUT";
  /** Sent as JSON with Content-Type: application/json. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Each request from another client address (the public endpoints' per-client limit would refuse one client's load). */
  manyClients?: boolean;
  /** The answer must carry the quota headers (else the quota failed open and the run is void). */
  metered?: boolean;
  target?: Target;
  /** Served by a bare Worker answering a constant copy of that scenario's answer (copied before this one's first call). */
  copiesAnswerOf?: string;
}

/**
 * The bare Worker serving a constant copy of `of`'s answer (body and promised headers): the floor of
 * an endpoint that answers from memory, so what is measured is our stack, not the answer's size.
 */
export function bareAnswerOf(of: string): Scenario {
  return { name: `${of}_bare_answer`, path: `${BARE_ANSWER_PATH}/${of}`, copiesAnswerOf: of };
}

/** At least this share of its own answer served by a bare Worker (issue 37: `metered_v1`, the public embeds). */
export const BARE_ANSWER_RATIO = 0.85;

/** A figure that is not a request rate (a bulk job's duration, a background throughput). */
export interface Measurement {
  name: string;
  detail: string;
  value: number;
  unit: string;
  rate: number;
  rateUnit: string;
}

/** An area's rows of the organization's own data: they open its object with the other areas' (`OrganizationStore.seed`). */
export type ObjectRows = Partial<{ -readonly [K in keyof SeedRows]: SeedRows[K][number][] }>;

/** One endpoint area's part of the benchmark: the rows its scenarios need, the scenarios, and other measurements. */
export interface BenchArea {
  name: string;
  /** Writes the area's global rows to D1; returns its rows of the organization's own data, for its object. */
  seed?: (db: D1Database, fixture: BenchFixture) => Promise<ObjectRows | undefined>;
  scenarios: (fixture: BenchFixture) => Scenario[];
  /** Run once each, after the request-rate rounds, against the same Worker. */
  measurements?: { name: string; run: (url: URL, fixture: BenchFixture) => Promise<Measurement[]> }[];
}

/** Visitors of many sites, each well under the public per-client limit (120 a minute). */
const CLIENT_ADDRESSES = 20_000;

/** The `n`th visitor's address, for a `manyClients` scenario's `CF-Connecting-IP`: CLIENT_ADDRESSES of them in turn. */
export function clientAddress(n: number): string {
  const client = n % CLIENT_ADDRESSES;
  return `10.${(client >> 8) & 255}.${client & 255}.1`;
}

/** The headers of the scenario's request: its own, and the JSON content type when it has a body. */
export function requestHeaders(scenario: Scenario): Record<string, string> {
  return { ...(scenario.body === undefined ? {} : { "Content-Type": "application/json" }), ...scenario.headers };
}

/** The scenario's request: its method, headers and JSON body. */
export function requestInit(scenario: Scenario): {
  method: NonNullable<Scenario["method"]>;
  headers: Record<string, string>;
  body: string | undefined;
} {
  return {
    method: scenario.method ?? "GET",
    headers: requestHeaders(scenario),
    body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
  };
}
