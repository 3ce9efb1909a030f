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
  /** The answer must carry the quota headers (else the quota failed open and the run is void). */
  metered?: boolean;
}

/** One endpoint area's part of the benchmark: the rows its scenarios need, and the scenarios. */
export interface BenchArea {
  name: string;
  seed?: (db: D1Database, fixture: BenchFixture) => Promise<void>;
  scenarios: (fixture: BenchFixture) => Scenario[];
}
