import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { apiKeyDisplayPrefix, generateApiKey, generateToken, LEGACY_TOKEN_PREFIX, sha256Hex } from "../../src/credentials/tokens";
import { getDb } from "../../src/db/client";
import { deals, inventoryUnits } from "../../src/db/org-schema";
import { apiKeys, legacyTokens, organizations, stores } from "../../src/db/schema";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { newId } from "../../src/lib/ids";

/** Rows go in through the schema (src/db/schema), so a renamed or new NOT NULL column breaks the factory at compile time. */
const db = () => getDb(env.DB);

/**
 * Storage is shared by the tests of one file, so every factory makes rows with fresh ids. An
 * organization is born in its storage object, as the operator's creates one (docs/scaling.md).
 */
export async function createOrg(options: { name?: string; isDemo?: boolean } = {}) {
  const id = newId("org");
  await db()
    .insert(organizations)
    .values({ id, name: options.name ?? `Org ${id}`, isDemo: options.isDemo ?? false });
  await orgStore(env, id).seed(id);
  return { id };
}

/** A store in the directory (D1) and in the organization's object, with the default settings; its lender panel is empty (`setPanel` fills it). */
export async function createStore(orgId: string, options: { name?: string; isPrimary?: boolean } = {}) {
  const id = newId("sto");
  const name = options.name ?? `Store ${id}`;
  await db()
    .insert(stores)
    .values({ id, orgId, name, isPrimary: options.isPrimary ?? false, marketZip: "78701" });
  await orgStore(env, orgId).addStore(orgId, { id, name });
  return { id, name };
}

/** Rows of one of the organization's tables (src/db/org-schema.ts), written in its object's own SQLite in one call. */
export async function insertInObject<T extends SQLiteTable>(orgId: string, table: T, rows: T["$inferInsert"][]): Promise<void> {
  await runInDurableObject(orgStore(env, orgId), (_, state) => {
    const local = drizzle(state.storage);
    for (const row of rows) local.insert(table).values(row).run();
  });
}

export async function createApiKey(
  orgId: string,
  options: { key?: string; scopes?: string[] | null; permissions?: string[]; dailyLimit?: number; revoked?: boolean } = {},
) {
  const key = options.key ?? generateApiKey();
  const id = newId("key");
  await db()
    .insert(apiKeys)
    .values({
      id,
      orgId,
      keyHash: await sha256Hex(key),
      keyPrefix: apiKeyDisplayPrefix(key),
      label: "test key",
      permissions: options.permissions ?? ["read"],
      scopes: options.scopes ?? null,
      dailyLimit: options.dailyLimit ?? 1000,
      createdBy: "test",
      revokedAt: options.revoked ? new Date().toISOString() : null,
    });
  return { id, key };
}

export async function createLegacyToken(orgId: string) {
  const token = generateToken(LEGACY_TOKEN_PREFIX, 32);
  const id = newId("lgt");
  await db()
    .insert(legacyTokens)
    .values({ id, orgId, tokenHash: await sha256Hex(token), label: "test legacy" });
  return { id, token };
}

export type NewUnit = typeof inventoryUnits.$inferInsert;
export type NewDeal = typeof deals.$inferInsert;

/** The fields a caller gave: one passed as undefined keeps the factory's default. */
const given = <T extends object>(fields: T): T => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;

/** A used 2022 Camry in stock unless `fields` says otherwise (any column of the schema). */
export async function createUnit(orgId: string, storeId: string, fields: Partial<Omit<NewUnit, "orgId" | "storeId">> & { stockedOn: string }) {
  const stockNumber = fields.stockNumber ?? newId("STK");
  const id = fields.id ?? newId("unit");
  await insertInObject(orgId, inventoryUnits, [
    {
      vin: `VIN${stockNumber}`.slice(0, 17),
      year: 2022,
      make: "Toyota",
      model: "Camry",
      trim: "SE",
      condition: "used",
      vehicleType: "car",
      mileage: 31000,
      cost: 21000,
      askingPrice: 24995,
      status: "in_stock",
      ...given(fields),
      id,
      orgId,
      storeId,
      stockNumber,
    },
  ]);
  return { id, stockNumber };
}

/** A funded used 2021 Accord unless `fields` says otherwise (any column of the schema). */
export async function createDeal(
  orgId: string,
  storeId: string,
  fields: Partial<Omit<NewDeal, "orgId" | "storeId">> & Pick<NewDeal, "soldOn" | "frontGross" | "backGross">,
) {
  const id = fields.id ?? newId("deal");
  await insertInObject(orgId, deals, [
    {
      dealNumber: id,
      status: "funded",
      vin: "1HGCM82633A004352",
      year: 2021,
      make: "Honda",
      model: "Accord",
      condition: "used",
      vehicleType: "car",
      sellingPrice: 25000,
      ...given(fields),
      id,
      orgId,
      storeId,
    },
  ]);
  return { id };
}

/** Calls the Worker the way a client would. */
export function call(path: string, init: RequestInit & { key?: string } = {}) {
  const { key, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key) headers.set("X-Service-API-Key", key);
  return exports.default.fetch(new Request(`https://api.test${path}`, { ...rest, headers }));
}
