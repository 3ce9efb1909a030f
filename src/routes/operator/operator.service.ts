import type { z } from "@hono/zod-openapi";
import { evictBrokerToken, evictOrganizationCredentials } from "../../credentials/credential-cache";
import { hashPassword } from "../../credentials/password";
import { BROKER_TOKEN_PREFIX, generateToken, sha256Hex } from "../../credentials/tokens";
import type { Database } from "../../db/client";
import * as operator from "../../db/queries/operator";
import type { StoreSettingsRow } from "../../db/queries/settings";
import { orgStore } from "../../durable-objects/org-storage-routing";
import { tellKeysSuspended } from "../../http/quota";
import { storeSettingColumnsOf, storeSettingsOf } from "../../http/store-setting-fields";
import { DomainError } from "../../lib/domain-error";
import { newId } from "../../lib/ids";
import type { CreateStaffUserRequestSchema, CreateStoreRequestSchema } from "./operator.routes";

type StorageEnv = Pick<Env, "DB" | "ORG_STORE">;

const noSuchOrganization = () => new DomainError("not_found", "No organization with that id.");

export function toOrganization(row: operator.OrganizationRow) {
  return {
    id: row.id,
    name: row.name,
    is_sandbox: row.isSandbox,
    is_demo: row.isDemo,
    suspended_at: row.suspendedAt,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
  };
}

export async function listOrganizations(db: Database, options: { includeSandboxes: boolean }) {
  return (await operator.listOrganizations(db, options)).map(toOrganization);
}

export async function requireOrganization(db: Database, orgId: string) {
  const org = await operator.findOrganization(db, orgId);
  if (!org) throw noSuchOrganization();
  return org;
}

/**
 * A new organization is born in its storage object (docs/scaling.md): D1's row first, so an id
 * already taken never reaches the object, then the object opened empty. An object that cannot be
 * opened takes D1's row back with it, so a retry with the same id starts again.
 */
export async function createOrganization(env: StorageEnv, db: Database, input: { id?: string; name: string }) {
  const row = await operator.insertOrganization(db, { id: input.id ?? newId("org"), name: input.name });
  if (!row) throw new DomainError("conflict", "An organization with that id exists.");
  try {
    await orgStore(env, row.id).seed(row.id);
  } catch (error) {
    await operator.deleteNewOrganization(db, row.id);
    throw error;
  }
  return toOrganization(row);
}

/**
 * The standing is read with every credential; keys and broker tokens are also cached per isolate
 * for up to 60 s, so this isolate drops the organization's at once and the others follow within the
 * minute. API keys are read at a replica, so each key's quota counter is told as well, as a
 * revocation is (docs/consistency.md); a counter that cannot be told fails the request (500), and
 * repeating it (which keeps the first suspension time) tells it.
 */
export async function setSuspended(env: Env, db: Database, orgId: string, suspended: boolean, nowMs: number) {
  const result = await operator.setOrganizationSuspended(db, orgId, suspended ? new Date(nowMs).toISOString() : null);
  if (!result) throw noSuchOrganization();
  evictOrganizationCredentials(result);
  await tellKeysSuspended(env.QUOTA, result.keyIds, result.org.suspendedAt);
  return toOrganization(result.org);
}

function toStore(row: operator.StoreRow, settings: StoreSettingsRow) {
  return {
    id: row.id,
    org_id: row.orgId,
    name: row.name,
    market_zip: row.marketZip,
    is_primary: row.isPrimary,
    ...storeSettingsOf(settings),
    created_at: row.createdAt,
  };
}

/**
 * The store in the directory (D1) first, so an id already taken never reaches the object, then its
 * settings (those the body leaves out at their defaults, the shipped figures) and its lender panel
 * in the organization's object. An object that cannot take it takes D1's row back with it, so a
 * retry with the same id starts again.
 */
export async function createStore(env: StorageEnv, db: Database, orgId: string, input: z.infer<typeof CreateStoreRequestSchema>) {
  await requireOrganization(db, orgId);
  const id = input.id ?? newId("sto");
  const created = await operator.insertStore(db, orgId, { id, name: input.name, marketZip: input.market_zip, isPrimary: input.is_primary });
  if (!created) throw new DomainError("conflict", "A store with that id exists.");
  let settings: StoreSettingsRow;
  try {
    settings = await orgStore(env, orgId).addStore(orgId, { id, name: input.name, ...storeSettingColumnsOf(input) }, created.panel);
  } catch (error) {
    await operator.deleteNewStore(db, orgId, id);
    throw error;
  }
  return toStore(created.row, settings);
}

/** The directory's stores, with their settings read from the organization's object (one call), where they are kept. */
export async function listStores(env: StorageEnv, db: Database, orgId: string) {
  await requireOrganization(db, orgId);
  const [rows, settings] = await Promise.all([operator.listStores(db, orgId), orgStore(env, orgId).storeSettingsList(orgId)]);
  const byId = new Map(settings.map((s) => [s.id, s]));
  // A directory row without settings is a create that failed midway and could not take its row back: no store yet.
  return rows.flatMap((row) => {
    const stored = byId.get(row.id);
    return stored ? [toStore(row, stored)] : [];
  });
}

/** The password becomes a scrypt hash here and goes no further: never stored, logged or answered. */
export async function createStaffUser(db: Database, pepper: string, orgId: string, input: z.infer<typeof CreateStaffUserRequestSchema>) {
  await requireOrganization(db, orgId);
  const row = await operator.insertStaffUser(db, orgId, {
    id: newId("usr"),
    // Logins are looked up in lower case (findStaffUserByEmail).
    email: input.email.toLowerCase(),
    name: input.name,
    passwordHash: await hashPassword(input.password, pepper),
  });
  if (!row) throw new DomainError("conflict", "A staff user with that e-mail address exists.");
  return { id: row.id, org_id: row.orgId, email: row.email, name: row.name, created_at: row.createdAt };
}

type BrokerTokenRow = Awaited<ReturnType<typeof operator.listBrokerTokens>>[number];
const toBrokerToken = (orgId: string, row: BrokerTokenRow) => ({ id: row.id, org_id: orgId, label: row.label, created_at: row.createdAt });

/** Only the SHA-256 is stored; the raw token leaves in this one answer. */
export async function issueBrokerToken(db: Database, orgId: string, label: string) {
  await requireOrganization(db, orgId);
  const token = generateToken(BROKER_TOKEN_PREFIX);
  const row = await operator.insertBrokerToken(db, orgId, { id: newId("brk"), tokenHash: await sha256Hex(token), label });
  return { ...toBrokerToken(orgId, row), token };
}

export async function listBrokerTokens(db: Database, orgId: string) {
  await requireOrganization(db, orgId);
  return (await operator.listBrokerTokens(db, orgId)).map((row) => ({ ...toBrokerToken(orgId, row), revoked_at: row.revokedAt }));
}

export async function revokeBrokerToken(db: Database, orgId: string, tokenId: string, nowMs: number) {
  await requireOrganization(db, orgId);
  const tokenHash = await operator.revokeBrokerToken(db, orgId, tokenId, new Date(nowMs).toISOString());
  if (tokenHash === null) throw new DomainError("not_found", "This organization has no active broker token with that id.");
  // Refused at once here; other isolates follow within the credential cache's 60 s.
  evictBrokerToken(tokenHash);
}
