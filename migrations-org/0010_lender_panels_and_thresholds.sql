CREATE TABLE `compliance_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`hold_score` real NOT NULL,
	`flag_score` real NOT NULL,
	`max_list_age_days` integer NOT NULL,
	`minimum_age` integer NOT NULL,
	`maximum_age` integer NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `store_lender_panel` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`program_id` text NOT NULL,
	PRIMARY KEY(`store_id`, `program_id`)
);
--> statement-breakpoint
CREATE INDEX `store_lender_panel_org_idx` ON `store_lender_panel` (`org_id`,`store_id`);