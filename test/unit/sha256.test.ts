import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SHORT_INPUT_MAX_BYTES, shortSha256Hex } from "../../src/lib/sha256";

const nodeSha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("shortSha256Hex: the credentials' hash in JavaScript", () => {
  it("is FIPS 180-4's SHA-256 on the standard vectors", () => {
    expect(shortSha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(shortSha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(shortSha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("equals node:crypto's for every length across the block and padding boundaries, and any UTF-8", () => {
    for (let length = 0; length <= SHORT_INPUT_MAX_BYTES; length++) expect(shortSha256Hex("k".repeat(length))).toBe(nodeSha256("k".repeat(length)));
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 120 }), (text) => {
        const hash = shortSha256Hex(text);
        if (hash !== null) expect(hash).toBe(nodeSha256(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves longer inputs to node:crypto (null)", () => {
    expect(shortSha256Hex("k".repeat(SHORT_INPUT_MAX_BYTES + 1))).toBeNull();
    expect(shortSha256Hex("é".repeat(SHORT_INPUT_MAX_BYTES / 2 + 1))).toBeNull();
  });
});
