CREATE TABLE `lender_outcome_episodes` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`program_id` text NOT NULL,
	`opened_at` text NOT NULL,
	`figures` text NOT NULL,
	`closed_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`program_id`) REFERENCES `lender_programs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lender_outcome_episodes_open_idx` ON `lender_outcome_episodes` (`store_id`,`program_id`) WHERE "lender_outcome_episodes"."closed_at" IS NULL;--> statement-breakpoint
CREATE INDEX `lender_outcome_episodes_org_idx` ON `lender_outcome_episodes` (`org_id`,`store_id`,`closed_at`);--> statement-breakpoint
CREATE TABLE `lender_outcome_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`recent_days` integer NOT NULL,
	`baseline_days` integer NOT NULL,
	`alpha` real NOT NULL,
	`recovery_p` real NOT NULL,
	`min_recent_decisions` integer NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `store_feeds` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`feed` text NOT NULL,
	`received_at` text NOT NULL,
	`stale_since` text,
	PRIMARY KEY(`store_id`, `feed`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `store_feeds_org_idx` ON `store_feeds` (`org_id`,`store_id`);--> statement-breakpoint
CREATE INDEX `store_feeds_fresh_idx` ON `store_feeds` (`stale_since`,`received_at`);--> statement-breakpoint
ALTER TABLE `stores` ADD `inventory_stale_hours` integer DEFAULT 24 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `deals_stale_hours` integer DEFAULT 72 NOT NULL;--> statement-breakpoint
-- docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions: a 30-day recent window against the 180 days before it, one-sided Fisher exact test at 0.01 (DEFAULT, strict because every program of every store is tested nightly), recovery when p > 0.2 against the episode's own baseline, at least 5 recent decisions either way.
INSERT INTO lender_outcome_settings (id, recent_days, baseline_days, alpha, recovery_p, min_recent_decisions, source) VALUES
('default', 30, 180, 0.01, 0.2, 5, 'DEFAULT: Fisher exact test, one-sided (McDonald, Handbook of Biological Statistics, "Fisher''s exact test of independence"); 30-day window as a desk manager reads a month of submissions');
