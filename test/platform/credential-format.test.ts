import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { generateApiKey, generateToken, LEGACY_TOKEN_PREFIX } from "../../src/credentials/tokens";
import { recordingD1 } from "../helpers/d1-recorder";
import { createTestApp } from "../helpers/test-app";

/** A key whose last checksum character is changed: the right shape, the wrong checksum. */
function keyWithBadChecksum(): string {
  const key = generateApiKey();
  return key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
}

describe("credentials are checked for format before any database lookup", () => {
  const d1 = recordingD1();
  const { request } = createTestApp(undefined, { ...env, DB: d1.DB });
  const inventory = (headers: Record<string, string>) =>
    request("/api/v1/inventory", { headers: { "CF-Connecting-IP": "198.51.100.7", ...headers } });

  beforeEach(async () => {
    // The first request of an isolate may write pending usage counts; get that out of the way.
    await request("/api/openapi.json");
    d1.clear();
  });

  it("a lak_ key with a bad checksum costs no D1 statement", async () => {
    const res = await inventory({ "X-Service-API-Key": keyWithBadChecksum() });
    expect(res.status).toBe(401);
    expect(d1.statements).toEqual([]);
  });

  it("a malformed svc_live_ token costs no D1 statement", async () => {
    const res = await inventory({ "X-Api-Token": `${LEGACY_TOKEN_PREFIX}short!` });
    expect(res.status).toBe(401);
    expect(d1.statements).toEqual([]);
  });

  it("while a well-formed unknown key of either kind is looked up (the counter sees lookups)", async () => {
    expect((await inventory({ "X-Service-API-Key": generateApiKey() })).status).toBe(401);
    // A key the nearest replica does not know is looked up again at the primary (it may be a moment old).
    expect(d1.statements.filter((s) => s.sql.includes('"api_keys"')).map((s) => s.session)).toEqual(["first-unconstrained", "binding"]);
    expect((await inventory({ "X-Api-Token": generateToken(LEGACY_TOKEN_PREFIX, 32) })).status).toBe(401);
    expect(d1.statements.filter((s) => s.sql.includes('"legacy_tokens"'))).toHaveLength(1);
  });
});
