import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { SERVICE_MODE_HEADER } from "../../http/auth";
import { clientAddress, limitedClient } from "../../http/credential-failures";
import type { createSandbox as createSandboxRoute } from "./sandboxes.routes";
import * as sandboxes from "./sandboxes.service";

export const createSandbox: RouteHandler<typeof createSandboxRoute, AppEnv> = async (c) => {
  const now = new Date();
  await sandboxes.admitSandboxRequest(c.env, c.get("db"), c.get("config").passwordPepper, limitedClient(clientAddress(c)), now);
  const sandbox = await sandboxes.createSandbox(c.env, c.get("db"), now);
  c.header(SERVICE_MODE_HEADER, "test");
  return c.json(sandbox, 201);
};
