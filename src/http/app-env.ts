import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { RequestIdVariables } from "hono/request-id";
import type * as schema from "../db/schema";
import type { EndpointName } from "./endpoints";

export type Database = DrizzleD1Database<typeof schema> & { $client: D1Database };

/** Who is calling, once a credential has been checked; every query below it is scoped by `orgId`. */
export type Principal =
  | { kind: "api_key"; keyId: string; orgId: string; dailyLimit: number }
  | { kind: "legacy_token"; tokenId: string; orgId: string };

export interface AppVariables extends RequestIdVariables {
  db: Database;
  principal: Principal;
  /** Set by the credential check: which endpoint (and scope) this call is for. */
  endpoint: EndpointName;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
