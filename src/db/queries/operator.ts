import { and, asc, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, brokerTokens, legacyTokens, lenderPrograms, organizations, staffUsers, stores } from "../schema";

/**
 * The operator API's reads and writes (/api/operator). They act on one organization named by the
 * operator, so, like every query here, each one takes that organization's id.
 */

const organizationFields = {
  id: organizations.id,
  name: organizations.name,
  isDemo: organizations.isDemo,
  isSandbox: organizations.isSandbox,
  suspendedAt: organizations.suspendedAt,
  expiresAt: organizations.expiresAt,
  createdAt: organizations.createdAt,
};

export type OrganizationRow = NonNullable<Awaited<ReturnType<typeof findOrganization>>>;

export async function findOrganization(db: Database, orgId: string) {
  const [row] = await db.select(organizationFields).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row ?? null;
}

/** Null when the id is taken. Born in its storage object (docs/scaling.md), which the caller opens next. */
export async function insertOrganization(db: Database, org: { id: string; name: string }) {
  const [row] = await db.insert(organizations).values(org).onConflictDoNothing().returning(organizationFields);
  return row ?? null;
}

/** An organization whose storage object could not be opened: nothing refers to it yet. */
export async function deleteNewOrganization(db: Database, orgId: string) {
  await db.delete(organizations).where(eq(organizations.id, orgId));
}

/** Live organizations, and sandboxes too when asked; oldest first. */
export async function listOrganizations(db: Database, options: { includeSandboxes: boolean }) {
  return db
    .select(organizationFields)
    .from(organizations)
    .where(options.includeSandboxes ? undefined : eq(organizations.isSandbox, false))
    .orderBy(asc(organizations.createdAt), asc(organizations.id));
}

/**
 * Suspends (keeping the first suspension time) or reinstates. Returns the organization, the
 * hashes of its credentials (keys, broker tokens, legacy tokens), so the caller can drop them from
 * this isolate's credential cache, and its keys' ids, whose quota counters it tells.
 */
export async function setOrganizationSuspended(db: Database, orgId: string, suspendedAt: string | null) {
  const [updated, keys, tokens, legacy] = await db.batch([
    db
      .update(organizations)
      .set({ suspendedAt: suspendedAt === null ? null : sql`coalesce(${organizations.suspendedAt}, ${suspendedAt})` })
      .where(eq(organizations.id, orgId))
      .returning(organizationFields),
    db.select({ id: apiKeys.id, keyHash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.orgId, orgId)),
    db.select({ tokenHash: brokerTokens.tokenHash }).from(brokerTokens).where(eq(brokerTokens.orgId, orgId)),
    db.select({ tokenHash: legacyTokens.tokenHash }).from(legacyTokens).where(eq(legacyTokens.orgId, orgId)),
  ]);
  const [org] = updated;
  return org
    ? {
        org,
        keyIds: keys.map((k) => k.id),
        keyHashes: keys.map((k) => k.keyHash),
        brokerTokenHashes: tokens.map((t) => t.tokenHash),
        legacyTokenHashes: legacy.map((t) => t.tokenHash),
      }
    : null;
}

/** A store as the directory (D1) holds it; its settings and lender panel are its organization's object's. */
const directoryStoreFields = {
  id: stores.id,
  orgId: stores.orgId,
  name: stores.name,
  marketZip: stores.marketZip,
  isPrimary: stores.isPrimary,
  createdAt: stores.createdAt,
};

/**
 * A new store in the directory, null when the id is taken; and, read in the same batch, the lender
 * panel a new store routes over from its first deal: every reference program but the
 * buy-here-pay-here ones (a dealer's own financing, not an outside lender).
 */
export async function insertStore(db: Database, orgId: string, store: { id: string; name: string; marketZip: string; isPrimary?: boolean }) {
  const [[row], programs] = await db.batch([
    db
      .insert(stores)
      .values({ ...store, orgId })
      .onConflictDoNothing()
      .returning(directoryStoreFields),
    db.select({ id: lenderPrograms.id }).from(lenderPrograms).where(ne(lenderPrograms.type, "bhph")).orderBy(asc(lenderPrograms.id)),
  ]);
  return row ? { row, panel: programs.map((p) => p.id) } : null;
}

/** A store whose object could not take it: nothing refers to it yet. */
export async function deleteNewStore(db: Database, orgId: string, storeId: string) {
  await db.delete(stores).where(and(eq(stores.orgId, orgId), eq(stores.id, storeId)));
}

export async function listStores(db: Database, orgId: string) {
  return db.select(directoryStoreFields).from(stores).where(eq(stores.orgId, orgId)).orderBy(asc(stores.createdAt), asc(stores.id));
}

export type StoreRow = Awaited<ReturnType<typeof listStores>>[number];

/** Null when the e-mail address is taken (in any organization: it is the login). */
export async function insertStaffUser(db: Database, orgId: string, user: { id: string; email: string; name: string; passwordHash: string }) {
  const [row] = await db
    .insert(staffUsers)
    .values({ ...user, orgId })
    .onConflictDoNothing()
    .returning({ id: staffUsers.id, orgId: staffUsers.orgId, email: staffUsers.email, name: staffUsers.name, createdAt: staffUsers.createdAt });
  return row ?? null;
}

const brokerTokenFields = { id: brokerTokens.id, label: brokerTokens.label, createdAt: brokerTokens.createdAt, revokedAt: brokerTokens.revokedAt };

export async function insertBrokerToken(db: Database, orgId: string, token: { id: string; tokenHash: string; label: string }) {
  const [row] = await db
    .insert(brokerTokens)
    .values({ ...token, orgId })
    .returning(brokerTokenFields);
  return row;
}

export async function listBrokerTokens(db: Database, orgId: string) {
  return db.select(brokerTokenFields).from(brokerTokens).where(eq(brokerTokens.orgId, orgId)).orderBy(desc(brokerTokens.createdAt), desc(sql`rowid`));
}

/** The revoked token's hash (for the credential cache), or null when the organization has no active token with that id. */
export async function revokeBrokerToken(db: Database, orgId: string, id: string, revokedAt: string): Promise<string | null> {
  const [row] = await db
    .update(brokerTokens)
    .set({ revokedAt })
    .where(and(eq(brokerTokens.id, id), eq(brokerTokens.orgId, orgId), isNull(brokerTokens.revokedAt)))
    .returning({ tokenHash: brokerTokens.tokenHash });
  return row?.tokenHash ?? null;
}
