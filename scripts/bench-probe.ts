/**
 * The Worker plus one constant route behind the real /api/v1 middleware (credential check, quota,
 * usage tracking): the benchmark's measure of authentication and metering alone, since every
 * metered endpoint so far also reads D1. Built and served only by scripts/bench.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createApp } from "../src/app";
import { guard } from "../src/http/guard";

export { QuotaCounter } from "../src/durable-objects/quota-counter";

const app = createApp();
app.openapi(
  createRoute({
    method: "get",
    path: "/api/v1/__bench-probe",
    middleware: guard("inventory"),
    responses: { 200: { description: "A constant.", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } } },
  }),
  (c) => c.json({ ok: true }, 200),
);

export default { fetch: app.fetch } satisfies ExportedHandler<Env>;
