CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`label` text NOT NULL,
	`permissions` text NOT NULL,
	`scopes` text,
	`daily_limit` integer DEFAULT 100 NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text,
	`last_used_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_org_idx` ON `api_keys` (`org_id`);--> statement-breakpoint
CREATE TABLE `broker_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`label` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `broker_tokens_token_hash_unique` ON `broker_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `deal_stips` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`deal_id` text NOT NULL,
	`stip` text NOT NULL,
	`state` text NOT NULL,
	`requested_on` text NOT NULL,
	`cleared_on` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`deal_id`) REFERENCES `deals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `deal_stips_org_deal_idx` ON `deal_stips` (`org_id`,`deal_id`);--> statement-breakpoint
CREATE TABLE `deals` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`deal_number` text NOT NULL,
	`sold_on` text NOT NULL,
	`submitted_on` text,
	`funded_on` text,
	`status` text NOT NULL,
	`vin` text NOT NULL,
	`year` integer NOT NULL,
	`make` text NOT NULL,
	`model` text NOT NULL,
	`condition` text NOT NULL,
	`vehicle_type` text NOT NULL,
	`selling_price` real NOT NULL,
	`lender` text,
	`beacon` integer,
	`amount_financed` real,
	`front_gross` real NOT NULL,
	`back_gross` real NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deals_org_number_idx` ON `deals` (`org_id`,`deal_number`);--> statement-breakpoint
CREATE INDEX `deals_org_sold_idx` ON `deals` (`org_id`,`sold_on`);--> statement-breakpoint
CREATE INDEX `deals_org_status_idx` ON `deals` (`org_id`,`status`);--> statement-breakpoint
CREATE TABLE `inventory_units` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`stock_number` text NOT NULL,
	`vin` text NOT NULL,
	`year` integer NOT NULL,
	`make` text NOT NULL,
	`model` text NOT NULL,
	`trim` text NOT NULL,
	`condition` text NOT NULL,
	`vehicle_type` text NOT NULL,
	`mileage` integer NOT NULL,
	`stocked_on` text NOT NULL,
	`cost` real NOT NULL,
	`asking_price` real NOT NULL,
	`status` text DEFAULT 'in_stock' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inventory_org_stock_idx` ON `inventory_units` (`org_id`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_status_stocked_idx` ON `inventory_units` (`org_id`,`status`,`stocked_on`);--> statement-breakpoint
CREATE TABLE `key_usage_daily` (
	`day` text NOT NULL,
	`key_id` text NOT NULL,
	`org_id` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`deal_tool_calls` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `key_id`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `key_usage_org_day_idx` ON `key_usage_daily` (`org_id`,`day`);--> statement-breakpoint
CREATE TABLE `legacy_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`label` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `legacy_tokens_token_hash_unique` ON `legacy_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `market_feed_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`category` text NOT NULL,
	`signal` text NOT NULL,
	`severity` text NOT NULL,
	`source` text NOT NULL,
	`date` text NOT NULL,
	`refreshed_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `market_feed_date_idx` ON `market_feed_entries` (`date`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`is_demo` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `platform_daily` (
	`day` text PRIMARY KEY NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`server_errors` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `staff_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`org_id` text NOT NULL,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `staff_users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `staff_sessions_user_idx` ON `staff_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `staff_users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `staff_users_email_unique` ON `staff_users` (`email`);--> statement-breakpoint
CREATE TABLE `stores` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`is_primary` integer DEFAULT false NOT NULL,
	`market_zip` text NOT NULL,
	`pack_new` real DEFAULT 300 NOT NULL,
	`pack_used` real DEFAULT 500 NOT NULL,
	`holding_cost_per_day` real DEFAULT 35 NOT NULL,
	`floorplan_apr_new` real DEFAULT 7 NOT NULL,
	`floorplan_apr_used` real DEFAULT 8.5 NOT NULL,
	`recon_car` real DEFAULT 1200 NOT NULL,
	`recon_truck` real DEFAULT 1400 NOT NULL,
	`recon_suv` real DEFAULT 1300 NOT NULL,
	`recon_van` real DEFAULT 1200 NOT NULL,
	`aged_threshold_days` integer DEFAULT 45 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `stores_org_idx` ON `stores` (`org_id`);