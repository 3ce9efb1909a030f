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
	`turnaround_hours` real
);
--> statement-breakpoint
CREATE INDEX `lender_decisions_store_calibration_idx` ON `lender_decisions` (`org_id`,`store_id`,`program_id`,`score_band`,`decision`,`turnaround_hours`);--> statement-breakpoint
CREATE TABLE `lender_outcome_episodes` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`program_id` text NOT NULL,
	`opened_at` text NOT NULL,
	`figures` text NOT NULL,
	`closed_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lender_outcome_episodes_open_idx` ON `lender_outcome_episodes` (`store_id`,`program_id`) WHERE "lender_outcome_episodes"."closed_at" IS NULL;--> statement-breakpoint
CREATE INDEX `lender_outcome_episodes_org_idx` ON `lender_outcome_episodes` (`org_id`,`store_id`,`closed_at`);