/**
 * A store's month on organizations' objects, priced (`npm run bench:scale`; docs/scaling.md,
 * "What a store costs a month"). Measured: each request's time, the object's SQLite rows per request,
 * the object's and the global D1's bytes per store. Assumed: the request volume (STORE_MONTH) and
 * D1's rows per request, which the bench does not count (D1_ROWS_PER_DAY).
 */

/**
 * Cloudflare's published prices on Workers Paid, USD, past the usage each month includes (the whole
 * account shares that, so a store's share is counted at the marginal price: an upper bound):
 * - Durable Objects: https://developers.cloudflare.com/durable-objects/platform/pricing/ (requests,
 *   RPC calls included; duration for the 128 MB an object is allocated; SQLite rows and stored data);
 * - D1: https://developers.cloudflare.com/d1/platform/pricing/;
 * - Workers Standard requests, as https://developers.cloudflare.com/workflows/reference/pricing/
 *   states them ("identical to Workers Standard pricing").
 */
const PRICES_USD = {
  objectRequestsPerMillion: 0.15,
  durationPerMillionGbS: 12.5,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1.0,
  objectStoragePerGbMonth: 0.2,
  d1StoragePerGbMonth: 0.75,
  workerRequestsPerMillion: 0.3,
} as const;

/** Duration is billed for 128 MB whatever the object uses. */
const OBJECT_GB = 128 / 1024;
const GB = 1e9;

/**
 * A store's month, assumed: its DMS integration polls the inventory feed every 5 minutes (the usage
 * mix of the D1 bench, ./run.ts WRITE_MIX) and reads its 150 units as two 100-unit pages; its DMS
 * sends an hourly snapshot (docs/ingestion.md). Every request makes one call to the object.
 */
const STORE_MONTH = { feed_pages: 288 * 2 * 30, snapshots: 24 * 30 };

/**
 * The global D1's rows a store costs a day, estimated (not counted by the bench): the usage flushes
 * of ./run.ts WRITE_MIX (288, three rollup rows each) and each snapshot's delivery row written; the
 * feed's one replica read a page (the feed's age) read.
 */
const D1_ROWS_PER_DAY = { read: 288 * 2, written: 288 * 3 + 24 };

export interface StoreMeasurements {
  feed_ms: number;
  snapshot_ms: number;
  feed_rows: { read: number; written: number };
  snapshot_rows: { read: number; written: number };
  object_bytes_per_store: number;
  d1_bytes_per_store: number;
}

/** Each line of a store's month in USD, and the total. */
export function costPerStoreMonth(m: StoreMeasurements) {
  const { feed_pages: feeds, snapshots } = STORE_MONTH;
  const requests = feeds + snapshots;
  const million = (n: number) => n / 1e6;
  const gbSeconds = ((feeds * m.feed_ms + snapshots * m.snapshot_ms) / 1000) * OBJECT_GB;
  const lines = {
    object_requests: million(requests) * PRICES_USD.objectRequestsPerMillion,
    // An upper bound: the whole request's time here, not the object's share of it.
    object_duration: million(gbSeconds) * PRICES_USD.durationPerMillionGbS,
    object_rows_read: million(feeds * m.feed_rows.read + snapshots * m.snapshot_rows.read) * PRICES_USD.rowsReadPerMillion,
    object_rows_written: million(feeds * m.feed_rows.written + snapshots * m.snapshot_rows.written) * PRICES_USD.rowsWrittenPerMillion,
    object_storage: (m.object_bytes_per_store / GB) * PRICES_USD.objectStoragePerGbMonth,
    d1_storage: (m.d1_bytes_per_store / GB) * PRICES_USD.d1StoragePerGbMonth,
    d1_rows_estimated:
      million(D1_ROWS_PER_DAY.read * 30) * PRICES_USD.rowsReadPerMillion + million(D1_ROWS_PER_DAY.written * 30) * PRICES_USD.rowsWrittenPerMillion,
    worker_requests: million(requests) * PRICES_USD.workerRequestsPerMillion,
  };
  const total = Object.values(lines).reduce((a, b) => a + b, 0);
  return { assumptions: { ...STORE_MONTH, object_gb_s: Number(gbSeconds.toFixed(1)), d1_rows_per_day: D1_ROWS_PER_DAY }, lines, total };
}
