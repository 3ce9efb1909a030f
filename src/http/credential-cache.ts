/**
 * Per-isolate memo of credential lookups by hash. Entries live at most 60 s, which bounds how long
 * a revocation takes to reach every isolate; the isolate that revokes evicts at once.
 */
export const CREDENTIAL_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

export class CredentialCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  async get(hash: string, nowMs: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(hash);
    if (hit && hit.expiresAt > nowMs) return hit.value;
    const value = await load();
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { value, expiresAt: nowMs + CREDENTIAL_CACHE_TTL_MS });
    return value;
  }

  evict(hash: string): void {
    this.entries.delete(hash);
  }
}
