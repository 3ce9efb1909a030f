/** AES-256-GCM sealing of short texts stored in D1: base64(iv ‖ ciphertext), a fresh random IV each time. */

const IV_BYTES = 12;
const encoder = new TextEncoder();

export const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** An AES-GCM key from base64 of 32 bytes (a Worker secret, checked by src/config.ts). */
export function aesKey(keyBase64: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", fromBase64(keyBase64), "AES-GCM", false, ["encrypt", "decrypt"]);
}

/**
 * An AES-GCM key of its own for one kind of stored data, derived from a master secret with
 * HKDF-SHA256 under `label`: rows sealed under one label cannot be opened under another.
 */
export async function derivedAesKey(masterKeyBase64: string, label: string): Promise<CryptoKey> {
  const master = await crypto.subtle.importKey("raw", fromBase64(masterKeyBase64), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(label) },
    master,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

export async function seal(key: CryptoKey, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(text));
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return toBase64(out);
}

/** The text `seal` sealed with the same key; rejects (OperationError) under any other key. */
export async function open(key: CryptoKey, ciphertext: string): Promise<string> {
  const bytes = fromBase64(ciphertext);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, IV_BYTES) }, key, bytes.slice(IV_BYTES));
  return new TextDecoder().decode(plain);
}
