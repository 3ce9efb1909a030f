CREATE TABLE `settings_audit` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text,
	`area` text NOT NULL,
	`field` text NOT NULL,
	`old_value` text NOT NULL,
	`new_value` text NOT NULL,
	`actor` text NOT NULL,
	`changed_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `settings_audit_org_changed_idx` ON `settings_audit` (`org_id`,`changed_at`,`id`);--> statement-breakpoint
ALTER TABLE `stores` ADD `pack_new` real DEFAULT 300 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `pack_used` real DEFAULT 500 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `holding_cost_per_day` real DEFAULT 35 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `holding_high_value_cost` real DEFAULT 30000 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `holding_high_value_daily_pct` real DEFAULT 0.1 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `floorplan_apr_new` real DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `floorplan_apr_used` real DEFAULT 8.5 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `floorplan_assistance_new_per_day` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `overhead_new_per_day` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `wholesale_ratio_pct` real DEFAULT 82 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `auction_fees` real DEFAULT 500 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `recon_car` real DEFAULT 1200 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `recon_truck` real DEFAULT 1400 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `recon_suv` real DEFAULT 1300 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `recon_van` real DEFAULT 1200 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `aged_threshold_days` integer DEFAULT 45 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `aged_threshold_days_new` integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `target_front_gross_used_pct` real DEFAULT 8 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `target_front_gross_used_min` real DEFAULT 1200 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `inventory_stale_hours` integer DEFAULT 24 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `deals_stale_hours` integer DEFAULT 72 NOT NULL;