import type { Context } from "hono";
import { brokerTokenCache } from "../credentials/credential-cache";
import { BROKER_TOKEN_PREFIX, sha256Hex } from "../credentials/tokens";
import { findActiveBrokerTokenByHash } from "../db/queries/credentials";
import type { AppEnv } from "./app-env";
import { SERVICE_MODE_HEADER } from "./auth";
import { assertCredentialLookupAllowed, countFailedCredentialLookup } from "./credential-failures";
import { unauthorized } from "./errors";
import { assertOrgInStanding } from "./org-standing";

const BROKER_TOKEN_PATTERN = new RegExp(`^${BROKER_TOKEN_PREFIX}[0-9A-Za-z]{40}$`);

/** The active broker token of an `Authorization: Bearer <broker token>` header, or a 401. */
export async function brokerTokenFromAuthorization(c: Context<AppEnv>, authorization: string) {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (!token || !BROKER_TOKEN_PATTERN.test(token)) {
    throw unauthorized(`The Authorization header must be "Bearer <broker token>" with a ${BROKER_TOKEN_PREFIX} token.`);
  }
  const nowMs = Date.now();
  const hash = await sha256Hex(token);
  // Looked up once a minute per isolate, as `lak_` keys are (src/http/auth.ts): a revocation reaches
  // other isolates within the cache's 60 s (docs/consistency.md).
  const record = await brokerTokenCache.get(hash, nowMs, () => {
    assertCredentialLookupAllowed(c, nowMs);
    return findActiveBrokerTokenByHash(c.get("db"), hash);
  });
  if (!record) {
    await countFailedCredentialLookup(c, nowMs);
    throw unauthorized("This broker token is unknown or has been revoked.");
  }
  // Before the standing check, so a sandbox's `sandbox_expired` is marked too (docs/sandboxes.md).
  c.header(SERVICE_MODE_HEADER, record.org.isSandbox ? "test" : "live");
  assertOrgInStanding(record.org, nowMs);
  return record;
}
