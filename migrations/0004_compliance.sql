CREATE TABLE `compliance_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`key_id` text NOT NULL,
	`result` text NOT NULL,
	`triggered_rule` text,
	`score` real NOT NULL,
	`hold_score` real NOT NULL,
	`flag_score` real NOT NULL,
	`max_list_age_days` integer NOT NULL,
	`list_version` text,
	`list_loaded_at` text,
	`matched_ent_num` integer,
	`red_flags` text NOT NULL,
	`safeguards_flags` text NOT NULL,
	`person_hash` text NOT NULL,
	`ssn_dob_hash` text,
	`name_zip_hash` text,
	`name_hash` text NOT NULL,
	`dob_hash` text NOT NULL,
	`checked_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `compliance_checks_org_checked_idx` ON `compliance_checks` (`org_id`,`checked_at`);--> statement-breakpoint
CREATE INDEX `compliance_checks_org_ssn_dob_idx` ON `compliance_checks` (`org_id`,`ssn_dob_hash`,`name_hash`);--> statement-breakpoint
CREATE INDEX `compliance_checks_org_name_zip_idx` ON `compliance_checks` (`org_id`,`name_zip_hash`,`dob_hash`);--> statement-breakpoint
CREATE TABLE `compliance_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`hold_score` real NOT NULL,
	`flag_score` real NOT NULL,
	`max_list_age_days` integer NOT NULL,
	`minimum_age` integer NOT NULL,
	`maximum_age` integer NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sanctions_aliases` (
	`list_id` text NOT NULL,
	`alt_num` integer NOT NULL,
	`ent_num` integer NOT NULL,
	`alt_type` text NOT NULL,
	`name` text NOT NULL,
	PRIMARY KEY(`list_id`, `alt_num`)
);
--> statement-breakpoint
CREATE TABLE `sanctions_dobs` (
	`list_id` text NOT NULL,
	`ent_num` integer NOT NULL,
	`seq` integer NOT NULL,
	`text` text NOT NULL,
	`from_date` text NOT NULL,
	`to_date` text NOT NULL,
	`precision` text NOT NULL,
	`circa` integer NOT NULL,
	PRIMARY KEY(`list_id`, `ent_num`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `sanctions_entries` (
	`list_id` text NOT NULL,
	`ent_num` integer NOT NULL,
	`name` text NOT NULL,
	`sdn_type` text NOT NULL,
	`programs` text NOT NULL,
	PRIMARY KEY(`list_id`, `ent_num`)
);
--> statement-breakpoint
CREATE INDEX `sanctions_entries_list_type_idx` ON `sanctions_entries` (`list_id`,`sdn_type`);--> statement-breakpoint
CREATE TABLE `sanctions_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL,
	`source` text NOT NULL,
	`content_hash` text NOT NULL,
	`loaded_at` text NOT NULL,
	`entry_count` integer NOT NULL,
	`alias_count` integer NOT NULL,
	`dob_count` integer NOT NULL
);
