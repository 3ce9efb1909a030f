import { createMiddleware } from "hono/factory";
import { apiKeyCache, legacyTokenCache, verifiedKeyHashes } from "../credentials/credential-cache";
import { apiKeyMode, isWellFormedApiKey, LEGACY_TOKEN_PREFIX, sha256Hex } from "../credentials/tokens";
import { getDb, getSessionDb } from "../db/client";
import { type ApiKeyRecord, findActiveApiKeyByHash, findActiveLegacyTokenByHash } from "../db/queries/credentials";
import type { AppEnv } from "./app-env";
import { assertCredentialLookupAllowed, countFailedCredentialLookup } from "./credential-failures";
import type { EndpointName } from "./endpoints";
import { ApiError, unauthorized } from "./errors";
import { assertKeyModeMatches, assertOrgInStanding, refusalError } from "./org-standing";

const API_KEY_HEADER = "X-Service-API-Key";
const LEGACY_TOKEN_HEADER = "X-Api-Token";
/** `test` on every answer to a sandbox's `lak_test_` key, `live` to a `lak_` key (docs/sandboxes.md). */
export const SERVICE_MODE_HEADER = "X-Service-Mode";

/** RFC 9745 / RFC 8594 values announced for the `svc_live_` scheme. */
const LEGACY_DEPRECATED_AT = Date.UTC(2026, 10, 1) / 1000;
const LEGACY_SUNSET = "Wed, 30 Jun 2027 23:59:59 GMT";

const LEGACY_TOKEN_PATTERN = new RegExp(`^${LEGACY_TOKEN_PREFIX}[0-9A-Za-z]{16,64}$`);

const isExpired = (record: ApiKeyRecord, nowMs: number) => record.expiresAt !== null && Date.parse(record.expiresAt) <= nowMs;

/** The SHA-256 of a `lak_` key, after refusing a `svc_live_` token or a malformed key in its header. */
async function hashOfWellFormedKey(key: string): Promise<string> {
  if (key.startsWith(LEGACY_TOKEN_PREFIX)) {
    throw unauthorized("svc_live_ tokens were issued under an older scheme and must be replaced with a lak_ key.");
  }
  if (!isWellFormedApiKey(key)) throw unauthorized(`The ${API_KEY_HEADER} header does not hold a valid lak_ key.`);
  return sha256Hex(key);
}

/**
 * Authenticates a `/api/v1/*` call for one endpoint. `lak_` keys work everywhere their scopes
 * allow; `svc_live_` tokens only where `legacy` is set, unmetered and marked deprecated.
 */
export function requireCredential(endpoint: EndpointName, options: { legacy?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header(API_KEY_HEADER);
    const legacyToken = c.req.header(LEGACY_TOKEN_HEADER);
    // A key is read at the nearest replica, and at the primary only when the replica does not know
    // it (created a moment ago); its revocation is said by its quota counter, which the quota step
    // asks before the handler runs (docs/consistency.md). Tokens are read at the primary.
    const db = getDb(c.env.DB);
    c.set("endpoint", endpoint);
    const nowMs = Date.now();

    if (key !== undefined) {
      const mode = apiKeyMode(key);
      // Set before any check, so every answer to the key carries it, the refusals below included
      // (onError's answer takes the headers set on the context; docs/sandboxes.md).
      c.header(SERVICE_MODE_HEADER, mode);
      const verifiedHash = verifiedKeyHashes.peek(key, nowMs);
      const keyHash = verifiedHash ?? (await hashOfWellFormedKey(key));
      const record = await apiKeyCache.get(keyHash, nowMs, async () => {
        assertCredentialLookupAllowed(c, nowMs);
        const now = new Date(nowMs).toISOString();
        return (await findActiveApiKeyByHash(getSessionDb(c.env.DB, "nearest-replica"), keyHash, now)) ?? findActiveApiKeyByHash(db, keyHash, now);
      });
      if (!record) {
        await countFailedCredentialLookup(c, nowMs);
        throw refusalError("unknown");
      }
      if (verifiedHash === undefined) verifiedKeyHashes.set(key, keyHash, nowMs);
      // A cached record outlives a rotated key's end by up to a minute: the end is checked here.
      if (isExpired(record, nowMs)) throw refusalError("rotated");
      // The organization's standing rides in the cached record, and a suspension is also said by
      // each key's quota counter (docs/consistency.md); a sandbox's expiry counts at once.
      assertKeyModeMatches(mode, record.org);
      assertOrgInStanding(record.org, nowMs);
      if (record.scopes && !record.scopes.includes(endpoint)) {
        throw new ApiError("forbidden", `This key's scopes do not include the ${endpoint} endpoint.`);
      }
      c.set("principal", { kind: "api_key", keyId: record.id, orgId: record.orgId, dailyLimit: record.dailyLimit, permissions: record.permissions });
      await next();
      // On the response itself (success or error below this point), like the deprecation headers.
      c.res.headers.set(SERVICE_MODE_HEADER, mode);
      return;
    }

    if (legacyToken !== undefined) {
      if (!options.legacy) {
        throw unauthorized(
          `This endpoint requires the ${API_KEY_HEADER} header; ${LEGACY_TOKEN_HEADER} is accepted on inventory and sales-summary only.`,
        );
      }
      if (!LEGACY_TOKEN_PATTERN.test(legacyToken)) throw unauthorized(`The ${LEGACY_TOKEN_HEADER} header does not hold a valid svc_live_ token.`);
      const hash = await sha256Hex(legacyToken);
      const record = await legacyTokenCache.get(hash, nowMs, () => {
        assertCredentialLookupAllowed(c, nowMs);
        return findActiveLegacyTokenByHash(db, hash);
      });
      if (!record) {
        await countFailedCredentialLookup(c, nowMs);
        throw unauthorized("This token is unknown or has been revoked.");
      }
      assertOrgInStanding(record.org, nowMs);
      c.set("principal", { kind: "legacy_token", tokenId: record.id, orgId: record.orgId });
      await next();
      // On the response itself: c.header() after the handler would copy the whole response.
      c.res.headers.set("Deprecation", `@${LEGACY_DEPRECATED_AT}`);
      c.res.headers.set("Sunset", LEGACY_SUNSET);
      c.res.headers.set("Link", '</api/openapi.json>; rel="deprecation"; type="application/json"');
      return;
    }

    throw unauthorized(`A valid ${API_KEY_HEADER} header is required.`);
  });
}
