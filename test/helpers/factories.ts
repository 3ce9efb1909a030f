import { env, exports } from "cloudflare:workers";
import { apiKeyDisplayPrefix, generateApiKey, generateToken, LEGACY_TOKEN_PREFIX, sha256Hex } from "../../src/credentials/tokens";
import { newId } from "../../src/lib/ids";

/** Storage is shared by the tests of one file, so every factory makes rows with fresh ids. */
export async function createOrg(options: { name?: string; isDemo?: boolean } = {}) {
  const id = newId("org");
  await env.DB.prepare("INSERT INTO organizations (id, name, is_demo) VALUES (?, ?, ?)")
    .bind(id, options.name ?? `Org ${id}`, options.isDemo ? 1 : 0)
    .run();
  return { id };
}

export async function createStore(orgId: string, options: { name?: string; isPrimary?: boolean } = {}) {
  const id = newId("sto");
  const name = options.name ?? `Store ${id}`;
  await env.DB.prepare("INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES (?, ?, ?, ?, ?)")
    .bind(id, orgId, name, options.isPrimary ? 1 : 0, "78701")
    .run();
  return { id, name };
}

export async function createApiKey(
  orgId: string,
  options: { scopes?: string[] | null; permissions?: string[]; dailyLimit?: number; revoked?: boolean } = {},
) {
  const key = generateApiKey();
  const id = newId("key");
  await env.DB.prepare(
    `INSERT INTO api_keys (id, org_id, key_hash, key_prefix, label, permissions, scopes, daily_limit, created_by, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'test', ?)`,
  )
    .bind(
      id,
      orgId,
      await sha256Hex(key),
      apiKeyDisplayPrefix(key),
      "test key",
      JSON.stringify(options.permissions ?? ["read"]),
      options.scopes ? JSON.stringify(options.scopes) : null,
      options.dailyLimit ?? 1000,
      options.revoked ? new Date().toISOString() : null,
    )
    .run();
  return { id, key };
}

export async function createLegacyToken(orgId: string) {
  const token = generateToken(LEGACY_TOKEN_PREFIX, 32);
  const id = newId("lgt");
  await env.DB.prepare("INSERT INTO legacy_tokens (id, org_id, token_hash, label) VALUES (?, ?, ?, 'test legacy')")
    .bind(id, orgId, await sha256Hex(token))
    .run();
  return { id, token };
}

export async function createUnit(
  orgId: string,
  storeId: string,
  options: { stockNumber?: string; stockedOn: string; askingPrice?: number; status?: "in_stock" | "sold" },
) {
  const stockNumber = options.stockNumber ?? newId("STK");
  await env.DB.prepare(
    `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status)
     VALUES (?, ?, ?, ?, ?, 2022, 'Toyota', 'Camry', 'SE', 'used', 'car', 31000, ?, 21000, ?, ?)`,
  )
    .bind(
      newId("unit"),
      orgId,
      storeId,
      stockNumber,
      `VIN${stockNumber}`.slice(0, 17),
      options.stockedOn,
      options.askingPrice ?? 24995,
      options.status ?? "in_stock",
    )
    .run();
  return { stockNumber };
}

export async function createDeal(
  orgId: string,
  storeId: string,
  options: { soldOn: string; frontGross: number; backGross: number; status?: string },
) {
  const id = newId("deal");
  await env.DB.prepare(
    `INSERT INTO deals (id, org_id, store_id, deal_number, sold_on, status, vin, year, make, model, condition, vehicle_type, selling_price, front_gross, back_gross)
     VALUES (?, ?, ?, ?, ?, ?, '1HGCM82633A004352', 2021, 'Honda', 'Accord', 'used', 'car', 25000, ?, ?)`,
  )
    .bind(id, orgId, storeId, id, options.soldOn, options.status ?? "funded", options.frontGross, options.backGross)
    .run();
  return { id };
}

/** Calls the Worker the way a client would. */
export function call(path: string, init: RequestInit & { key?: string } = {}) {
  const { key, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key) headers.set("X-Service-API-Key", key);
  return exports.default.fetch(new Request(`https://api.test${path}`, { ...rest, headers }));
}
