export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 characters: bytes ≥ 248 are rejected so no character is favoured. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A row id: its kind as a prefix (`chk`, `evt`, …) and 16 random base62 characters. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(16)}`;
}
