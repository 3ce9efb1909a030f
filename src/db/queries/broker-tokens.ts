import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../http/app-env";
import { brokerTokens } from "../schema";

/** Looked up by hash, so no secret is compared character by character. Revoked tokens are not found. */
export async function findActiveBrokerTokenByHash(db: Database, tokenHash: string): Promise<{ id: string; orgId: string } | null> {
  const [row] = await db
    .select({ id: brokerTokens.id, orgId: brokerTokens.orgId })
    .from(brokerTokens)
    .where(and(eq(brokerTokens.tokenHash, tokenHash), isNull(brokerTokens.revokedAt)))
    .limit(1);
  return row ?? null;
}
