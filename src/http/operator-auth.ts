import { createMiddleware } from "hono/factory";
import { OPERATOR_TOKEN_PREFIX, sha256Hex } from "../credentials/tokens";
import { findActiveOperatorTokenByHash } from "../db/queries/credentials";
import { findOrganization } from "../db/queries/operator";
import type { AppEnv } from "./app-env";
import { assertCredentialLookupAllowed, countFailedCredentialLookup } from "./credential-failures";
import { ApiError, unauthorized } from "./errors";
import { idempotentFor } from "./idempotency";

const OPERATOR_TOKEN_PATTERN = new RegExp(`^${OPERATOR_TOKEN_PREFIX}[0-9A-Za-z]{40}$`);

/**
 * The operator API (/api/operator) takes `Authorization: Bearer dot_…` and nothing else: a dealer
 * key, broker token or staff session is refused here, and an operator token is refused everywhere
 * else (it is neither a `lak_` key nor a `dbt_` token). Looked up at the primary on every call, not
 * cached, so a revoked operator token stops at once.
 */
export const requireOperator = createMiddleware<AppEnv>(async (c, next) => {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!token || !OPERATOR_TOKEN_PATTERN.test(token)) {
    throw unauthorized(`The operator API requires "Authorization: Bearer <operator token>" with a ${OPERATOR_TOKEN_PREFIX} token.`);
  }
  const nowMs = Date.now();
  assertCredentialLookupAllowed(c, nowMs);
  const record = await findActiveOperatorTokenByHash(c.get("db"), await sha256Hex(token));
  if (!record) {
    await countFailedCredentialLookup(c, nowMs);
    throw unauthorized("This operator token is unknown or has been revoked.");
  }
  c.set("operatorTokenId", record.id);
  await next();
});

/**
 * After `requireOperator` on a route under /api/operator/organizations/{org_id}/…: the operator
 * acts for that organization as its staff would, recorded as `operator:<token id>` (404 when no
 * organization has the id).
 */
export const actForOrganization = createMiddleware<AppEnv>(async (c, next) => {
  const org = await findOrganization(c.get("db"), c.req.param("org_id") ?? "");
  if (!org) throw new ApiError("not_found", "No organization with that id.");
  c.set("orgManager", { kind: "operator", tokenId: c.get("operatorTokenId"), orgId: org.id, isSandbox: org.isSandbox });
  await next();
});

/** `Idempotency-Key` on the operator's creates: an operator belongs to no organization, so its token names the scope. */
export const operatorIdempotent = idempotentFor((c) => {
  const tokenId = c.get("operatorTokenId");
  return tokenId ? `operator:${tokenId}` : undefined;
});
