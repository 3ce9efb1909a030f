CREATE TABLE `org_storage_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_id` text NOT NULL,
	`table_name` text NOT NULL,
	`row_key` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `org_storage_changes_org_idx` ON `org_storage_changes` (`org_id`,`seq`);--> statement-breakpoint
CREATE TABLE `org_storage_moves` (
	`org_id` text PRIMARY KEY NOT NULL,
	`started_at` text NOT NULL,
	`step` text NOT NULL,
	`after` text,
	`rounds` integer DEFAULT 0 NOT NULL,
	`paused_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
