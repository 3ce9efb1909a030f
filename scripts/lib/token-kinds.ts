import { OPERATOR_TOKEN_PREFIX } from "../../src/credentials/tokens";
import type { TokenKind } from "./token-command";

/** Shared by `npm run operator-token` and the local seed (the operator token of .dev.vars). */
export const OPERATOR_TOKEN_KIND: TokenKind = {
  noun: "operator token",
  command: "operator-token",
  table: "operator_tokens",
  prefix: OPERATOR_TOKEN_PREFIX,
  idPrefix: "opt",
  perOrganization: false,
  usage: "Use it as `Authorization: Bearer <token>` on /api/operator.",
  afterRevoke: "It is refused from the next request on.",
};
