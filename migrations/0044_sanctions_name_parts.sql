CREATE TABLE `sanctions_name_parts` (
	`list_id` text NOT NULL,
	`seq` integer NOT NULL,
	`parts` text NOT NULL,
	PRIMARY KEY(`list_id`, `seq`)
);
--> statement-breakpoint
DROP TABLE `sanctions_name_groups`;--> statement-breakpoint
ALTER TABLE `sanctions_lists` DROP COLUMN `name_groups`;