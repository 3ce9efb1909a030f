-- Creates that are safe to retry (issue 17 §2, docs/idempotency.md): one row per (scope, key), the
-- scope being the caller's organization. The composite primary key is the reservation: the first
-- writer wins, a concurrent duplicate finds the row and is answered 409. status is null while the
-- first request runs; the answer's body is stored AES-GCM encrypted (it can hold a raw key or a
-- webhook signing secret). Rows older than 24 h are purged daily (created_idx).
CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`request_id` text NOT NULL,
	`status` integer,
	`response_headers` text,
	`response_body_ciphertext` text,
	`created_at` text NOT NULL,
	`completed_at` text,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);
