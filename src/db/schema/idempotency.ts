import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One `Idempotency-Key` per scope (the caller's organization): the request it was first sent with
 * (as a fingerprint) and, once answered, the answer to replay (docs/idempotency.md). Rows older
 * than 24 h are deleted by the `purge-expired-records` job (docs/retention.md).
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    /** Whose key it is: the organization id for every dealer credential (API key, broker token, staff). */
    scope: text("scope").notNull(),
    /** The key as the client sent it (1–255 characters, quotes of the sf-string form removed). */
    key: text("key").notNull(),
    /** SHA-256 hex of method, path with query, and body bytes. */
    fingerprint: text("fingerprint").notNull(),
    /** The X-Request-Id of the request that holds the reservation, so only it completes or releases it. */
    requestId: text("request_id").notNull(),
    /** The answer's status; null while the first request is still running. */
    status: integer("status"),
    /** JSON object of the answer's headers a client needs again (Content-Type, Location, Cache-Control). */
    responseHeaders: text("response_headers"),
    /** The answer's body, AES-GCM encrypted with WEBHOOK_SECRETS_KEY: it can hold a raw key or signing secret. */
    responseBodyCiphertext: text("response_body_ciphertext"),
    createdAt: text("created_at").notNull(),
    completedAt: text("completed_at"),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);
