/**
 * CRC-32 (IEEE 802.3, zlib's `crc32`) of an ASCII string, by table. An API key's checksum is
 * checked on every metered request; node:zlib's `crc32` copies the string into a Buffer first,
 * which showed in the profile (BENCHMARKS.md, "Profiles").
 */
const TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** The CRC-32 of `text`, whose characters must all be ASCII (an API key's base62 body). */
export function crc32OfAscii(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new RangeError("crc32OfAscii takes ASCII only");
    crc = TABLE[(crc ^ code) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}
