import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../http/app-env";
import { apiKeys, legacyTokens } from "../schema";

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  keyPrefix: string;
  scopes: string[] | null;
  dailyLimit: number;
}

/** Looked up by hash, so no secret is ever compared character by character. Revoked keys are not found. */
export async function findActiveApiKeyByHash(db: Database, keyHash: string): Promise<ApiKeyRecord | null> {
  const [row] = await db
    .select({ id: apiKeys.id, orgId: apiKeys.orgId, keyPrefix: apiKeys.keyPrefix, scopes: apiKeys.scopes, dailyLimit: apiKeys.dailyLimit })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row ?? null;
}

export async function findActiveLegacyTokenByHash(db: Database, tokenHash: string): Promise<{ id: string; orgId: string } | null> {
  const [row] = await db
    .select({ id: legacyTokens.id, orgId: legacyTokens.orgId })
    .from(legacyTokens)
    .where(and(eq(legacyTokens.tokenHash, tokenHash), isNull(legacyTokens.revokedAt)))
    .limit(1);
  return row ?? null;
}
