import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/credentials/tokens";

// Every stored credential hash (keys, tokens, sessions) was written by a SHA-256; the library that computes it must not change one.
describe("sha256Hex: the stored hash of every credential", () => {
  it("is node:crypto's SHA-256 of the UTF-8 text, at any length and for any character", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 300 }), async (text) => {
        expect(await sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"));
      }),
      { numRuns: 1000 },
    );
  });
});
