import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv, Principal } from "../../http/app-env";
import { inBackground } from "../../lib/background";
import type { createComplianceCheck as createComplianceCheckRoute, getComplianceCheck as getComplianceCheckRoute } from "./compliance.routes";
import { describeHandling, findComplianceCheck, runComplianceCheck } from "./compliance.service";

const keyIdOf = (principal: Principal) => (principal.kind === "api_key" ? principal.keyId : principal.tokenId);

export const createComplianceCheck: RouteHandler<typeof createComplianceCheckRoute, AppEnv> = async (c) => {
  const input = c.req.valid("json");
  const handling = describeHandling(c.req.url);
  const result = await runComplianceCheck(
    c.env,
    c.get("db"),
    {
      orgId: c.get("principal").orgId,
      keyId: keyIdOf(c.get("principal")),
      salt: c.get("config").complianceHashSalt,
    },
    input,
    handling,
    new Date(),
    c.get("config").staleSanctionsListMode,
    inBackground(c.executionCtx, "org_outbox_mark_failed"),
  );
  return c.json(result, 200);
};

export const getComplianceCheck: RouteHandler<typeof getComplianceCheckRoute, AppEnv> = async (c) => {
  const check = await findComplianceCheck(c.env, c.get("principal").orgId, c.req.valid("param").check_id);
  return c.json(check, 200);
};
