import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { BASE62, randomBase62 } from "../lib/ids";

export const API_KEY_PREFIX = "lak_";
export const LEGACY_TOKEN_PREFIX = "svc_live_";
export const BROKER_TOKEN_PREFIX = "dbt_";
const API_KEY_RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const API_KEY_PATTERN = /^lak_[0-9A-Za-z]{38}$/;

function base62Checksum(body: string): string {
  let n = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = randomBase62(API_KEY_RANDOM_LENGTH);
  return `${API_KEY_PREFIX}${body}${base62Checksum(body)}`;
}

/** A mistyped or invented key fails here, before any database or Durable Object is asked. */
export function isWellFormedApiKey(key: string): boolean {
  if (!API_KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH);
  return key.endsWith(base62Checksum(body));
}

/** Enough of the key to recognise it in a list or a log line; never enough to use it. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 8);
}

export function generateToken(prefix: string, length = 40): string {
  return `${prefix}${randomBase62(length)}`;
}

/**
 * node:crypto's hash, not `crypto.subtle.digest`: every metered call hashes its key, and the
 * asynchronous digest cost about 110 µs of CPU per call in a workerd profile (10% of a
 * lender-route call; `npm run profile -- lender_route`, BENCHMARKS.md) against a few here.
 */
export async function sha256Hex(text: string): Promise<string> {
  return createHash("sha256").update(text).digest("hex");
}
