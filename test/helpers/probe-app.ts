import { createRoute, z } from "@hono/zod-openapi";
import { env } from "cloudflare:workers";
import { requestId } from "hono/request-id";
import { getDb } from "../../src/db/client";
import type { EndpointName } from "../../src/http/endpoints";
import { onError } from "../../src/http/error-handler";
import { guard } from "../../src/http/guard";
import { createRouter } from "../../src/http/router";

/**
 * Stands in for an /api/v1 endpoint that does not exist yet: the real request id, database, guard
 * (credential, scope, quota) and error handler around `GET /api/v1/probe?n=<integer>`, which
 * answers `{ n }` — so the guard's behaviour on any endpoint name, and a 422, can be tested now.
 */
export function probeApp(endpoint: EndpointName) {
  const app = createRouter();
  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(async (c, next) => {
    c.set("db", getDb(c.env.DB));
    await next();
  });
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/probe",
      middleware: guard(endpoint),
      request: { query: z.object({ n: z.coerce.number().int().optional() }) },
      responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({ n: z.int().nullable() }) } } } },
    }),
    (c) => c.json({ n: c.req.valid("query").n ?? null }, 200),
  );
  app.onError(onError);
  return { request: (query: string, headers: Record<string, string>) => app.request(`/api/v1/probe${query}`, { headers }, env) };
}
