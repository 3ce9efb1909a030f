import { env } from "cloudflare:workers";
import { generateToken, OPERATOR_TOKEN_PREFIX, sha256Hex } from "../../src/credentials/tokens";
import { getDb } from "../../src/db/client";
import { operatorTokens } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";

/** An operator token (`dot_`) for /api/operator, stored as the command stores it: its SHA-256 only. */
export async function createOperatorToken(options: { revoked?: boolean } = {}): Promise<string> {
  const token = generateToken(OPERATOR_TOKEN_PREFIX);
  await getDb(env.DB)
    .insert(operatorTokens)
    .values({
      id: newId("opt"),
      tokenHash: await sha256Hex(token),
      label: "test operator",
      revokedAt: options.revoked ? new Date().toISOString() : null,
    });
  return token;
}
