CREATE TABLE `credit_tiers` (
	`tier` text PRIMARY KEY NOT NULL,
	`score_min` integer NOT NULL,
	`score_max` integer NOT NULL,
	`new_apr` real NOT NULL,
	`used_apr` real NOT NULL,
	`apr_spread` real NOT NULL,
	`max_ltv` real NOT NULL,
	`max_pti` real NOT NULL,
	`max_term` integer NOT NULL,
	`standard_markup` real NOT NULL,
	`markup_cap_short_term` real NOT NULL,
	`markup_cap_long_term` real NOT NULL,
	`back_gross_target` real NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fi_products` (
	`product` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`penetration_new` real NOT NULL,
	`penetration_used` real NOT NULL,
	`penetration_high_ltv` real,
	`financed_only` integer NOT NULL,
	`typical_profit` real NOT NULL,
	`objection` text NOT NULL,
	`word_track` text NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `front_gross_targets` (
	`condition` text PRIMARY KEY NOT NULL,
	`target_pct` real NOT NULL,
	`min_amount` real NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `known_issue_rules` (
	`issue` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`extra_down_pct` real NOT NULL,
	`rate_add` real NOT NULL,
	`max_term` integer,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `lender_decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`program_id` text NOT NULL,
	`deal_id` text,
	`submitted_on` text NOT NULL,
	`score_band` text NOT NULL,
	`decision` text NOT NULL,
	`stips_asked` text NOT NULL,
	`turnaround_hours` real,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`program_id`) REFERENCES `lender_programs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lender_decisions_store_idx` ON `lender_decisions` (`org_id`,`store_id`,`program_id`);--> statement-breakpoint
CREATE TABLE `lender_programs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`min_score` integer NOT NULL,
	`max_score` integer NOT NULL,
	`max_ltv` real NOT NULL,
	`max_pti` real NOT NULL,
	`max_term` integer NOT NULL,
	`min_down_pct` real NOT NULL,
	`vehicle_max_age` integer NOT NULL,
	`vehicle_max_miles` integer NOT NULL,
	`accepts_repo` integer NOT NULL,
	`accepts_bk7` integer NOT NULL,
	`accepts_bk13` integer NOT NULL,
	`accepts_itin` integer NOT NULL,
	`accepts_thin_file` integer NOT NULL,
	`accepts_charge_off` integer NOT NULL,
	`rate_margin` real NOT NULL,
	`rate_add` text NOT NULL,
	`markup_cap` real NOT NULL,
	`flat_fee` real NOT NULL,
	`funding_days` integer NOT NULL,
	`turnaround_hours` real NOT NULL,
	`base_stips` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lender_programs_name_unique` ON `lender_programs` (`name`);--> statement-breakpoint
CREATE TABLE `stip_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`trigger_kind` text NOT NULL,
	`trigger_value` text NOT NULL,
	`lender_type` text,
	`stip` text NOT NULL,
	`priority` text NOT NULL,
	`replaces` text,
	FOREIGN KEY (`stip`) REFERENCES `stip_types`(`stip`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `stip_types` (
	`stip` text PRIMARY KEY NOT NULL,
	`rule` text NOT NULL,
	`turnaround_hours` real NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `store_lender_panel` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`program_id` text NOT NULL,
	PRIMARY KEY(`store_id`, `program_id`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`program_id`) REFERENCES `lender_programs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `store_lender_panel_org_idx` ON `store_lender_panel` (`org_id`,`store_id`);--> statement-breakpoint
CREATE TABLE `vehicle_type_adjustments` (
	`vehicle_type` text PRIMARY KEY NOT NULL,
	`ltv_add` real NOT NULL,
	`apr_add` real NOT NULL
);
