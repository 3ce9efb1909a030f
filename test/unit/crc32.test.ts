import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32OfAscii } from "../../src/lib/crc32";

describe("crc32OfAscii: an API key's checksum by table", () => {
  it("is zlib's CRC-32 for any ASCII string, the check value among them", () => {
    expect(crc32OfAscii("123456789")).toBe(0xcbf43926);
    expect(crc32OfAscii("")).toBe(0);
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)), maxLength: 80 }), (text) => {
        expect(crc32OfAscii(text)).toBe(crc32(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses what is not ASCII instead of hashing it differently from zlib", () => {
    expect(() => crc32OfAscii("café")).toThrow(RangeError);
  });
});
