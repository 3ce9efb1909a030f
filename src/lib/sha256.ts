/**
 * SHA-256 (FIPS 180-4) of a short string, in plain JavaScript. Every authenticated request hashes
 * its credential (about 40 characters) to look it up; node:crypto's `createHash` builds a Node
 * stream per call, which was about a fifth of a metered request's CPU in the profile
 * (BENCHMARKS.md, "Profiles"). Long inputs stay with node:crypto (src/credentials/tokens.ts).
 */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** Inputs up to this many UTF-8 bytes take this path: four blocks, far above any credential. */
export const SHORT_INPUT_MAX_BYTES = 247;

const encoder = new TextEncoder();
const message = new Uint8Array(SHORT_INPUT_MAX_BYTES + 9 + 63);
const w = new Uint32Array(64);
const hashState = new Uint32Array(8);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** Lower-case hex SHA-256 of `text`'s UTF-8 bytes, or null when they are more than SHORT_INPUT_MAX_BYTES. */
export function shortSha256Hex(text: string): string | null {
  if (text.length > SHORT_INPUT_MAX_BYTES) return null;
  message.fill(0);
  const { read, written } = encoder.encodeInto(text, message.subarray(0, SHORT_INPUT_MAX_BYTES + 1));
  if (read < text.length || written > SHORT_INPUT_MAX_BYTES) return null;
  message[written] = 0x80;
  const blocks = Math.ceil((written + 9) / 64);
  const end = blocks * 64;
  const bits = written * 8;
  message[end - 4] = bits >>> 24;
  message[end - 3] = (bits >>> 16) & 0xff;
  message[end - 2] = (bits >>> 8) & 0xff;
  message[end - 1] = bits & 0xff;

  hashState.set(INITIAL);
  for (let block = 0; block < end; block += 64) {
    for (let i = 0; i < 16; i++) {
      const at = block + i * 4;
      w[i] = (message[at] << 24) | (message[at + 1] << 16) | (message[at + 2] << 8) | message[at + 3];
    }
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, h] = hashState;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    hashState[0] += a;
    hashState[1] += b;
    hashState[2] += c;
    hashState[3] += d;
    hashState[4] += e;
    hashState[5] += f;
    hashState[6] += g;
    hashState[7] += h;
  }
  let hex = "";
  for (const word of hashState) hex += word.toString(16).padStart(8, "0");
  return hex;
}
