import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys } from "../schema";

export interface NewApiKey {
  id: string;
  keyHash: string;
  keyPrefix: string;
  label: string;
  permissions: string[];
  scopes: string[] | null;
  dailyLimit: number;
  createdBy: string;
}

const keyMetadata = {
  id: apiKeys.id,
  keyPrefix: apiKeys.keyPrefix,
  label: apiKeys.label,
  permissions: apiKeys.permissions,
  scopes: apiKeys.scopes,
  dailyLimit: apiKeys.dailyLimit,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};

export async function insertApiKey(db: Database, orgId: string, key: NewApiKey) {
  const [row] = await db
    .insert(apiKeys)
    .values({ ...key, orgId })
    .returning(keyMetadata);
  return row;
}

/** Active and revoked keys alike, newest first; never the hash. */
export async function listApiKeys(db: Database, orgId: string) {
  // rowid breaks ties in insertion order: two keys can share a millisecond of created_at.
  return db.select(keyMetadata).from(apiKeys).where(eq(apiKeys.orgId, orgId)).orderBy(desc(apiKeys.createdAt), desc(sql`rowid`));
}

export type ApiKeyMetadata = Awaited<ReturnType<typeof listApiKeys>>[number];

/**
 * Marks the key revoked and returns its hash (for cache eviction), or null when the organization
 * has no key with that id. Revoking again keeps the first revocation time.
 */
export async function revokeApiKey(db: Database, orgId: string, id: string, revokedAt: string): Promise<string | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${revokedAt})` })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId)))
    .returning({ keyHash: apiKeys.keyHash });
  return row?.keyHash ?? null;
}
