-- Feeds that scale with a DMS (issue 16 §5, docs/feeds.md): `updated_since` needs to know when a
-- unit or a deal last changed, and paged reads need indexes that end in the page order.
--
-- updated_at: ISO-8601 UTC like created_at. SQLite cannot add a column whose default is an
-- expression, so it is nullable and triggers keep it: a new row takes its created_at, and an
-- update that changes any column the row carries stamps the time of the change. Triggers cover
-- every writer (ingestion, seeds, scripts); an upsert that rewrites the same values changes nothing.
ALTER TABLE `inventory_units` ADD `updated_at` text;--> statement-breakpoint
ALTER TABLE `deals` ADD `updated_at` text;--> statement-breakpoint
UPDATE `inventory_units` SET `updated_at` = `created_at` WHERE `updated_at` IS NULL;--> statement-breakpoint
UPDATE `deals` SET `updated_at` = `created_at` WHERE `updated_at` IS NULL;--> statement-breakpoint
CREATE TRIGGER `inventory_units_updated_at_on_insert` AFTER INSERT ON `inventory_units`
FOR EACH ROW WHEN NEW.`updated_at` IS NULL
BEGIN
	UPDATE `inventory_units` SET `updated_at` = NEW.`created_at` WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `inventory_units_updated_at_on_change` AFTER UPDATE ON `inventory_units`
FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` AND (
	NEW.`store_id` IS NOT OLD.`store_id` OR NEW.`stock_number` IS NOT OLD.`stock_number` OR NEW.`vin` IS NOT OLD.`vin`
	OR NEW.`year` IS NOT OLD.`year` OR NEW.`make` IS NOT OLD.`make` OR NEW.`model` IS NOT OLD.`model` OR NEW.`trim` IS NOT OLD.`trim`
	OR NEW.`condition` IS NOT OLD.`condition` OR NEW.`vehicle_type` IS NOT OLD.`vehicle_type` OR NEW.`mileage` IS NOT OLD.`mileage`
	OR NEW.`stocked_on` IS NOT OLD.`stocked_on` OR NEW.`cost` IS NOT OLD.`cost` OR NEW.`asking_price` IS NOT OLD.`asking_price`
	OR NEW.`status` IS NOT OLD.`status`
)
BEGIN
	UPDATE `inventory_units` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
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
-- The inventory page order is (stocked_on, stock_number); the old index stopped at stocked_on, so
-- a page past the first sorted the organization's units. This one serves the same lookups.
DROP INDEX `inventory_org_status_stocked_idx`;--> statement-breakpoint
CREATE INDEX `inventory_org_status_stocked_stock_idx` ON `inventory_units` (`org_id`,`status`,`stocked_on`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_store_status_stocked_idx` ON `inventory_units` (`org_id`,`store_id`,`status`,`stocked_on`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_updated_idx` ON `inventory_units` (`org_id`,`updated_at`,`stock_number`);--> statement-breakpoint
CREATE INDEX `deals_org_store_sold_idx` ON `deals` (`org_id`,`store_id`,`sold_on`);--> statement-breakpoint
CREATE INDEX `deals_org_updated_idx` ON `deals` (`org_id`,`updated_at`);
