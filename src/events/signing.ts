/**
 * Webhook secrets and signatures (docs/webhooks.md#verifying-the-signature). The secret is `whsec_` + base64 of 32 random
 * bytes; the signature is HMAC-SHA256 keyed with the secret string exactly as shown to the
 * partner (UTF-8), over `id + "." + timestamp + "." + body`, sent as `sha256=<hex>`.
 */

import { toHex } from "../lib/hex";
import { aesKey, open, seal, toBase64 } from "../lib/sealing";

const WEBHOOK_SECRET_PREFIX = "whsec_";

const encoder = new TextEncoder();

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** A webhook secret sealed with the WEBHOOK_SECRETS_KEY Worker secret itself (base64 of 32 bytes; checked by src/config.ts). */
export async function encryptSecret(masterKeyBase64: string, secret: string): Promise<string> {
  return seal(await aesKey(masterKeyBase64), secret);
}

export async function decryptSecret(masterKeyBase64: string, ciphertext: string): Promise<string> {
  return open(await aesKey(masterKeyBase64), ciphertext);
}

/**
 * The `X-Service-Signature` value for one attempt: one `sha256=` value per secret, space-separated,
 * the current secret's first (two during a rotation's overlap).
 */
export async function signWebhook(secrets: readonly string[], id: string, timestamp: number, body: string): Promise<string> {
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  const values = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return `sha256=${toHex(await crypto.subtle.sign("HMAC", key, signed))}`;
    }),
  );
  return values.join(" ");
}

/** An endpoint's stored secrets: the current one, and the one a rotation replaced with its end. */
export interface StoredSecrets {
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: string | null;
}

/** The secrets that sign at `now`: the current one, then the previous one while its overlap lasts. */
export async function signingSecrets(masterKeyBase64: string, stored: StoredSecrets, now: Date): Promise<string[]> {
  const current = await decryptSecret(masterKeyBase64, stored.secretCiphertext);
  const overlapping =
    stored.previousSecretCiphertext !== null && stored.previousSecretExpiresAt !== null && Date.parse(stored.previousSecretExpiresAt) > now.getTime();
  return overlapping ? [current, await decryptSecret(masterKeyBase64, stored.previousSecretCiphertext as string)] : [current];
}
