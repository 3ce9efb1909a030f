interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * A per-isolate memo with a fixed lifetime per entry. A null load is not remembered, so a flood of
 * unknown keys cannot push known ones out. Concurrent misses each load for themselves:
 * sharing one in-flight load between requests would make one request await another's I/O, which
 * workerd refuses ("Cannot perform I/O on behalf of a different request").
 *
 * A load that was in flight when its key was evicted is returned to its caller but not stored: it
 * may have read the row before the change that caused the eviction (a key revoked meanwhile).
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Per key with loads in flight: how many, and how many evictions happened meanwhile. */
  private readonly loading = new Map<string, { loads: number; generation: number }>();

  constructor(private readonly options: { ttlMs: number; maxEntries: number }) {}

  async get(key: string, nowMs: number, load: () => Promise<T>): Promise<T> {
    const hit = this.peek(key, nowMs);
    if (hit !== undefined) return hit;
    const state = this.loading.get(key) ?? { loads: 0, generation: 0 };
    this.loading.set(key, state);
    const startedAt = state.generation;
    state.loads++;
    let value: T;
    try {
      value = await load();
    } finally {
      if (--state.loads === 0) this.loading.delete(key);
    }
    if (value !== null && state.generation === startedAt) this.set(key, value, nowMs);
    return value;
  }

  /** The live value for `key`, without loading. */
  peek(key: string, nowMs: number): T | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > nowMs ? hit.value : undefined;
  }

  set(key: string, value: T, nowMs: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: nowMs + this.options.ttlMs });
  }

  /** Evicts every key that starts with `prefix` (one organization's entries), loads in flight included. */
  evictPrefix(prefix: string): void {
    for (const key of [...this.entries.keys(), ...this.loading.keys()]) if (key.startsWith(prefix)) this.evict(key);
  }

  evict(key: string): void {
    this.entries.delete(key);
    const state = this.loading.get(key);
    if (state) state.generation++;
  }
}
