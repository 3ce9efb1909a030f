CREATE TABLE `event_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text,
	`event` text NOT NULL,
	`data` text NOT NULL,
	`occurred_at` text NOT NULL,
	`relayed_at` text
);
--> statement-breakpoint
CREATE INDEX `event_outbox_relayed_idx` ON `event_outbox` (`relayed_at`,`occurred_at`);