import type { z } from "@hono/zod-openapi";
import { evictApiKey } from "../../credentials/credential-cache";
import { TEST_KEY_DAILY_LIMIT } from "../../credentials/sandbox-limits";
import { apiKeyDisplayPrefix, apiKeyMode, generateApiKey, sha256Hex } from "../../credentials/tokens";
import type { Database } from "../../db/client";
import { type ApiKeyMetadata, insertApiKey, listApiKeys, revokeApiKey } from "../../db/queries/api-keys";
import type { KeyManager } from "../../http/app-env";
import { ApiError } from "../../http/errors";
import { newId } from "../../lib/ids";
import { describeError, logEvent } from "../../lib/log";
import type { CreateApiKeyRequestSchema } from "./keys.routes";

const createdBy = (manager: KeyManager) => (manager.kind === "staff" ? `staff:${manager.userId}` : `broker:${manager.tokenId}`);

export function toKeyFields(row: ApiKeyMetadata) {
  return {
    id: row.id,
    key_prefix: row.keyPrefix,
    mode: apiKeyMode(row.keyPrefix),
    label: row.label,
    permissions: row.permissions,
    scopes: row.scopes,
    rate_limit: row.dailyLimit,
    created_at: row.createdAt,
  };
}

/**
 * Only the hash and a display prefix are stored; the raw key leaves in this one response. A
 * sandbox's keys are `lak_test_` keys, held to the test quota.
 */
export async function createKey(db: Database, manager: KeyManager, input: z.infer<typeof CreateApiKeyRequestSchema>) {
  if (manager.isSandbox && input.rate_limit > TEST_KEY_DAILY_LIMIT) {
    throw new ApiError("validation_error", "The request body is invalid.", {
      details: [{ path: "rate_limit", code: "too_big", message: `A sandbox's test keys allow at most ${TEST_KEY_DAILY_LIMIT} requests a day.` }],
    });
  }
  const key = generateApiKey(manager.isSandbox ? "test" : "live");
  const permissions = input.permissions === undefined ? ["read"] : [input.permissions].flat();
  const row = await insertApiKey(db, manager.orgId, {
    id: newId("key"),
    keyHash: await sha256Hex(key),
    keyPrefix: apiKeyDisplayPrefix(key),
    label: input.label,
    permissions: [...new Set(permissions)],
    scopes: input.scopes ? [...new Set(input.scopes)] : null,
    dailyLimit: input.rate_limit,
    createdBy: createdBy(manager),
  });
  return { ...toKeyFields(row), key };
}

async function usageToday(env: Env, row: ApiKeyMetadata, nowMs: number): Promise<number | null> {
  // A key revoked before today's UTC midnight cannot have been used today; skip its counter.
  const todayStart = new Date(nowMs).toISOString().slice(0, 10);
  if (row.revokedAt !== null && row.revokedAt < todayStart) return 0;
  try {
    const { used } = await env.QUOTA.get(env.QUOTA.idFromName(row.id)).usage(nowMs);
    return used;
  } catch (err) {
    logEvent("error", { event: "quota_usage_read_failed", key_prefix: row.keyPrefix, ...describeError(err) });
    return null;
  }
}

export async function listKeysWithUsage(env: Env, db: Database, orgId: string, nowMs: number) {
  const rows = await listApiKeys(db, orgId);
  return Promise.all(
    rows.map(async (row) => ({
      ...toKeyFields(row),
      last_used_at: row.lastUsedAt,
      revoked_at: row.revokedAt,
      usage_today: await usageToday(env, row, nowMs),
    })),
  );
}

/**
 * Revokes in D1 and drops the key from this isolate's credential cache at once; other isolates
 * stop accepting it when their cache entry lapses (at most 60 s). False if the org has no such key.
 */
export async function revokeKey(db: Database, orgId: string, id: string, nowMs: number): Promise<boolean> {
  const keyHash = await revokeApiKey(db, orgId, id, new Date(nowMs).toISOString());
  if (keyHash === null) return false;
  evictApiKey(keyHash);
  return true;
}
