/**
 * The latency model of `npm run bench:latency`: what each binding's round trip costs a dealer far
 * from the database's primary (issue 37), and how a request's calls are counted.
 *
 * The figures are the model's inputs, not measurements of ours:
 * - D1 primary 150 ms: a D1 database's primary lives in one location; a dealer in Honolulu or Miami
 *   served by a nearby Cloudflare location crosses the continent (or the Pacific) and back to it.
 *   Without the Sessions API every query goes to the primary
 *   (https://developers.cloudflare.com/d1/best-practices/read-replication/).
 * - D1 replica 8 ms: read replication places a replica in each D1 region and routes a session's
 *   reads to a nearby one (same page; https://blog.cloudflare.com/d1-read-replication-beta/).
 * - Durable Object 25 ms: an object lives where it was first created, usually near its first caller
 *   (https://developers.cloudflare.com/durable-objects/reference/data-location/); a key used from
 *   one dealership reaches it in the same region. Counted apart: the quota's object (`QUOTA`,
 *   `durable_object`) and the organization's storage object (`ORG_STORE`, `org_object`), which a
 *   dealer group's traffic first creates near itself, the same distance.
 * - Queue 25 ms: a send is acknowledged once the message is stored by the queue, another service in
 *   the region (https://developers.cloudflare.com/queues/reference/how-queues-works/).
 * - Cache API 5 ms: the cache is the serving data centre's own
 *   (https://developers.cloudflare.com/workers/runtime-apis/cache/).
 */
export const ROUND_TRIP_MS = { primary: 150, replica: 8, durable_object: 25, org_object: 25, queue: 25, cache: 5 } as const;

export type Hop = keyof typeof ROUND_TRIP_MS;
export const HOPS = Object.keys(ROUND_TRIP_MS) as Hop[];

/** One binding call of a request: where it went and when (ms on the Worker's clock). */
export interface Call {
  hop: Hop;
  what: string;
  start: number;
  end: number;
}

/** Whether a statement changes the database (a write goes to the primary whatever the session). */
export const isWrite = (sql: string) => /^\s*(insert|update|delete|replace)\b/i.test(sql) || /\)\s*(insert|update|delete)\s/i.test(sql);

/**
 * The sequential round trips of a request, by hop: calls that overlap in time are one wave, and a
 * hop counts once per wave it appears in. Only calls that ended by the time the Worker answered are
 * on the request's path; work left to `waitUntil` (a lease refilled ahead of need, usage) is not.
 */
export function sequentialRoundTrips(calls: Call[], answeredAt: number): Record<Hop, number> {
  const counts = Object.fromEntries(HOPS.map((hop) => [hop, 0])) as Record<Hop, number>;
  for (const wave of waves(calls, answeredAt)) for (const hop of wave) counts[hop] += 1;
  return counts;
}

/** What the model adds to a request's time: each wave waits for its slowest hop. */
export const modelledWaitMs = (calls: Call[], answeredAt: number) =>
  waves(calls, answeredAt).reduce((sum, wave) => sum + Math.max(...[...wave].map((hop) => ROUND_TRIP_MS[hop])), 0);

/** The hops of each wave of calls on the request's path, in order. */
function waves(calls: Call[], answeredAt: number): Set<Hop>[] {
  const onPath = calls.filter((c) => c.end <= answeredAt).sort((a, b) => a.start - b.start);
  const found: Set<Hop>[] = [];
  let waveEnd = Number.NEGATIVE_INFINITY;
  for (const call of onPath) {
    if (call.start >= waveEnd) found.push(new Set());
    found[found.length - 1].add(call.hop);
    waveEnd = Math.max(waveEnd, call.end);
  }
  return found;
}
