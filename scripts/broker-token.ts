/**
 * Operator command for broker tokens, which let a broker create keys in one organization.
 * The operator API does the same over HTTP (POST /api/operator/organizations/{id}/broker-tokens).
 *
 *   npm run broker-token -- issue  --org <org id> --label "<label>" [--remote]
 *   npm run broker-token -- list   --org <org id> [--remote]
 *   npm run broker-token -- revoke --id <token id> [--remote]
 *
 * `issue` prints the token once; only its SHA-256 is stored. Revocation writes D1 from outside any
 * Worker instance, so each instance refuses the token once its cached copy lapses: within 60 s
 * (docs/consistency.md). `--persist-to <dir>` picks the local state directory.
 */
import { BROKER_TOKEN_PREFIX } from "../src/credentials/tokens";
import { runTokenCommand } from "./lib/token-command";

runTokenCommand({
  noun: "broker token",
  command: "broker-token",
  table: "broker_tokens",
  prefix: BROKER_TOKEN_PREFIX,
  idPrefix: "brk",
  perOrganization: true,
  usage: "Use it as `Authorization: Bearer <token>`.",
  afterRevoke:
    "Every instance refuses it within 60 s (its cached copy lapses). Keys it created stay valid; revoke them with DELETE /api/public-api/keys/{id}.",
});
