CREATE TABLE `aged_inventory_alerts` (
	`org_id` text NOT NULL,
	`stock_number` text NOT NULL,
	`stocked_on` text NOT NULL,
	`alerted_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `stock_number`, `stocked_on`)
);
--> statement-breakpoint
CREATE INDEX `aged_inventory_alerts_alerted_idx` ON `aged_inventory_alerts` (`alerted_at`);--> statement-breakpoint
CREATE TABLE `morning_briefings` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`role` text NOT NULL,
	`day` text NOT NULL,
	`generated_at` text NOT NULL,
	`body` text NOT NULL,
	PRIMARY KEY(`store_id`, `role`, `day`)
);
--> statement-breakpoint
CREATE INDEX `morning_briefings_org_idx` ON `morning_briefings` (`org_id`);--> statement-breakpoint
CREATE INDEX `morning_briefings_day_idx` ON `morning_briefings` (`day`);