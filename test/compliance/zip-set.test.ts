import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { zipCodeSets } from "../../src/db/schema";
import type { ComplianceCheckResultSchema } from "../../src/routes/compliance/compliance.routes";
import { complianceCheck } from "../helpers/compliance";
import { call, createApiKey, createOrg } from "../helpers/factories";

// Its own file, so its own evaluation of the Worker's modules: the ZIP set is not loaded yet when the first test runs.
const person = { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", ssn_last4: "4821" };

async function zipFlags(key: string, address_zip: string) {
  const res = await call("/api/v1/compliance-check", complianceCheck(key, { ...person, address_zip }));
  return {
    status: res.status,
    codes: res.status === 200 ? (await res.json<z.infer<typeof ComplianceCheckResultSchema>>()).red_flags.map((f) => f.code) : [],
  };
}

describe("the US ZIP set, kept in D1 and loaded once per isolate", () => {
  it("refuses to screen without the set, then reads it once and keeps it", async () => {
    const { key } = await createApiKey((await createOrg()).id);
    const db = getDb(env.DB);
    const [row] = await db.select().from(zipCodeSets).where(eq(zipCodeSets.country, "US"));
    expect(row).toMatchObject({ source: "zipcodes@8.0.0", zipCount: 42555 });

    // Missing reference row: a 500, never a check that silently skips or fails every ZIP.
    await env.DB.prepare("DELETE FROM zip_code_sets").run();
    expect((await zipFlags(key, "78704")).status).toBe(500);

    await db.insert(zipCodeSets).values(row);
    const started = performance.now();
    expect(await zipFlags(key, "00000")).toEqual({ status: 200, codes: ["zip_not_found"] });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await zipFlags(key, "78704")).toEqual({ status: 200, codes: [] });

    // Later checks use the isolate's copy: emptying the row changes nothing until the isolate is recycled.
    await env.DB.prepare("UPDATE zip_code_sets SET bits_base64 = ''").run();
    expect(await zipFlags(key, "78704")).toEqual({ status: 200, codes: [] });
    expect(await zipFlags(key, "99999")).toEqual({ status: 200, codes: ["zip_not_found"] });
  });
});
