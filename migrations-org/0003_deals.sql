CREATE TABLE `deal_stips` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`deal_id` text NOT NULL,
	`stip` text NOT NULL,
	`state` text NOT NULL,
	`requested_on` text NOT NULL,
	`cleared_on` text,
	FOREIGN KEY (`deal_id`) REFERENCES `deals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `deal_stips_org_deal_idx` ON `deal_stips` (`org_id`,`deal_id`);--> statement-breakpoint
CREATE INDEX `deal_stips_deal_idx` ON `deal_stips` (`deal_id`);--> statement-breakpoint
CREATE INDEX `deal_stips_org_open_idx` ON `deal_stips` (`org_id`,`deal_id`) WHERE "deal_stips"."state" <> 'cleared';--> statement-breakpoint
CREATE TABLE `deals` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`deal_number` text NOT NULL,
	`sold_on` text NOT NULL,
	`submitted_on` text,
	`funded_on` text,
	`status` text NOT NULL,
	`vin` text NOT NULL,
	`year` integer NOT NULL,
	`make` text NOT NULL,
	`model` text NOT NULL,
	`condition` text NOT NULL,
	`vehicle_type` text NOT NULL,
	`selling_price` real NOT NULL,
	`lender` text,
	`beacon` integer,
	`amount_financed` real,
	`front_gross` real NOT NULL,
	`back_gross` real NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deals_org_number_idx` ON `deals` (`org_id`,`deal_number`);--> statement-breakpoint
CREATE INDEX `deals_org_sold_idx` ON `deals` (`org_id`,`sold_on`);--> statement-breakpoint
CREATE INDEX `deals_org_status_idx` ON `deals` (`org_id`,`status`);--> statement-breakpoint
CREATE INDEX `deals_org_store_sold_idx` ON `deals` (`org_id`,`store_id`,`sold_on`);--> statement-breakpoint
CREATE INDEX `deals_org_updated_idx` ON `deals` (`org_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `deals_org_store_status_idx` ON `deals` (`org_id`,`store_id`,`status`);--> statement-breakpoint
CREATE INDEX `deals_org_make_model_idx` ON `deals` (`org_id`,lower("make"),lower("model"),`sold_on`);--> statement-breakpoint
CREATE TABLE `sales_monthly` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`sale_month` text NOT NULL,
	`units` integer NOT NULL,
	`total_gross` real NOT NULL,
	`sold_updated_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `store_id`, `sale_month`)
);
--> statement-breakpoint
CREATE INDEX `sales_monthly_org_month_idx` ON `sales_monthly` (`org_id`,`sale_month`);--> statement-breakpoint
CREATE INDEX `sales_monthly_org_updated_idx` ON `sales_monthly` (`org_id`,`updated_at`);--> statement-breakpoint
-- The triggers D1 keeps on deals, as they are there: updated_at (migrations/0020_feed_paging.sql) and
-- the monthly sales rollup (migrations/0023_retention_and_scale_indexes.sql), so the sales summary
-- and `updated_since` read the same here.
CREATE TRIGGER `deals_updated_at_on_insert` AFTER INSERT ON `deals`
FOR EACH ROW WHEN NEW.`updated_at` IS NULL
BEGIN
	UPDATE `deals` SET `updated_at` = NEW.`created_at` WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `deals_updated_at_on_change` AFTER UPDATE ON `deals`
FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` AND (
	NEW.`store_id` IS NOT OLD.`store_id` OR NEW.`deal_number` IS NOT OLD.`deal_number` OR NEW.`sold_on` IS NOT OLD.`sold_on`
	OR NEW.`submitted_on` IS NOT OLD.`submitted_on` OR NEW.`funded_on` IS NOT OLD.`funded_on` OR NEW.`status` IS NOT OLD.`status`
	OR NEW.`vin` IS NOT OLD.`vin` OR NEW.`year` IS NOT OLD.`year` OR NEW.`make` IS NOT OLD.`make` OR NEW.`model` IS NOT OLD.`model`
	OR NEW.`condition` IS NOT OLD.`condition` OR NEW.`vehicle_type` IS NOT OLD.`vehicle_type` OR NEW.`selling_price` IS NOT OLD.`selling_price`
	OR NEW.`lender` IS NOT OLD.`lender` OR NEW.`beacon` IS NOT OLD.`beacon` OR NEW.`amount_financed` IS NOT OLD.`amount_financed`
	OR NEW.`front_gross` IS NOT OLD.`front_gross` OR NEW.`back_gross` IS NOT OLD.`back_gross`
)
BEGIN
	UPDATE `deals` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
-- Each trigger recomputes one (store, month) row whole, from that month's deals of the store (by
-- deals_org_store_sold_idx). 0020's triggers stamp updated_at with an UPDATE of their own, so a
-- row is recomputed after the stamp, when it holds the deal's final values.
-- A new deal whose writer set updated_at (otherwise 0020's stamp, an update, recomputes it).
CREATE TRIGGER `sales_monthly_on_deal_insert` AFTER INSERT ON `deals`
FOR EACH ROW WHEN NEW.`updated_at` IS NOT NULL
BEGIN
	DELETE FROM `sales_monthly` WHERE `org_id` = NEW.`org_id` AND `store_id` = NEW.`store_id` AND `sale_month` = substr(NEW.`sold_on`, 1, 7);
	INSERT INTO `sales_monthly` (`org_id`, `store_id`, `sale_month`, `units`, `total_gross`, `sold_updated_at`, `updated_at`)
	SELECT `org_id`, `store_id`, substr(NEW.`sold_on`, 1, 7), coalesce(sum(`status` <> 'unwound'), 0),
		round(total(CASE WHEN `status` <> 'unwound' THEN `front_gross` + `back_gross` END), 2),
		max(CASE WHEN `status` <> 'unwound' THEN `updated_at` END), max(`updated_at`)
	FROM `deals` WHERE `org_id` = NEW.`org_id` AND `store_id` = NEW.`store_id`
		AND `sold_on` >= substr(NEW.`sold_on`, 1, 7) AND `sold_on` < substr(NEW.`sold_on`, 1, 7) || '-99'
	GROUP BY `org_id`, `store_id` HAVING max(`updated_at`) IS NOT NULL;
END;--> statement-breakpoint
-- A changed deal: its (new) month. Also on the change itself, not only on its stamp: a stamp in
-- the same millisecond as the previous one changes nothing 0020 could see.
CREATE TRIGGER `sales_monthly_on_deal_update` AFTER UPDATE ON `deals`
FOR EACH ROW WHEN NEW.`updated_at` IS NOT OLD.`updated_at` OR NEW.`store_id` IS NOT OLD.`store_id` OR NEW.`sold_on` IS NOT OLD.`sold_on`
	OR NEW.`status` IS NOT OLD.`status` OR NEW.`front_gross` IS NOT OLD.`front_gross` OR NEW.`back_gross` IS NOT OLD.`back_gross`
BEGIN
	DELETE FROM `sales_monthly` WHERE `org_id` = NEW.`org_id` AND `store_id` = NEW.`store_id` AND `sale_month` = substr(NEW.`sold_on`, 1, 7);
	INSERT INTO `sales_monthly` (`org_id`, `store_id`, `sale_month`, `units`, `total_gross`, `sold_updated_at`, `updated_at`)
	SELECT `org_id`, `store_id`, substr(NEW.`sold_on`, 1, 7), coalesce(sum(`status` <> 'unwound'), 0),
		round(total(CASE WHEN `status` <> 'unwound' THEN `front_gross` + `back_gross` END), 2),
		max(CASE WHEN `status` <> 'unwound' THEN `updated_at` END), max(`updated_at`)
	FROM `deals` WHERE `org_id` = NEW.`org_id` AND `store_id` = NEW.`store_id`
		AND `sold_on` >= substr(NEW.`sold_on`, 1, 7) AND `sold_on` < substr(NEW.`sold_on`, 1, 7) || '-99'
	GROUP BY `org_id`, `store_id` HAVING max(`updated_at`) IS NOT NULL;
END;--> statement-breakpoint
-- A deal moved to another store or month leaves its old row.
CREATE TRIGGER `sales_monthly_on_deal_move` AFTER UPDATE ON `deals`
FOR EACH ROW WHEN NEW.`store_id` IS NOT OLD.`store_id` OR substr(NEW.`sold_on`, 1, 7) IS NOT substr(OLD.`sold_on`, 1, 7)
BEGIN
	DELETE FROM `sales_monthly` WHERE `org_id` = OLD.`org_id` AND `store_id` = OLD.`store_id` AND `sale_month` = substr(OLD.`sold_on`, 1, 7);
	INSERT INTO `sales_monthly` (`org_id`, `store_id`, `sale_month`, `units`, `total_gross`, `sold_updated_at`, `updated_at`)
	SELECT `org_id`, `store_id`, substr(OLD.`sold_on`, 1, 7), coalesce(sum(`status` <> 'unwound'), 0),
		round(total(CASE WHEN `status` <> 'unwound' THEN `front_gross` + `back_gross` END), 2),
		max(CASE WHEN `status` <> 'unwound' THEN `updated_at` END), max(`updated_at`)
	FROM `deals` WHERE `org_id` = OLD.`org_id` AND `store_id` = OLD.`store_id`
		AND `sold_on` >= substr(OLD.`sold_on`, 1, 7) AND `sold_on` < substr(OLD.`sold_on`, 1, 7) || '-99'
	GROUP BY `org_id`, `store_id` HAVING max(`updated_at`) IS NOT NULL;
END;--> statement-breakpoint
CREATE TRIGGER `sales_monthly_on_deal_delete` AFTER DELETE ON `deals`
FOR EACH ROW
BEGIN
	DELETE FROM `sales_monthly` WHERE `org_id` = OLD.`org_id` AND `store_id` = OLD.`store_id` AND `sale_month` = substr(OLD.`sold_on`, 1, 7);
	INSERT INTO `sales_monthly` (`org_id`, `store_id`, `sale_month`, `units`, `total_gross`, `sold_updated_at`, `updated_at`)
	SELECT `org_id`, `store_id`, substr(OLD.`sold_on`, 1, 7), coalesce(sum(`status` <> 'unwound'), 0),
		round(total(CASE WHEN `status` <> 'unwound' THEN `front_gross` + `back_gross` END), 2),
		max(CASE WHEN `status` <> 'unwound' THEN `updated_at` END), max(`updated_at`)
	FROM `deals` WHERE `org_id` = OLD.`org_id` AND `store_id` = OLD.`store_id`
		AND `sold_on` >= substr(OLD.`sold_on`, 1, 7) AND `sold_on` < substr(OLD.`sold_on`, 1, 7) || '-99'
	GROUP BY `org_id`, `store_id` HAVING max(`updated_at`) IS NOT NULL;
END;
