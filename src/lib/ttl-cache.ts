interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * A per-isolate memo with a fixed lifetime per entry. A null load is not remembered, so a flood of
 * unknown keys cannot push known ones out. Concurrent misses each load for themselves:
 * sharing one in-flight load between requests would make one request await another's I/O, which
 * workerd refuses ("Cannot perform I/O on behalf of a different request").
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly options: { ttlMs: number; maxEntries: number }) {}

  async get(key: string, nowMs: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > nowMs) return hit.value;
    const value = await load();
    if (value === null) return value;
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: nowMs + this.options.ttlMs });
    return value;
  }

  evict(key: string): void {
    this.entries.delete(key);
  }
}
