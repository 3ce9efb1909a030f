/** Checks a trade photo sent as a data URI: a declared image type, base64 that decodes, bytes of that type. */

export const MAX_PHOTOS = 6;
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;

const MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;
type PhotoMediaType = (typeof MEDIA_TYPES)[number];

const DATA_URI = /^data:(image\/[a-z0-9.+-]+);base64,/i;

/** `bytes` is a binary string: one character per byte. */
const startsWith = (bytes: string, at: number, expected: readonly number[]) => expected.every((b, i) => bytes.charCodeAt(at + i) === b);
const ascii = (text: string) => [...text].map((ch) => ch.charCodeAt(0));

/** File signatures: JPEG FF D8 FF; PNG 89 50 4E 47 0D 0A 1A 0A; WebP "RIFF" size "WEBP". */
const SIGNATURES: Record<PhotoMediaType, (head: string) => boolean> = {
  "image/jpeg": (head) => startsWith(head, 0, [0xff, 0xd8, 0xff]),
  "image/png": (head) => startsWith(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/webp": (head) => startsWith(head, 0, ascii("RIFF")) && startsWith(head, 8, ascii("WEBP")),
};

/** The TC39 base64 method workerd's V8 has at our compatibility date (es2024's types do not have it yet). */
type Uint8ArrayFromBase64 = Uint8Array & { setFromBase64(base64: string): { read: number; written: number } };

/**
 * Decoded a piece at a time into one buffer per isolate, so that nothing the size of a photo is
 * allocated to check it (the check is synchronous: no two checks use the buffer at once).
 */
const SCRATCH_CHARS = 64 * 1024;
const SCRATCH = new Uint8Array((SCRATCH_CHARS / 4) * 3);
const SIGNATURE_BYTES = 12;

export type PhotoCheck = { ok: true; mediaType: PhotoMediaType; bytes: number } | { ok: false; code: string; message: string };

/**
 * Padded standard base64 (RFC 4648 §4, `=` only at the end): its byte count and first bytes, or
 * null. V8's `setFromBase64` checks and decodes natively in one pass (a regular expression over the
 * alphabet cost about 2 ms of CPU per MiB; `atob`, which copies the text in and the bytes out, about
 * three times what this does: BENCHMARKS.md, Profiles).
 * It also skips ASCII whitespace and takes unpadded input or padding that ends a piece: a length
 * that is a multiple of 4 and exactly the bytes the characters stand for (3 per 4, less the
 * padding) refuse all three.
 */
function decodeBase64(data: string): { bytes: number; head: string } | null {
  if (data.length === 0 || data.length % 4 !== 0) return null;
  const bytes = (data.length / 4) * 3 - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  let written = 0;
  let head = "";
  for (let at = 0; at < data.length; at += SCRATCH_CHARS) {
    let result: { read: number; written: number };
    try {
      result = (SCRATCH as Uint8ArrayFromBase64).setFromBase64(data.slice(at, at + SCRATCH_CHARS));
    } catch {
      return null;
    }
    if (at === 0) head = String.fromCharCode(...SCRATCH.subarray(0, Math.min(SIGNATURE_BYTES, result.written)));
    written += result.written;
  }
  return written === bytes ? { bytes, head } : null;
}

/** Validates the data URI and its base64 (decoded natively, in one pass), then the type's signature in the first bytes. */
export function checkPhoto(dataUri: string): PhotoCheck {
  const header = DATA_URI.exec(dataUri);
  if (!header) return { ok: false, code: "invalid_data_uri", message: "Send each photo as a data URI: data:image/jpeg;base64,…" };
  const mediaType = header[1].toLowerCase() as PhotoMediaType;
  if (!MEDIA_TYPES.includes(mediaType)) {
    return { ok: false, code: "unsupported_type", message: `${header[1]} is not accepted; send JPEG, PNG or WebP.` };
  }
  const base64 = decodeBase64(dataUri.slice(header[0].length));
  if (!base64) return { ok: false, code: "invalid_base64", message: "The photo's base64 does not decode." };
  const { bytes, head } = base64;
  if (bytes > MAX_PHOTO_BYTES) {
    return { ok: false, code: "too_big", message: `The photo is ${(bytes / 1024 / 1024).toFixed(1)} MiB; each may be at most 5 MiB.` };
  }
  if (!SIGNATURES[mediaType](head)) {
    return {
      ok: false,
      code: "type_mismatch",
      message: `The photo's bytes are not a ${mediaType.slice("image/".length).toUpperCase()} image, as its data URI declares.`,
    };
  }
  return { ok: true, mediaType, bytes };
}
