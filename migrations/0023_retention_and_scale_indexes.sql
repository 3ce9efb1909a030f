-- Issue 21 ("fix these first"): indexes that keep each request flat in the organization's size,
-- a monthly sales rollup so sales-summary reads only the rows it returns, and indexes the
-- retention job (src/jobs/purge-expired-records.ts, docs/retention.md) deletes by.

-- The briefing's open stips: only stips not yet cleared, so the read is the store's pipeline, not
-- every stip the organization ever had. The query repeats the literal condition to use it.
CREATE INDEX `deal_stips_org_open_idx` ON `deal_stips` (`org_id`,`deal_id`) WHERE `state` <> 'cleared';--> statement-breakpoint
-- The foreign key from deal_stips to deals is checked by deal_id alone (when a deal is deleted or
-- its id changes), which the (org_id, deal_id) index cannot serve: the check read every stip of
-- every organization, and EXPLAIN showed that scan in every upsert of deals.
CREATE INDEX `deal_stips_deal_idx` ON `deal_stips` (`deal_id`);--> statement-breakpoint
-- The briefing's pipeline deals of one store (status in the funding statuses).
CREATE INDEX `deals_org_store_status_idx` ON `deals` (`org_id`,`store_id`,`status`);--> statement-breakpoint
-- Lender calibration groups a store's decisions by program and score band: a covering index in
-- the group order answers from the index alone. It serves every lookup the old one did.
DROP INDEX `lender_decisions_store_idx`;--> statement-breakpoint
CREATE INDEX `lender_decisions_store_calibration_idx` ON `lender_decisions` (`org_id`,`store_id`,`program_id`,`score_band`,`decision`,`turnaround_hours`);--> statement-breakpoint
-- Appraisal comparables match make and model case-insensitively.
CREATE INDEX `inventory_org_make_model_idx` ON `inventory_units` (`org_id`,lower(`make`),lower(`model`),`year`);--> statement-breakpoint
CREATE INDEX `deals_org_make_model_idx` ON `deals` (`org_id`,lower(`make`),lower(`model`),`sold_on`);--> statement-breakpoint
-- A sold comparable's trim and mileage come from its unit, found by VIN.
CREATE INDEX `inventory_org_vin_idx` ON `inventory_units` (`org_id`,`vin`);--> statement-breakpoint

-- Sales per store and month, kept by triggers on every write to deals (ingestion, seeds,
-- scripts), so GET /api/v1/sales-summary reads its page of rows instead of grouping every deal of
-- the organization. A (store, month) row is recomputed whole from that month's deals of the store.
CREATE TABLE `sales_monthly` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`sale_month` text NOT NULL,
	`units` integer NOT NULL,
	`total_gross` real NOT NULL,
	`sold_updated_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `store_id`, `sale_month`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);--> statement-breakpoint
CREATE INDEX `sales_monthly_org_month_idx` ON `sales_monthly` (`org_id`,`sale_month`);--> statement-breakpoint
CREATE INDEX `sales_monthly_org_updated_idx` ON `sales_monthly` (`org_id`,`updated_at`);--> statement-breakpoint
INSERT INTO `sales_monthly` (`org_id`, `store_id`, `sale_month`, `units`, `total_gross`, `sold_updated_at`, `updated_at`)
SELECT `org_id`, `store_id`, substr(`sold_on`, 1, 7), coalesce(sum(`status` <> 'unwound'), 0),
	round(total(CASE WHEN `status` <> 'unwound' THEN `front_gross` + `back_gross` END), 2),
	max(CASE WHEN `status` <> 'unwound' THEN `updated_at` END), max(`updated_at`)
FROM `deals` GROUP BY `org_id`, `store_id`, substr(`sold_on`, 1, 7);--> statement-breakpoint
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
END;--> statement-breakpoint

-- Retention (docs/retention.md): each rule deletes by its age column, oldest first, in chunks.
CREATE INDEX `morning_briefings_day_idx` ON `morning_briefings` (`day`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
-- An event is deleted only once no delivery refers to it.
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `event_outbox_occurred_idx` ON `event_outbox` (`occurred_at`);--> statement-breakpoint
CREATE INDEX `aged_inventory_alerts_alerted_idx` ON `aged_inventory_alerts` (`alerted_at`);--> statement-breakpoint
CREATE INDEX `compliance_checks_checked_idx` ON `compliance_checks` (`checked_at`);
