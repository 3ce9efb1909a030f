import type { ApiKeyRecord, BrokerTokenRecord, LegacyTokenRecord } from "../db/queries/credentials";
import { TtlCache } from "../lib/ttl-cache";

/**
 * Credential lookups by hash are memoised per isolate for at most 60 s, which bounds how long a
 * token's revocation takes to reach every isolate; the isolate that revokes evicts at once. A
 * `lak_` key is read at a replica, so its revocation is said by its quota counter instead
 * (docs/consistency.md#credentials).
 */
const CREDENTIAL_CACHE = { ttlMs: 60_000, maxEntries: 10_000 };

export const apiKeyCache = new TtlCache<ApiKeyRecord | null>(CREDENTIAL_CACHE);
export const legacyTokenCache = new TtlCache<LegacyTokenRecord | null>(CREDENTIAL_CACHE);
export const brokerTokenCache = new TtlCache<BrokerTokenRecord | null>(CREDENTIAL_CACHE);

/**
 * The SHA-256 of each `lak_` key that matched a record here, by the key as sent, for the same 60 s:
 * checking a key's checksum and hashing it was about a sixth of a metered call's CPU in workerd
 * (BENCHMARKS.md, "Profiles"). In this isolate's memory only, like the request that carried the key;
 * never stored, logged or sent. A revoked key still maps to its hash, whose record is then looked up
 * again and refused.
 */
export const verifiedKeyHashes = new TtlCache<string>(CREDENTIAL_CACHE);

/** Called when a key is revoked, so this isolate refuses it from the next request on. */
export function evictApiKey(keyHash: string): void {
  apiKeyCache.evict(keyHash);
}

/** Called when an organization is suspended, so this isolate refuses all its credentials from the next request on. */
export function evictOrganizationCredentials(hashes: {
  keyHashes: readonly string[];
  brokerTokenHashes: readonly string[];
  legacyTokenHashes: readonly string[];
}): void {
  for (const hash of hashes.keyHashes) apiKeyCache.evict(hash);
  for (const hash of hashes.brokerTokenHashes) brokerTokenCache.evict(hash);
  for (const hash of hashes.legacyTokenHashes) legacyTokenCache.evict(hash);
}

/**
 * Called when the operator API revokes a broker token, so this isolate refuses it from the next
 * request on. `npm run broker-token -- revoke` writes D1 from outside any isolate: every isolate
 * then refuses the token within the cache's 60 s.
 */
export function evictBrokerToken(tokenHash: string): void {
  brokerTokenCache.evict(tokenHash);
}
