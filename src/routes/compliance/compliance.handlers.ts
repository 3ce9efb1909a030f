import type { RouteHandler } from "@hono/zod-openapi";
import { getComplianceCheck as findComplianceCheck } from "../../db/queries/compliance";
import type { AppEnv, Principal } from "../../http/app-env";
import { ApiError } from "../../http/errors";
import type { createComplianceCheck as createComplianceCheckRoute, getComplianceCheck as getComplianceCheckRoute } from "./compliance.routes";
import { describeHandling, runComplianceCheck } from "./compliance.service";

const keyIdOf = (principal: Principal) => (principal.kind === "api_key" ? principal.keyId : principal.tokenId);

export const createComplianceCheck: RouteHandler<typeof createComplianceCheckRoute, AppEnv> = async (c) => {
  const input = c.req.valid("json");
  const handling = describeHandling(c.req.url);
  const result = await runComplianceCheck(
    c.env,
    c.var.db,
    { orgId: c.var.principal.orgId, keyId: keyIdOf(c.var.principal), salt: c.var.config.complianceHashSalt },
    input,
    handling,
    new Date(),
  );
  return c.json(result, 200);
};

export const getComplianceCheck: RouteHandler<typeof getComplianceCheckRoute, AppEnv> = async (c) => {
  const row = await findComplianceCheck(c.var.db, c.var.principal.orgId, c.req.valid("param").check_id);
  if (!row) throw new ApiError("not_found", "This organization has no compliance check with that id.");
  return c.json(
    {
      check_id: row.id,
      result: row.result,
      ofac_match: row.result === "hold",
      triggered_rule: row.triggeredRule,
      score: row.score,
      hold_threshold: row.holdScore,
      flag_threshold: row.flagScore,
      max_list_age_days: row.maxListAgeDays,
      list_version: row.listVersion,
      list_loaded_at: row.listLoadedAt,
      matched_ent_num: row.matchedEntNum,
      red_flags: row.redFlags,
      safeguards_flags: row.safeguardsFlags,
      key_id: row.keyId,
      checked_at: row.checkedAt,
    },
    200,
  );
};
