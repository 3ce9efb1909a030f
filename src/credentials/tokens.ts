import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import CRC32 from "crc-32";
import { BASE62, randomBase62 } from "../lib/ids";
import { nodeCrypto } from "./node-builtins";

const API_KEY_PREFIX = "lak_";
/** A sandbox's keys (docs/sandboxes.md): the same scheme, marked so no one mistakes one for a live key. */
const TEST_API_KEY_PREFIX = "lak_test_";
export const LEGACY_TOKEN_PREFIX = "svc_live_";
export const BROKER_TOKEN_PREFIX = "dbt_";
/** The operator API's bearer tokens (/api/operator); never a dealer credential. */
export const OPERATOR_TOKEN_PREFIX = "dot_";
const API_KEY_RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const API_KEY_PATTERN = /^lak_(test_)?[0-9A-Za-z]{38}$/;

/** `live` keys reach live organizations only, `test` keys sandboxes only. */
export type KeyMode = "live" | "test";

export const apiKeyMode = (key: string): KeyMode => (key.startsWith(TEST_API_KEY_PREFIX) ? "test" : "live");

// crc-32, not node:zlib's crc32: loading node:zlib (Node's streams with it) for one CRC-32 cost a fresh
// isolate's first metered call 6–9 ms (BENCHMARKS.md, "First calls and lazy route areas"). `>>> 0`: zlib's
// value is unsigned, and the keys already issued carry it.
function base62Checksum(body: string): string {
  let n = CRC32.str(body) >>> 0;
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const keyPrefixFor = (mode: KeyMode) => (mode === "test" ? TEST_API_KEY_PREFIX : API_KEY_PREFIX);

export function generateApiKey(mode: KeyMode = "live"): string {
  const body = randomBase62(API_KEY_RANDOM_LENGTH);
  return `${keyPrefixFor(mode)}${body}${base62Checksum(body)}`;
}

/** A mistyped or invented key fails here, before any database or Durable Object is asked. */
export function isWellFormedApiKey(key: string): boolean {
  if (!API_KEY_PATTERN.test(key)) return false;
  const prefixLength = keyPrefixFor(apiKeyMode(key)).length;
  const body = key.slice(prefixLength, prefixLength + API_KEY_RANDOM_LENGTH);
  return key.endsWith(base62Checksum(body));
}

/** Enough of the key to recognise it in a list or a log line; never enough to use it. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, keyPrefixFor(apiKeyMode(key)).length + 8);
}

export function generateToken(prefix: string, length = 40): string {
  return `${prefix}${randomBase62(length)}`;
}

/**
 * @noble/hashes (audited, pure JavaScript), not node:crypto or `crypto.subtle.digest`: every metered
 * call hashes its key, and in workerd `createHash` builds a Node stream per call and the WebCrypto
 * digest is asynchronous; each was among the top frames of a metered call's profile (BENCHMARKS.md, "Profiles").
 */
export async function sha256Hex(text: string): Promise<string> {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** A keyed hash, for values that must be matched but whose space is small enough to enumerate (an IP address). */
export function hmacSha256Hex(secret: string, text: string): string {
  return nodeCrypto().createHmac("sha256", secret).update(text).digest("hex");
}
