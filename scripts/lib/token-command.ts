/**
 * The operator commands for bearer tokens stored as SHA-256 (broker tokens, operator tokens):
 * issue (printed once), list, revoke, locally or with `--remote`. One implementation; each
 * command names its table, prefix and whether a token is bound to an organization.
 */
import { parseArgs } from "node:util";
import { generateToken, sha256Hex } from "../../src/credentials/tokens";
import { newId } from "../../src/lib/ids";
import { type D1Target, d1Execute, sqlString } from "./wrangler-d1";

export interface TokenKind {
  /** What the token is called in messages, e.g. "broker token". */
  noun: string;
  command: string;
  table: "broker_tokens" | "operator_tokens";
  prefix: string;
  idPrefix: string;
  /** Broker tokens belong to one organization (`--org`); operator tokens to none. */
  perOrganization: boolean;
  /** How to use the token, printed after it. */
  usage: string;
  /** Printed after a revocation. */
  afterRevoke: string;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_LABEL_LENGTH = 100;

class UsageError extends Error {}

function requireId(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`--${flag} is required.`);
  if (!ID_PATTERN.test(value)) throw new UsageError(`--${flag} must be 1 to 64 letters, digits, "_" or "-".`);
  return value;
}

/** The row an already known token (the local operator token of .dev.vars) is stored as; INSERT OR IGNORE, so reruns add nothing. */
export async function tokenInsertSql(kind: TokenKind, token: { id: string; raw: string; label: string; orgId?: string }): Promise<string> {
  const columns = ["id", ...(kind.perOrganization ? ["org_id"] : []), "token_hash", "label"];
  const values = [token.id, ...(kind.perOrganization ? [token.orgId ?? ""] : []), await sha256Hex(token.raw), token.label].map(sqlString);
  return `INSERT OR IGNORE INTO ${kind.table} (${columns.join(", ")}) VALUES (${values.join(", ")})`;
}

async function issue(kind: TokenKind, target: D1Target, orgId: string | undefined, label: string | undefined) {
  const trimmed = label?.trim() ?? "";
  if (trimmed.length < 1 || trimmed.length > MAX_LABEL_LENGTH) throw new UsageError(`--label must be 1 to ${MAX_LABEL_LENGTH} characters.`);
  let owner = "";
  if (orgId !== undefined) {
    const [org] = d1Execute<{ id: string; name: string }>(`SELECT id, name FROM organizations WHERE id = ${sqlString(orgId)}`, target);
    if (!org) throw new UsageError(`No organization ${orgId}.`);
    owner = ` for ${org.name} (${orgId})`;
  }
  const raw = generateToken(kind.prefix);
  const id = newId(kind.idPrefix);
  d1Execute(await tokenInsertSql(kind, { id, raw, label: trimmed, orgId }), target);
  console.log(`${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} ${id}${owner}, label "${trimmed}":\n\n  ${raw}\n`);
  console.log(`Store it now: it is not shown again and cannot be recovered. ${kind.usage}`);
}

function list(kind: TokenKind, target: D1Target, orgId: string | undefined) {
  const where = orgId === undefined ? "" : ` WHERE org_id = ${sqlString(orgId)}`;
  const rows = d1Execute<{ id: string; label: string; created_at: string; revoked_at: string | null }>(
    `SELECT id, label, created_at, revoked_at FROM ${kind.table}${where} ORDER BY created_at DESC`,
    target,
  );
  if (rows.length === 0) console.log(`No ${kind.noun}s${orgId ? ` for ${orgId}` : ""}.`);
  else
    console.table(
      rows.map((r) => ({ id: r.id, label: r.label, created_at: r.created_at, status: r.revoked_at ? `revoked ${r.revoked_at}` : "active" })),
    );
}

function revoke(kind: TokenKind, target: D1Target, id: string) {
  const [row] = d1Execute<{ id: string }>(
    `UPDATE ${kind.table} SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ${sqlString(id)} AND revoked_at IS NULL RETURNING id`,
    target,
  );
  if (!row) throw new UsageError(`No active ${kind.noun} ${id} (unknown, or already revoked).`);
  console.log(`Revoked ${kind.noun} ${row.id}. ${kind.afterRevoke}`);
}

/** Parses argv and runs `issue`, `list` or `revoke`; a usage error prints the usage and exits 1. */
export function runTokenCommand(kind: TokenKind): void {
  const org = kind.perOrganization ? " --org <org id>" : "";
  const usage = `usage:
  npm run ${kind.command} -- issue ${org} --label "<label>" [--remote]
  npm run ${kind.command} -- list  ${org} [--remote]
  npm run ${kind.command} -- revoke --id <token id> [--remote]`;
  const main = async () => {
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
    const orgId = kind.perOrganization ? requireId(values.org, "org") : undefined;
    const [command] = positionals;
    if (command === "issue") await issue(kind, target, orgId, values.label);
    else if (command === "list") list(kind, target, orgId);
    else if (command === "revoke") revoke(kind, target, requireId(values.id, "id"));
    else throw new UsageError(command ? `Unknown command "${command}".` : "A command is required.");
  };
  main().catch((err: unknown) => {
    console.error(err instanceof UsageError ? `${err.message}\n${usage}` : err);
    process.exit(1);
  });
}
