import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, brokerTokens, legacyTokens, operatorTokens, organizations } from "../schema";

/** The organization's standing, read with every credential: suspended, sandbox, expiry. */
const orgStanding = {
  suspendedAt: organizations.suspendedAt,
  isSandbox: organizations.isSandbox,
  expiresAt: organizations.expiresAt,
};

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  scopes: string[] | null;
  dailyLimit: number;
  permissions: string[];
  /** A rotated key's end (ISO-8601 UTC): the record may be cached past it, so it is checked at each use. */
  expiresAt: string | null;
  org: { suspendedAt: string | null; isSandbox: boolean; expiresAt: string | null };
}

/**
 * Looked up by hash, so no secret is ever compared character by character. Revoked keys, and
 * rotated keys whose overlap ended before `now` (ISO-8601 UTC), are not found.
 */
export async function findActiveApiKeyByHash(db: Database, keyHash: string, now: string): Promise<ApiKeyRecord | null> {
  const [row] = await db
    .select({
      id: apiKeys.id,
      orgId: apiKeys.orgId,
      scopes: apiKeys.scopes,
      dailyLimit: apiKeys.dailyLimit,
      permissions: apiKeys.permissions,
      expiresAt: apiKeys.expiresAt,
      org: orgStanding,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.orgId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))))
    .limit(1);
  return row ?? null;
}

/** Broker and legacy tokens share one shape; either kind is found by hash only while not revoked. */
async function findActiveTokenByHash(db: Database, table: typeof brokerTokens | typeof legacyTokens, tokenHash: string) {
  const [row] = await db
    .select({ id: table.id, orgId: table.orgId, org: orgStanding })
    .from(table)
    .innerJoin(organizations, eq(organizations.id, table.orgId))
    .where(and(eq(table.tokenHash, tokenHash), isNull(table.revokedAt)))
    .limit(1);
  return row ?? null;
}

/** An operator token by hash, while not revoked. */
export async function findActiveOperatorTokenByHash(db: Database, tokenHash: string) {
  const [row] = await db
    .select({ id: operatorTokens.id })
    .from(operatorTokens)
    .where(and(eq(operatorTokens.tokenHash, tokenHash), isNull(operatorTokens.revokedAt)))
    .limit(1);
  return row ?? null;
}

export const findActiveLegacyTokenByHash = (db: Database, tokenHash: string) => findActiveTokenByHash(db, legacyTokens, tokenHash);

export const findActiveBrokerTokenByHash = (db: Database, tokenHash: string) => findActiveTokenByHash(db, brokerTokens, tokenHash);

export type LegacyTokenRecord = NonNullable<Awaited<ReturnType<typeof findActiveLegacyTokenByHash>>>;
export type BrokerTokenRecord = NonNullable<Awaited<ReturnType<typeof findActiveBrokerTokenByHash>>>;
