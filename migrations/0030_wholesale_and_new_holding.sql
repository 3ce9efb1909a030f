ALTER TABLE `stores` ADD `floorplan_assistance_new_per_day` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `overhead_new_per_day` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `wholesale_ratio_pct` real DEFAULT 82 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `auction_fees` real DEFAULT 500 NOT NULL;