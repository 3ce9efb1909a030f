/**
 * Operator command for broker tokens, which let a broker create keys in one organization.
 *
 *   npm run broker-token -- issue  --org <org id> --label "<label>" [--remote]
 *   npm run broker-token -- list   --org <org id> [--remote]
 *   npm run broker-token -- revoke --id <token id> [--remote]
 *
 * `issue` prints the token once; only its SHA-256 is stored. Revocation takes effect at once:
 * the Worker does not cache broker tokens. `--persist-to <dir>` picks the local state directory.
 */
import { parseArgs } from "node:util";
import { BROKER_TOKEN_PREFIX, generateToken, sha256Hex } from "../src/credentials/tokens";
import { newId } from "../src/lib/ids";
import { type D1Target, d1Execute, sqlString } from "./lib/wrangler-d1";

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_LABEL_LENGTH = 100;
const USAGE = `usage:
  npm run broker-token -- issue  --org <org id> --label "<label>" [--remote]
  npm run broker-token -- list   --org <org id> [--remote]
  npm run broker-token -- revoke --id <token id> [--remote]`;

class UsageError extends Error {}

function requireId(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`--${flag} is required.`);
  if (!ID_PATTERN.test(value)) throw new UsageError(`--${flag} must be 1 to 64 letters, digits, "_" or "-".`);
  return value;
}

async function issue(target: D1Target, orgId: string, label: string | undefined) {
  const trimmed = label?.trim() ?? "";
  if (trimmed.length < 1 || trimmed.length > MAX_LABEL_LENGTH) throw new UsageError(`--label must be 1 to ${MAX_LABEL_LENGTH} characters.`);
  const [org] = d1Execute<{ id: string; name: string }>(`SELECT id, name FROM organizations WHERE id = ${sqlString(orgId)}`, target);
  if (!org) throw new UsageError(`No organization ${orgId}.`);

  const token = generateToken(BROKER_TOKEN_PREFIX);
  const id = newId("brk");
  d1Execute(
    `INSERT INTO broker_tokens (id, org_id, token_hash, label) VALUES (${sqlString(id)}, ${sqlString(orgId)}, ${sqlString(await sha256Hex(token))}, ${sqlString(trimmed)})`,
    target,
  );
  console.log(`Broker token ${id} for ${org.name} (${orgId}), label "${trimmed}":\n\n  ${token}\n`);
  console.log("Store it now: it is not shown again and cannot be recovered. Use it as `Authorization: Bearer <token>`.");
}

function list(target: D1Target, orgId: string) {
  const rows = d1Execute<{ id: string; label: string; created_at: string; revoked_at: string | null }>(
    `SELECT id, label, created_at, revoked_at FROM broker_tokens WHERE org_id = ${sqlString(orgId)} ORDER BY created_at DESC`,
    target,
  );
  if (rows.length === 0) console.log(`No broker tokens for ${orgId}.`);
  else
    console.table(
      rows.map((r) => ({ id: r.id, label: r.label, created_at: r.created_at, status: r.revoked_at ? `revoked ${r.revoked_at}` : "active" })),
    );
}

function revoke(target: D1Target, id: string) {
  const [row] = d1Execute<{ id: string; org_id: string }>(
    `UPDATE broker_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ${sqlString(id)} AND revoked_at IS NULL RETURNING id, org_id`,
    target,
  );
  if (!row) throw new UsageError(`No active broker token ${id} (unknown, or already revoked).`);
  console.log(`Revoked broker token ${row.id} of ${row.org_id}. Keys it created stay valid; revoke them with DELETE /api/public-api/keys/{id}.`);
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      org: { type: "string" },
      label: { type: "string" },
      id: { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string" },
    },
  });
  const target: D1Target = { remote: values.remote, persistTo: values["persist-to"] };
  const [command] = positionals;
  if (command === "issue") await issue(target, requireId(values.org, "org"), values.label);
  else if (command === "list") list(target, requireId(values.org, "org"));
  else if (command === "revoke") revoke(target, requireId(values.id, "id"));
  else throw new UsageError(command ? `Unknown command "${command}".` : "A command is required.");
}

main().catch((err: unknown) => {
  console.error(err instanceof UsageError ? `${err.message}\n${USAGE}` : err);
  process.exit(1);
});
