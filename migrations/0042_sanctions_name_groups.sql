CREATE TABLE `sanctions_name_groups` (
	`list_id` text NOT NULL,
	`initial_group` text NOT NULL,
	`ent_num` integer NOT NULL,
	PRIMARY KEY(`list_id`, `initial_group`, `ent_num`)
);
--> statement-breakpoint
ALTER TABLE `sanctions_lists` ADD `name_groups` integer DEFAULT false NOT NULL;