-- Accounts without SQL (issue 17 §1): an operator credential, organizations that can be suspended,
-- and self-serve sandboxes (docs/sandboxes.md).
--
-- operator_tokens: `dot_` bearer tokens of the operator API (/api/operator), stored as SHA-256 like
-- broker tokens; they belong to no organization and are never accepted as a dealer credential.
CREATE TABLE `operator_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`label` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text
);--> statement-breakpoint
CREATE UNIQUE INDEX `operator_tokens_token_hash_unique` ON `operator_tokens` (`token_hash`);--> statement-breakpoint
-- A suspended organization's keys, broker tokens and staff sessions are refused (403 organization_suspended).
ALTER TABLE `organizations` ADD `suspended_at` text;--> statement-breakpoint
-- A sandbox: seeded with the demo data, reached only with `lak_test_` keys, refused once
-- `expires_at` has passed and purged by the 00:15 cron.
ALTER TABLE `organizations` ADD `is_sandbox` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `expires_at` text;--> statement-breakpoint
CREATE INDEX `organizations_sandbox_expiry_idx` ON `organizations` (`is_sandbox`,`expires_at`);--> statement-breakpoint
-- Sandboxes created per client address and UTC day, for the exact daily cap. The address is kept
-- only as a keyed hash (HMAC-SHA256 under a server secret), never raw.
CREATE TABLE `sandbox_requests` (
	`day` text NOT NULL,
	`address_hash` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `address_hash`)
);
