CREATE TABLE `unit_market_values` (
	`unit_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`market_value` real NOT NULL,
	`as_of` text NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `unit_market_values_org_idx` ON `unit_market_values` (`org_id`);