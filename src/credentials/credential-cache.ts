import type { ApiKeyRecord, BrokerTokenRecord, LegacyTokenRecord } from "../db/queries/credentials";
import { TtlCache } from "../lib/ttl-cache";

/**
 * How long an isolate may still admit a credential after its revocation or its organization's
 * suspension (docs/consistency.md#credentials): the age of the credential lookups memoised here,
 * and of the standing a key's quota counter last told an isolate (src/http/quota.ts), which says a
 * `lak_` key's revocation since that key is read at a replica. The isolate that revokes evicts at once.
 */
export const REVOCATION_WINDOW_MS = 60_000;

const CREDENTIAL_CACHE = { ttlMs: REVOCATION_WINDOW_MS, maxEntries: 10_000 };

export const apiKeyCache = new TtlCache<ApiKeyRecord | null>(CREDENTIAL_CACHE);
export const legacyTokenCache = new TtlCache<LegacyTokenRecord | null>(CREDENTIAL_CACHE);
export const brokerTokenCache = new TtlCache<BrokerTokenRecord | null>(CREDENTIAL_CACHE);

/**
 * The SHA-256 of each `lak_` key that matched a record here, by the key as sent, for the same window:
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
