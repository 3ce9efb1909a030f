import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../src/credentials/password";
import { apiKeyDisplayPrefix, generateApiKey, isWellFormedApiKey } from "../../src/credentials/tokens";

describe("API key format", () => {
  it("generates lak_ keys of 32 random characters and a 6-character checksum that validate", () => {
    const key = generateApiKey();
    expect(key).toMatch(/^lak_[0-9A-Za-z]{38}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(apiKeyDisplayPrefix(key)).toBe(key.slice(0, 12));
  });

  it("still accepts the keys already issued: their checksums, computed by node:zlib's crc32 when they were issued", () => {
    // A CRC-32 at or above 2^31 (zlib's is unsigned) and one below.
    for (const key of [
      "lak_Q7fK2mZp9XvL4tRb8NwYc3HdJ6sGa1Ue436nyL",
      "lak_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz4W8LJS",
      "lak_0000000000000000000000000000000a3SA3lq",
    ])
      expect(isWellFormedApiKey(key)).toBe(true);
  });

  it("rejects a key with any character changed, so typos never reach a lookup", () => {
    const key = generateApiKey();
    for (const position of [4, 20, 35, 41]) {
      const swapped = key[position] === "a" ? "b" : "a";
      expect(isWellFormedApiKey(key.slice(0, position) + swapped + key.slice(position + 1))).toBe(false);
    }
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(key.replace("lak_", "lak-"))).toBe(false);
  });
});

describe("staff password hashes", () => {
  it("verify the right password only, with the parameters stored in the hash", async () => {
    const stored = await hashPassword("correct horse", "pepper");
    expect(stored).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(await verifyPassword("correct horse", "pepper", stored)).toBe(true);
    expect(await verifyPassword("correct horse!", "pepper", stored)).toBe(false);
    expect(await verifyPassword("correct horse", "other pepper", stored)).toBe(false);
  });

  it("refuse to work without a pepper rather than hash without one", async () => {
    await expect(hashPassword("correct horse", "")).rejects.toThrow(/PASSWORD_PEPPER/);
    await expect(verifyPassword("correct horse", "", "scrypt$16384$8$5$c2FsdA==$aGFzaA==")).rejects.toThrow(/PASSWORD_PEPPER/);
  });
});
