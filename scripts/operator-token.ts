/**
 * Operator command for operator tokens, the credential of the operator API (/api/operator:
 * organizations, stores, staff users, broker tokens). They belong to no organization.
 *
 *   npm run operator-token -- issue  --label "<label>" [--remote]
 *   npm run operator-token -- list   [--remote]
 *   npm run operator-token -- revoke --id <token id> [--remote]
 *
 * `issue` prints the token once; only its SHA-256 is stored. The Worker does not cache operator
 * tokens, so a revocation takes effect at once.
 */
import { runTokenCommand } from "./lib/token-command";
import { OPERATOR_TOKEN_KIND } from "./lib/token-kinds";

runTokenCommand(OPERATOR_TOKEN_KIND);
