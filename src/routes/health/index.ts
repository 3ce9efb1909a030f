import { z } from "@hono/zod-openapi";
import { databaseAnswers } from "../../db/queries/health";
import { documentedError } from "../../http/errors";
import { publicBurstLimit } from "../../http/public-access";
import { route } from "../../http/route";
import { createRouter } from "../../http/router";
import { SERVICE_VERSION } from "../../version";

const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]).openapi({ description: "`ok` when every check passed." }),
    version: z.string().openapi({ description: "The service release; equals the `X-Service-Version` header.", example: "0.1.0" }),
    deployment: z
      .object({ id: z.string(), tag: z.string(), timestamp: z.string() })
      .nullable()
      .openapi({ description: "The deployed Worker version (Cloudflare's version metadata); null where none is bound." }),
    time: z.iso.datetime().openapi({ description: "The server's clock (UTC)." }),
    checks: z.object({ d1: z.enum(["ok", "unreachable"]).openapi({ description: "The database answered a trivial query." }) }),
  })
  .openapi("Health", {
    example: {
      status: "ok",
      version: "0.1.0",
      deployment: { id: "2f1c7a5e-…", tag: "", timestamp: "2026-11-26T09:12:00.000Z" },
      time: "2026-11-26T10:30:00.000Z",
      checks: { d1: "ok" },
    },
  });

const noStore = { "Cache-Control": { description: "`no-store`: every call checks again.", schema: { type: "string" as const } } };

export const getHealth = route({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Public"],
  summary: "Is the service up: its version, its clock and its database",
  description:
    "No credentials, not metered; the public endpoints' burst limit (120 a minute per client address) applies. `200` when the Worker runs and D1 answers; `503` with the same body when D1 does not. For uptime monitors and deploy checks.",
  caller: "anyone",
  guard: publicBurstLimit,
  // Every call checks again.
  private: true,
  responses: {
    200: { description: "Up.", headers: noStore, content: { "application/json": { schema: HealthSchema } } },
    503: { description: "The database did not answer.", headers: noStore, content: { "application/json": { schema: HealthSchema } } },
    429: documentedError("This client made too many requests (`rate_limited`); sent with `Retry-After`."),
  },
});

export const healthRouter = createRouter().openapi(getHealth, async (c) => {
  const d1 = (await databaseAnswers(c.env.DB)) ? ("ok" as const) : ("unreachable" as const);
  const metadata = c.env.CF_VERSION_METADATA;
  const body = {
    status: d1 === "ok" ? ("ok" as const) : ("unavailable" as const),
    version: SERVICE_VERSION,
    deployment: metadata ? { id: metadata.id, tag: metadata.tag, timestamp: metadata.timestamp } : null,
    time: new Date().toISOString(),
    checks: { d1 },
  };
  return d1 === "ok" ? c.json(body, 200) : c.json(body, 503);
});
