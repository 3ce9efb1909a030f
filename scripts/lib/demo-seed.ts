import { writeFileSync } from "node:fs";
import path from "node:path";
import { hashPassword } from "../../src/credentials/password";
import { apiKeyDisplayPrefix, sha256Hex } from "../../src/credentials/tokens";
import {
  buildDemoSeed,
  DEMO_ORGANIZATIONS,
  type DemoCredentials,
  type DemoOrgCredentials,
  type DemoSeedSummary,
  demoOrgSeeds,
} from "../../src/demo/demo-data";
import { DEMO_DEAL_DESK_REFERENCE } from "../deal-desk-reference";
import type { DemoOrgSecrets, DemoSecrets } from "./dev-vars";
import type { LocalD1 } from "./miniflare-d1";
import { REPO_ROOT } from "./repo-root";
import { tokenInsertSql } from "./token-command";
import { OPERATOR_TOKEN_KIND } from "./token-kinds";

export const CREDENTIALS_FILE = path.join(REPO_ROOT, "demo-credentials.json");

export const todayUtc = () => new Date().toISOString().slice(0, 10);

async function hashOrgSecrets(secrets: DemoOrgSecrets, pepper: string): Promise<DemoOrgCredentials> {
  return {
    apiKeyHash: await sha256Hex(secrets.apiKey),
    apiKeyPrefix: apiKeyDisplayPrefix(secrets.apiKey),
    brokerTokenHash: await sha256Hex(secrets.brokerToken),
    staffEmail: secrets.staffEmail,
    staffPasswordHash: await hashPassword(secrets.staffPassword, pepper),
  };
}

async function hashDemoSecrets(secrets: DemoSecrets): Promise<DemoCredentials> {
  return {
    summit: { ...(await hashOrgSecrets(secrets.summit, secrets.passwordPepper)), legacyTokenHash: await sha256Hex(secrets.summit.legacyToken) },
    lakeside: await hashOrgSecrets(secrets.lakeside, secrets.passwordPepper),
  };
}

/** Rows that already exist are kept (INSERT OR IGNORE), so this is safe to run at any time. */
export async function seedLocalDemoData(db: LocalD1, secrets: DemoSecrets, referenceDate: string): Promise<DemoSeedSummary> {
  const { statements, summary } = buildDemoSeed({
    referenceDate,
    organizations: demoOrgSeeds(await hashDemoSecrets(secrets)),
    dealDeskReference: DEMO_DEAL_DESK_REFERENCE,
  });
  await db.runSql(statements);
  return summary;
}

/** The local operator token's row; INSERT OR IGNORE, so it is safe on every start (an older database gains it). */
export async function seedLocalOperatorToken(db: LocalD1, secrets: DemoSecrets): Promise<void> {
  await db.query(await tokenInsertSql(OPERATOR_TOKEN_KIND, { id: "opt_local_dev", raw: secrets.operatorToken, label: "Local operator token" }));
}

/** The shape tools outside the repository read; keep it stable (fields are only added). */
function credentialsDocument(secrets: DemoSecrets, port: number) {
  return {
    base_url: `http://localhost:${port}`,
    operator_token: secrets.operatorToken,
    orgs: DEMO_ORGANIZATIONS.map((org) => {
      const orgSecrets: DemoOrgSecrets & { legacyToken?: string } = secrets[org.key as "summit" | "lakeside"];
      return {
        org_id: org.id,
        name: org.name,
        api_key: orgSecrets.apiKey,
        broker_token: orgSecrets.brokerToken,
        staff: { email: orgSecrets.staffEmail, password: orgSecrets.staffPassword },
        ...(orgSecrets.legacyToken ? { legacy_token: orgSecrets.legacyToken } : {}),
        stores: org.stores.map((store) => ({ id: store.id, name: store.name, primary: store.primary })),
      };
    }),
  };
}

export function publishDemoCredentials(secrets: DemoSecrets, port: number): void {
  const document = credentialsDocument(secrets, port);
  writeFileSync(CREDENTIALS_FILE, `${JSON.stringify(document, null, 2)}\n`);

  const line = (label: string, value: string) => `    ${label.padEnd(16)}${value}`;
  const lines = [
    `Demo credentials (local only, from .dev.vars) for ${document.base_url}`,
    "",
    line("operator token", `${document.operator_token}   header Authorization: Bearer, on /api/operator`),
  ];
  for (const org of document.orgs) {
    lines.push(
      "",
      `  ${org.name} (${org.org_id})`,
      line("stores", org.stores.map((s) => `${s.name} [${s.id}]${s.primary ? " (primary)" : ""}`).join(", ")),
      line("API key", `${org.api_key}   header X-Service-API-Key`),
      line("broker token", `${org.broker_token}   header Authorization: Bearer`),
      line("staff login", `${org.staff.email} / ${org.staff.password}`),
    );
    if (org.legacy_token) lines.push(line("legacy token", `${org.legacy_token}   header X-Api-Token (inventory, sales-summary)`));
  }
  lines.push(
    "",
    `  Try: curl -H "X-Service-API-Key: ${document.orgs[0].api_key}" ${document.base_url}/api/v1/inventory`,
    `  Also written to ${path.relative(REPO_ROOT, CREDENTIALS_FILE)}.`,
  );
  const rule = "─".repeat(78);
  console.log(`\n${rule}\n${lines.join("\n")}\n${rule}\n`);
}
