import { Context } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/http/app-env";
import { publicBurstLimit } from "../../src/http/public-access";
import { meterQuota } from "../../src/http/quota";
import { readsFrom } from "../../src/http/read-consistency";

// A layer that only prepares the request hands on the rest of the chain's own promise: an async
// layer of its own costs every request a promise and a frame (BENCHMARKS.md, "Inside the isolate").

const executionCtx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;

function request(env: Partial<Env>, headers: Record<string, string> = {}) {
  const c = new Context<AppEnv>(new Request("https://api.test/api/v1/inventory", { headers }), { env: env as Env, executionCtx });
  const rest = Promise.resolve();
  return { c, next: () => rest, rest };
}

/** A QuotaCounter namespace that grants whatever is asked. */
const generousCounter = {
  idFromName: () => ({}),
  get: () => ({
    acquire: async (limit: number, _nowMs: number, requested: number) => ({ granted: requested, used: requested, limit, resetAtMs: 0 }),
  }),
} as unknown as Env["QUOTA"];

describe("layers that only prepare a request", () => {
  it("open the D1 session and hand on the rest of the chain's promise", () => {
    const { c, next, rest } = request({ DB: {} as D1Database });
    expect(readsFrom("nearest-replica")(c, next)).toBe(rest);
  });

  it("count a public client and hand on the rest of the chain's promise", () => {
    const { c, next, rest } = request({}, { "CF-Connecting-IP": "192.0.2.7" });
    expect(publicBurstLimit(c, next)).toBe(rest);
  });

  it("admit a metered call on a token the isolate holds and hand on the rest of the chain's promise", async () => {
    const metered = () => {
      const call = request({ QUOTA: generousCounter });
      call.c.set("principal", { kind: "api_key", keyId: "key_frames", orgId: "org_frames", dailyLimit: 1_000_000, permissions: ["read"] });
      return call;
    };
    // The first leases are of one and two requests: the third call finds a token held.
    for (let i = 0; i < 2; i++) {
      const { c, next } = metered();
      await meterQuota(c, next);
    }
    const { c, next, rest } = metered();
    expect(meterQuota(c, next)).toBe(rest);
    expect(c.res.headers.get("X-Service-RateLimit-Remaining")).not.toBeNull();
  });
});
