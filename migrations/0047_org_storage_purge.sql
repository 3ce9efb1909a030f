ALTER TABLE `organizations` ADD `storage_moved_at` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `d1_copy_purged_at` text;--> statement-breakpoint
CREATE INDEX `organizations_storage_moved_idx` ON `organizations` (`storage_moved_at`);