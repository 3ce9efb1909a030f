-- Issue 17 §1: every change to a store's settings, its lender panel or the organization's screening
-- thresholds is kept, one row per field, written in the same D1 batch as the change (docs/settings.md).
-- Key rotation: the old key works until `expires_at` (docs/quota.md, README "Keys"). Webhook secret
-- rotation: the previous secret, encrypted like the current one, signs beside it until its expiry
-- (docs/webhooks.md#rotating-the-signing-secret).
CREATE TABLE `settings_audit` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text,
	`area` text NOT NULL,
	`field` text NOT NULL,
	`old_value` text NOT NULL,
	`new_value` text NOT NULL,
	`actor` text NOT NULL,
	`changed_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `settings_audit_org_changed_idx` ON `settings_audit` (`org_id`,`changed_at`,`id`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `expires_at` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret_ciphertext` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret_expires_at` text;
