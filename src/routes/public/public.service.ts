import { describeError, logEvent } from "../../lib/log";

/**
 * One copy of a public answer, as the JSON every caller receives in UTF-8 (serialized and encoded
 * once per copy, not per request: BENCHMARKS.md#figures-behind-choices-in-the-code), and when it
 * was computed (in whichever isolate computed it).
 */
interface AnswerCopy {
  json: Uint8Array<ArrayBuffer>;
  computedAtMs: number;
}

const utf8 = new TextEncoder();

export interface AnswerRequest<T> {
  /** Any URL on the serving origin; the Cache API entry lives under the answer's own path on it. */
  url: string;
  nowMs: number;
  compute: () => Promise<T>;
  waitUntil: (promise: Promise<unknown>) => void;
}

const COMPUTED_AT_HEADER = "X-Computed-At";

/**
 * An answer every caller shares, served from a per-isolate copy, then from the Cache API (shared by
 * the isolates of a data center), and computed only when neither holds a copy younger than
 * `maxAgeMs`. Age counts from the computation, wherever it ran, so no caller ever gets an answer
 * older than `maxAgeMs`. Only plain values are kept: concurrent misses each compute for themselves
 * (no request awaits another's I/O, which workerd refuses). TtlCache does not fit: its lifetime
 * starts at the load, not at the computation.
 */
export class SharedAnswer<T> {
  private copy: AnswerCopy | undefined;

  constructor(private readonly options: { path: string; maxAgeMs: number }) {}

  async get({ url, nowMs, compute, waitUntil }: AnswerRequest<T>): Promise<AnswerCopy> {
    if (this.copy && this.isFresh(this.copy.computedAtMs, nowMs)) return this.copy;
    const cache = caches.default;
    const cacheKey = new Request(new URL(this.options.path, url));
    const shared = await cache.match(cacheKey).catch(() => undefined);
    if (shared) {
      const computedAtMs = Number(shared.headers.get(COMPUTED_AT_HEADER));
      if (this.isFresh(computedAtMs, nowMs)) {
        this.copy = { json: new Uint8Array(await shared.arrayBuffer()), computedAtMs };
        return this.copy;
      }
      await shared.body?.cancel();
    }
    const copy = { json: utf8.encode(JSON.stringify(await compute())) as Uint8Array<ArrayBuffer>, computedAtMs: nowMs };
    this.copy = copy;
    const stored = new Response(copy.json, {
      headers: {
        "Content-Type": "application/json",
        "Cache-Control": `public, max-age=${Math.ceil(this.options.maxAgeMs / 1000)}`,
        [COMPUTED_AT_HEADER]: String(nowMs),
      },
    });
    waitUntil(
      cache.put(cacheKey, stored).catch((error: unknown) => logEvent("error", { event: "public_cache_put_failed", ...describeError(error) })),
    );
    return copy;
  }

  private isFresh(computedAtMs: number, nowMs: number): boolean {
    return Number.isFinite(computedAtMs) && nowMs - computedAtMs < this.options.maxAgeMs;
  }
}
