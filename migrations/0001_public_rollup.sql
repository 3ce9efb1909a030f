CREATE TABLE `org_activity` (
	`org_id` text PRIMARY KEY NOT NULL,
	`last_call_day` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `org_activity_last_call_idx` ON `org_activity` (`last_call_day`);--> statement-breakpoint
CREATE TABLE `platform_rollup` (
	`id` integer PRIMARY KEY NOT NULL,
	`organizations_evaluated` integer DEFAULT 0 NOT NULL,
	`demo_sessions` integer DEFAULT 0 NOT NULL,
	`deals_through_ai` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- The running totals start from the usage recorded so far (the definitions of DESIGN.md §3).
INSERT INTO `org_activity` (`org_id`, `last_call_day`) SELECT `org_id`, max(`day`) FROM `key_usage_daily` GROUP BY `org_id`;--> statement-breakpoint
INSERT INTO `platform_rollup` (`id`, `organizations_evaluated`, `demo_sessions`, `deals_through_ai`) VALUES (
	1,
	(SELECT count(*) FROM `org_activity`),
	(SELECT count(*) FROM `key_usage_daily` u JOIN `organizations` o ON o.`id` = u.`org_id` WHERE o.`is_demo` = 1),
	(SELECT coalesce(sum(`deal_tool_calls`), 0) FROM `key_usage_daily`)
);
