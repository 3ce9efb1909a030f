CREATE TABLE `store_feeds` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`feed` text NOT NULL,
	`received_at` text NOT NULL,
	`stale_since` text,
	PRIMARY KEY(`store_id`, `feed`)
);
--> statement-breakpoint
CREATE INDEX `store_feeds_org_idx` ON `store_feeds` (`org_id`,`store_id`);--> statement-breakpoint
CREATE INDEX `store_feeds_fresh_idx` ON `store_feeds` (`stale_since`,`received_at`);