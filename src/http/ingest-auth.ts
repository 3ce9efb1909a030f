import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { requireCredential } from "./auth";
import { brokerTokenFromAuthorization } from "./broker-token";
import { ApiError } from "./errors";

const INGEST_PERMISSION = "ingest";

const requireIngestKey = requireCredential("ingest");

/**
 * The dealer-management-system feed is pushed by a broker (`Authorization: Bearer <broker token>`,
 * bound to one organization) or with a `lak_` key that has the `ingest` permission (and the
 * `ingest` scope, when the key is scoped).
 */
export const requireIngestCredential = createMiddleware<AppEnv>(async (c, next) => {
  const authorization = c.req.header("Authorization");
  if (authorization !== undefined) {
    const record = await brokerTokenFromAuthorization(c, authorization);
    c.set("endpoint", "ingest");
    c.set("principal", { kind: "broker_token", tokenId: record.id, orgId: record.orgId });
    return next();
  }
  return requireIngestKey(c, async () => {
    const principal = c.get("principal");
    if (principal.kind === "api_key" && !principal.permissions.includes(INGEST_PERMISSION)) {
      throw new ApiError("forbidden", `This key lacks the ${INGEST_PERMISSION} permission; create a key with permissions ["read", "ingest"].`);
    }
    await next();
  });
});
