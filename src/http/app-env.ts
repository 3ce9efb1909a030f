import type { RequestIdVariables } from "hono/request-id";
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { EndpointName } from "./endpoints";

/** Who is calling, once a credential has been checked; every query below it is scoped by `orgId`. */
export type Principal =
  | { kind: "api_key"; keyId: string; orgId: string; dailyLimit: number; permissions: readonly string[] }
  | { kind: "legacy_token"; tokenId: string; orgId: string }
  /** A broker token, on the ingestion endpoints only; unmetered, like key management. */
  | { kind: "broker_token"; tokenId: string; orgId: string };

/**
 * Who is managing an organization (its keys or settings): a logged-in staff member, a broker token
 * bound to it, or (on the settings only) an operator acting for it. `isSandbox`: the organization
 * is a sandbox, so its keys are `lak_test_` keys (docs/sandboxes.md).
 */
export type OrgManager = ({ kind: "staff"; userId: string } | { kind: "broker" | "operator"; tokenId: string }) & {
  orgId: string;
  isSandbox: boolean;
};

/**
 * Read with `c.get(name)`, never `c.var.name`: hono builds `c.var` as a new object of every variable
 * on each access, which several reads per call made a measurable share of a metered call.
 */
interface AppVariables extends RequestIdVariables {
  /** The vars and secrets, validated once per isolate. */
  config: Config;
  /** This request's D1 session (see `getSessionDb`). */
  db: Database;
  principal: Principal;
  /** Set by the credential check: which endpoint (and scope) this call is for. */
  endpoint: EndpointName;
  /**
   * Who manages the organization on a key-management or settings route: set by `requireStaffOrBroker`,
   * or by `actForOrganization` for the operator's copies of the settings routes.
   */
  orgManager: OrgManager;
  /** Set on /api/operator routes by `requireOperator`: the operator token's id. */
  operatorTokenId: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
