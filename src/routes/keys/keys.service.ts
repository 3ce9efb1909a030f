import type { z } from "@hono/zod-openapi";
import { evictApiKey } from "../../credentials/credential-cache";
import { TEST_KEY_DAILY_LIMIT } from "../../credentials/sandbox-limits";
import { apiKeyDisplayPrefix, apiKeyMode, generateApiKey, sha256Hex } from "../../credentials/tokens";
import type { Database } from "../../db/client";
import { type ApiKeyMetadata, findApiKey, insertApiKey, listApiKeys, type NewApiKey, revokeApiKey, rotateApiKey } from "../../db/queries/api-keys";
import type { OrgManager } from "../../http/app-env";
import { tellKeyEnd } from "../../http/quota";
import { managerActor } from "../../http/staff-credentials";
import { DomainError } from "../../lib/domain-error";
import { newId } from "../../lib/ids";
import { describeError, logEvent } from "../../lib/log";
import type { CreateApiKeyRequestSchema } from "./keys.routes";

function toKeyFields(row: ApiKeyMetadata) {
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
 * A fresh key and the row that stores it: only the hash and a display prefix, never the key. A
 * sandbox's keys are `lak_test_` keys (docs/sandboxes.md), a live organization's `lak_` keys.
 */
async function newKeyRow(manager: OrgManager, grants: Pick<NewApiKey, "label" | "permissions" | "scopes" | "dailyLimit">) {
  const key = generateApiKey(manager.isSandbox ? "test" : "live");
  const row: NewApiKey = {
    id: newId("key"),
    keyHash: await sha256Hex(key),
    keyPrefix: apiKeyDisplayPrefix(key),
    ...grants,
    createdBy: managerActor(manager),
  };
  return { key, row };
}

/** The raw key leaves in this one response. A sandbox's keys are held to the test quota. */
export async function createKey(db: Database, manager: OrgManager, input: z.infer<typeof CreateApiKeyRequestSchema>) {
  if (manager.isSandbox && input.rate_limit > TEST_KEY_DAILY_LIMIT) {
    throw new DomainError("invalid", "The request body is invalid.", {
      problems: [{ path: "rate_limit", code: "too_big", message: `A sandbox's test keys allow at most ${TEST_KEY_DAILY_LIMIT} requests a day.` }],
    });
  }
  const permissions = input.permissions === undefined ? ["read"] : [input.permissions].flat();
  const { key, row } = await newKeyRow(manager, {
    label: input.label,
    permissions: [...new Set(permissions)],
    scopes: input.scopes ? [...new Set(input.scopes)] : null,
    dailyLimit: input.rate_limit,
  });
  return { ...toKeyFields(await insertApiKey(db, manager.orgId, row)), key };
}

const notFound = () => new DomainError("not_found", "This organization has no key with that id.");
const alreadyEnding = () =>
  new DomainError("conflict", "This key is revoked or already rotated (it has an end); rotate the key that replaced it, or create a new one.");

/**
 * A successor with the same label, permissions, scopes and rate limit; the old key keeps working
 * until now + `overlapHours`, then is refused. The successor's quota counts from zero (its own
 * counter: docs/quota.md#rotating-a-key). The old key's counter is told its end, so every
 * instance refuses it from then on (docs/consistency.md).
 */
export async function rotateKey(env: Env, db: Database, manager: OrgManager, id: string, overlapHours: number, nowMs: number) {
  const old = await findApiKey(db, manager.orgId, id);
  if (!old) throw notFound();
  if (old.revokedAt !== null || old.expiresAt !== null) throw alreadyEnding();
  const { key, row } = await newKeyRow(manager, { label: old.label, permissions: old.permissions, scopes: old.scopes, dailyLimit: old.dailyLimit });
  const expiresAt = new Date(nowMs + overlapHours * 3_600_000).toISOString();
  const rotated = await rotateApiKey(db, manager.orgId, id, row, expiresAt);
  if (!rotated) throw alreadyEnding();
  // This isolate's cached record has no end yet: drop it, so the end counts here from now on.
  evictApiKey(rotated.oldKeyHash);
  // A rotation cannot be repeated (the old key already has an end), so an unreachable counter is
  // logged, not answered: the end then reaches other instances with the credential cache's minute.
  await tellKeyEnd(env.QUOTA, id, Date.parse(expiresAt), "rotated").catch((error) =>
    logEvent("error", { event: "quota_counter_not_told", reason: "rotated", key_id: id, ...describeError(error) }),
  );
  return { ...toKeyFields(rotated.created), key, previous_key: { id, expires_at: expiresAt } };
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
      expires_at: row.expiresAt,
      usage_today: await usageToday(env, row, nowMs),
    })),
  );
}

/**
 * Revokes in D1, then tells the key's quota counter, which every instance asks before it serves the
 * key (at its first call, and at least once a minute after): so the key is refused at once by this
 * instance and by any instance without a lease, and by every instance within 60 s, whatever a
 * replica still says (docs/consistency.md). A counter that cannot be told fails the request (500):
 * repeating the DELETE, which keeps the first revocation time, tells it. False if the org has no such key.
 */
export async function revokeKey(env: Env, db: Database, orgId: string, id: string, nowMs: number): Promise<boolean> {
  const revoked = await revokeApiKey(db, orgId, id, new Date(nowMs).toISOString());
  if (revoked === null) return false;
  evictApiKey(revoked.keyHash);
  await tellKeyEnd(env.QUOTA, id, Date.parse(revoked.revokedAt), "revoked");
  return true;
}
