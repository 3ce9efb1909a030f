import type { Context, TypedResponse } from "hono";

// TextEncoder always encodes into a fresh ArrayBuffer, which a response body requires.
const serialized = new WeakMap<object, Uint8Array<ArrayBuffer>>();
const utf8 = new TextEncoder();

/**
 * `c.json(body)` for an answer held in a per-isolate cache: its JSON is made (and encoded as UTF-8)
 * once per cached value and kept beside it while the value lives, instead of once per request (serializing a cached
 * report on every call was a large share of its cost: BENCHMARKS.md#figures-behind-choices-in-the-code).
 * `project` turns the cached value into the response body (one projection per cached value: the
 * JSON is kept by value); cached values are never mutated.
 */
export function cachedJson<S extends object, T = S>(
  c: Context,
  source: S,
  { project, headers }: { project?: (source: S) => T; headers?: Record<string, string> } = {},
) {
  let body = serialized.get(source);
  if (body === undefined) {
    body = utf8.encode(JSON.stringify(project ? project(source) : source)) as Uint8Array<ArrayBuffer>;
    serialized.set(source, body);
  }
  return jsonText<T>(c, body, headers);
}

/** A JSON body already serialized, as the route's 200, typed as `c.json` of a `T` would be. */
export function jsonText<T>(c: Context, text: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  return c.body(text, 200, { ...headers, "Content-Type": "application/json" }) as unknown as TypedResponse<T, 200, "json">;
}
