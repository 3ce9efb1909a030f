CREATE TABLE `appraisal_model_classes` (
	`org_id` text,
	`make` text NOT NULL,
	`model` text NOT NULL,
	`class_key` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_model_classes_org_idx` ON `appraisal_model_classes` (`org_id`);--> statement-breakpoint
CREATE TABLE `appraisal_price_classes` (
	`org_id` text,
	`class_key` text NOT NULL,
	`new_price` real NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_price_classes_org_idx` ON `appraisal_price_classes` (`org_id`);--> statement-breakpoint
CREATE TABLE `appraisal_recon_items` (
	`org_id` text,
	`item_key` text NOT NULL,
	`label` text NOT NULL,
	`cost` real NOT NULL,
	`additional_cost` real,
	`max_count` integer DEFAULT 1 NOT NULL,
	`always` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_recon_items_org_idx` ON `appraisal_recon_items` (`org_id`);--> statement-breakpoint
CREATE TABLE `appraisal_recon_keywords` (
	`org_id` text,
	`keyword` text NOT NULL,
	`item_key` text NOT NULL,
	`weak` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_recon_keywords_org_idx` ON `appraisal_recon_keywords` (`org_id`);--> statement-breakpoint
CREATE TABLE `appraisal_regional_index` (
	`org_id` text,
	`zip_prefix` text NOT NULL,
	`market_index` real NOT NULL,
	`label` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_regional_index_org_idx` ON `appraisal_regional_index` (`org_id`);--> statement-breakpoint
CREATE TABLE `appraisal_retention_curve` (
	`org_id` text,
	`age_years` integer NOT NULL,
	`residual_pct` real NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_retention_curve_org_idx` ON `appraisal_retention_curve` (`org_id`);--> statement-breakpoint
CREATE TABLE `appraisal_settings` (
	`org_id` text,
	`min_comps` integer NOT NULL,
	`comp_sold_within_days` integer NOT NULL,
	`expected_miles_per_year` real NOT NULL,
	`mileage_rate_floor` real NOT NULL,
	`mileage_rate_per_25k` real NOT NULL,
	`mileage_factor_age_4_to_7` real NOT NULL,
	`mileage_factor_age_8_plus` real NOT NULL,
	`mileage_adj_cap_pct` real NOT NULL,
	`high_mileage_threshold` integer NOT NULL,
	`high_mileage_penalty_pct` real NOT NULL,
	`residual_floor_pct` real NOT NULL,
	`value_floor` real NOT NULL,
	`days_to_sell` integer NOT NULL,
	`holding_high_value_threshold` real NOT NULL,
	`holding_high_value_daily_pct` real NOT NULL,
	`negotiation_discount_pct` real NOT NULL,
	`negotiation_min_gap` real NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_settings_org_idx` ON `appraisal_settings` (`org_id`);--> statement-breakpoint
ALTER TABLE `stores` ADD `target_front_gross_used_pct` real DEFAULT 8 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `target_front_gross_used_min` real DEFAULT 1200 NOT NULL;