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
	`checked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `compliance_checks_org_checked_idx` ON `compliance_checks` (`org_id`,`checked_at`);--> statement-breakpoint
CREATE INDEX `compliance_checks_checked_idx` ON `compliance_checks` (`checked_at`);--> statement-breakpoint
CREATE INDEX `compliance_checks_org_ssn_dob_idx` ON `compliance_checks` (`org_id`,`ssn_dob_hash`,`name_hash`);--> statement-breakpoint
CREATE INDEX `compliance_checks_org_name_zip_idx` ON `compliance_checks` (`org_id`,`name_zip_hash`,`dob_hash`);