import { and, desc, eq, isNull, sql } from "drizzle-orm";
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
  expiresAt: apiKeys.expiresAt,
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
 * Marks the key revoked and returns its hash (for cache eviction) and its revocation time (for its
 * quota counter), or null when the organization has no key with that id. Revoking again keeps the
 * first revocation time.
 */
export async function revokeApiKey(
  db: Database,
  orgId: string,
  id: string,
  revokedAt: string,
): Promise<{ keyHash: string; revokedAt: string } | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${revokedAt})` })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId)))
    .returning({ keyHash: apiKeys.keyHash, revokedAt: apiKeys.revokedAt });
  return row ? { keyHash: row.keyHash, revokedAt: row.revokedAt ?? revokedAt } : null;
}

export async function findApiKey(db: Database, orgId: string, id: string) {
  const [row] = await db
    .select(keyMetadata)
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId)))
    .limit(1);
  return row ?? null;
}

/**
 * The successor key and the old key's end, in one batch. The old key's end is set only while it
 * is neither revoked nor already expiring; `rotated` is null when that condition failed (a
 * concurrent rotation or revocation won), and the successor is then deleted again.
 */
export async function rotateApiKey(db: Database, orgId: string, oldId: string, successor: NewApiKey, expiresAt: string) {
  const [ended, [created]] = await db.batch([
    db
      .update(apiKeys)
      .set({ expiresAt })
      .where(and(eq(apiKeys.id, oldId), eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt), isNull(apiKeys.expiresAt)))
      .returning({ keyHash: apiKeys.keyHash }),
    db
      .insert(apiKeys)
      .values({ ...successor, orgId })
      .returning(keyMetadata),
  ]);
  if (ended.length === 0) {
    await db.delete(apiKeys).where(and(eq(apiKeys.id, successor.id), eq(apiKeys.orgId, orgId)));
    return null;
  }
  return { created, oldKeyHash: ended[0].keyHash };
}
