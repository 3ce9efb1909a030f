import { describe, expect, it } from "vitest";
import { TtlCache } from "../../src/lib/ttl-cache";

const T0 = 1_000_000;

describe("TtlCache", () => {
  it("keeps no null: an unknown credential is looked up again every time", async () => {
    const cache = new TtlCache<string | null>({ ttlMs: 60_000, maxEntries: 10 });
    let loads = 0;
    const load = async () => {
      loads++;
      return null;
    };
    expect(await cache.get("unknown", T0, load)).toBeNull();
    expect(await cache.get("unknown", T0 + 1, load)).toBeNull();
    expect(loads).toBe(2);
    expect(cache.peek("unknown", T0 + 1)).toBeUndefined();
  });

  it("answers from memory until the entry's lifetime ends", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    let loads = 0;
    const load = async () => `value ${++loads}`;
    expect(await cache.get("k", T0, load)).toBe("value 1");
    expect(await cache.get("k", T0 + 59_999, load)).toBe("value 1");
    expect(await cache.get("k", T0 + 60_000, load)).toBe("value 2");
  });

  it("drops the oldest entry when full, so a flood of keys cannot grow it", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    for (const key of ["a", "b", "c"]) await cache.get(key, T0, async () => key);
    expect(cache.peek("a", T0)).toBeUndefined();
    expect(cache.peek("b", T0)).toBe("b");
    expect(cache.peek("c", T0)).toBe("c");
  });

  it("does not store a load that was in flight when its key was evicted, but stores one started after", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    let finishStale!: (value: string) => void;
    const stale = cache.get("key", T0, () => new Promise<string>((resolve) => (finishStale = resolve)));
    cache.evict("key");
    let finishFresh!: (value: string) => void;
    const fresh = cache.get("key", T0, () => new Promise<string>((resolve) => (finishFresh = resolve)));
    finishStale("read before the eviction");
    // The caller that started the load still gets its answer; the cache does not keep it.
    expect(await stale).toBe("read before the eviction");
    expect(cache.peek("key", T0)).toBeUndefined();
    finishFresh("read after the eviction");
    expect(await fresh).toBe("read after the eviction");
    expect(cache.peek("key", T0)).toBe("read after the eviction");
  });

  it("loads again after a failed load, and stores that one", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    await expect(cache.get("key", T0, () => Promise.reject(new Error("D1 down")))).rejects.toThrow("D1 down");
    expect(await cache.get("key", T0, async () => "loaded")).toBe("loaded");
    expect(cache.peek("key", T0)).toBe("loaded");
  });

  it("evicts every key of one prefix (one organization's entries) and leaves the others", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    cache.set("org_a:1", "a1", T0);
    cache.set("org_a:2", "a2", T0);
    cache.set("org_ab:1", "ab", T0);
    cache.evictPrefix("org_a:");
    expect([cache.peek("org_a:1", T0), cache.peek("org_a:2", T0), cache.peek("org_ab:1", T0)]).toEqual([undefined, undefined, "ab"]);
  });
});
