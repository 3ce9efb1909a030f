CREATE TABLE `market_observations` (
	`series_id` text NOT NULL,
	`date` text NOT NULL,
	`value` real NOT NULL,
	`fetched_at` text NOT NULL,
	PRIMARY KEY(`series_id`, `date`),
	FOREIGN KEY (`series_id`) REFERENCES `market_series`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `market_refresh_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`series_id` text NOT NULL,
	`reason` text NOT NULL,
	`occurred_at` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `market_refresh_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `market_refresh_failures_run_idx` ON `market_refresh_failures` (`run_id`);--> statement-breakpoint
CREATE TABLE `market_refresh_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text NOT NULL,
	`status` text NOT NULL,
	`observations_added` integer NOT NULL,
	`entries_added` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `market_refresh_runs_started_idx` ON `market_refresh_runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `market_series` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`name` text NOT NULL,
	`category` text NOT NULL,
	`unit` text NOT NULL,
	`frequency` text NOT NULL,
	`fallback_for` text,
	`source` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE `morning_briefings` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`role` text NOT NULL,
	`day` text NOT NULL,
	`generated_at` text NOT NULL,
	`body` text NOT NULL,
	PRIMARY KEY(`store_id`, `role`, `day`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `morning_briefings_org_idx` ON `morning_briefings` (`org_id`);--> statement-breakpoint
CREATE TABLE `unit_market_values` (
	`unit_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`market_value` real NOT NULL,
	`as_of` text NOT NULL,
	`source` text NOT NULL,
	FOREIGN KEY (`unit_id`) REFERENCES `inventory_units`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `unit_market_values_org_idx` ON `unit_market_values` (`org_id`);