/** What every bench area receives: the seeded organization, its primary store and its credentials. */
export interface BenchFixture {
  key: string;
  legacyToken: string;
  orgId: string;
  storeId: string;
}

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
}

/** A figure that is not a request rate (a bulk job's duration, a background throughput). */
export interface Measurement {
  name: string;
  detail: string;
  value: number;
  unit: string;
  rate: number;
  rateUnit: string;
}

/** One endpoint area's part of the benchmark: the rows its scenarios need, the scenarios, and other measurements. */
export interface BenchArea {
  name: string;
  seed?: (db: D1Database, fixture: BenchFixture) => Promise<void>;
  scenarios: (fixture: BenchFixture) => Scenario[];
  /** Run once each, after the request-rate rounds, against the same Worker. */
  measurements?: { name: string; run: (url: URL, fixture: BenchFixture) => Promise<Measurement[]> }[];
}
