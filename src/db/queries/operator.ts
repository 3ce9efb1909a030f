import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, brokerTokens, legacyTokens, lenderPrograms, organizations, staffUsers, storeLenderPanel, stores } from "../schema";

/**
 * The operator API's reads and writes (/api/operator). They act on one organization named by the
 * operator, so, like every query here, each one takes that organization's id.
 */

const organizationFields = {
  id: organizations.id,
  name: organizations.name,
  isDemo: organizations.isDemo,
  isSandbox: organizations.isSandbox,
  storage: organizations.storage,
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
  const [row] = await db
    .insert(organizations)
    .values({ ...org, storage: "object" })
    .onConflictDoNothing()
    .returning(organizationFields);
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

export type NewStore = typeof stores.$inferInsert;

/** Null when the id is taken. */
/**
 * A new store, with a lender panel that routes from its first deal: every reference program but
 * the buy-here-pay-here ones (a dealer's own financing, not an outside lender). Both in one batch;
 * the panel is written only when the store row was (SQLite's changes() counts the statement
 * before it), so an id that is taken leaves the existing store's panel as it was.
 */
export async function insertStore(db: Database, orgId: string, store: Omit<NewStore, "orgId">) {
  const [[row]] = await db.batch([
    db
      .insert(stores)
      .values({ ...store, orgId })
      .onConflictDoNothing()
      .returning(),
    db
      .insert(storeLenderPanel)
      .select(
        sql`select ${orgId}, ${store.id}, ${lenderPrograms.id} from ${lenderPrograms} where ${lenderPrograms.type} <> 'bhph' and changes() = 1`,
      ),
  ]);
  return row ?? null;
}

export async function listStores(db: Database, orgId: string) {
  return db.select().from(stores).where(eq(stores.orgId, orgId)).orderBy(asc(stores.createdAt), asc(stores.id));
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
