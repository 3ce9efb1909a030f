import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { type AppOptions, createApp } from "../../src/app";
import type { EndpointName } from "../../src/http/endpoints";
import { v1Route } from "../../src/http/v1-chain";

/** The production app with `extra` routes mounted behind the same middleware stack and error handling. */
export function createTestApp(mount: AppOptions["mount"], bindings: Env = env) {
  const app = createApp({ mount });
  const request = async (path: string, init: RequestInit = {}) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request(`https://api.test${path}`, init), bindings, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
  return { app, request };
}

/**
 * Stands in for a v1 endpoint under any endpoint name: `GET /api/v1/probe?n=<integer>` through the
 * real v1 chain (credential, scope, quota), answering `{ n }`, so the chain's behaviour on any
 * endpoint name, and a 422, can be tested.
 */
export function probeApp(endpoint: EndpointName) {
  const { request } = createTestApp((app) =>
    app.openapi(
      v1Route({
        endpoint,
        reads: "nearest-replica",
        method: "get",
        path: "/api/v1/probe",
        operationId: "probe",
        request: { query: z.object({ n: z.coerce.number().int().optional() }) },
        responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({ n: z.int().nullable() }) } } } },
      }),
      (c) => c.json({ n: c.req.valid("query").n ?? null }, 200),
    ),
  );
  return { request: (query: string, headers: Record<string, string>) => request(`/api/v1/probe${query}`, { headers }) };
}

/**
 * A Rate Limiting binding that admits `limit` calls per key and never resets, so a test that
 * crosses a minute boundary (the real binding's window) still sees the limit reached.
 */
export function countingRateLimiter(limit: number) {
  const counts = new Map<string, number>();
  const binding = {
    limit: async ({ key }: { key: string }) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return { success: (counts.get(key) ?? 0) <= limit };
    },
  };
  return { binding: binding as unknown as RateLimit, counts };
}
