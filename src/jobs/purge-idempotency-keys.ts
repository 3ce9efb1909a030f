import { getDb } from "../db/client";
import { deleteIdempotencyKeysBefore } from "../db/queries/idempotency-keys";
import { IDEMPOTENCY_KEY_TTL_MS } from "../engines/idempotency/idempotency-key";
import { logEvent } from "../lib/log";

/** Deletes every Idempotency-Key first used more than 24 h ago (docs/idempotency.md): its answer is no longer replayed. */
export async function purgeIdempotencyKeys(env: Env, now: Date): Promise<void> {
  const before = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS).toISOString();
  const purged = await deleteIdempotencyKeysBefore(getDb(env.DB), before);
  logEvent("info", { event: "idempotency_keys_purged", keys: purged });
}
