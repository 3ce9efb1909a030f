import { nodeCrypto } from "./node-builtins";

/**
 * Native scrypt (node:crypto) rather than WebCrypto PBKDF2, which production caps at 100k
 * iterations while local workerd does not. N=2^14, r=8, p=5 is OWASP's 16 MiB equivalent of
 * N=2^17 and stays well inside the Worker's 128 MB. Parameters are stored with each hash.
 */
const DEFAULT_PARAMS = { N: 2 ** 14, r: 8, p: 5 };
export type ScryptParams = typeof DEFAULT_PARAMS;
const KEY_LENGTH = 32;

function derive(password: string, pepper: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    nodeCrypto().scrypt(`${password}${pepper}`, salt, KEY_LENGTH, { ...params, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** A missing pepper would hash as if it were empty and silently break every hash once it is set. */
function requirePepper(pepper: string): void {
  if (!pepper) throw new Error("PASSWORD_PEPPER is not configured");
}

/** `params` other than the defaults only for test fixtures: verifyPassword reads them from the hash. */
export async function hashPassword(password: string, pepper: string, params: ScryptParams = DEFAULT_PARAMS): Promise<string> {
  requirePepper(pepper);
  const salt = Buffer.from(crypto.getRandomValues(new Uint8Array(16)));
  const { N, r, p } = params;
  const key = await derive(password, pepper, salt, params);
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, pepper: string, stored: string): Promise<boolean> {
  requirePepper(pepper);
  const [scheme, N, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(password, pepper, Buffer.from(salt, "base64"), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && nodeCrypto().timingSafeEqual(actual, expected);
}
