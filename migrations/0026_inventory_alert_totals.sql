-- The inventory-alerts report's whole-organization totals (total_aged_units, total_aged_exposure_usd),
-- one row per store, so a page of the report reads one row per store instead of every unit of the
-- organization (docs/reports.md#totals). A row holds the totals for `day` and the day after (days on
-- lot move at midnight, so a row computed on a day is still exact on the next). The Worker computes
-- them with the alert engine; these triggers only invalidate: any change to what the totals are made
-- of (a unit in stock, its store, condition, vehicle type, stocking date or cost, or the store's
-- recon, floor-plan APR or aged thresholds) bumps `generation` and clears `day`. A writer stores
-- totals only if `generation` is still the one it read with the units, so totals computed from data
-- that changed meanwhile are never stored. A row a trigger creates starts at generation 1 and one the
-- Worker creates at 0, so a Worker that read no row cannot overwrite one a trigger created since.
CREATE TABLE `inventory_alert_totals` (
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`day` text,
	`aged_units` integer,
	`aged_exposure_usd` real,
	`next_aged_units` integer,
	`next_aged_exposure_usd` real,
	PRIMARY KEY(`org_id`, `store_id`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);--> statement-breakpoint
CREATE TRIGGER `inventory_alert_totals_on_unit_insert` AFTER INSERT ON `inventory_units`
FOR EACH ROW WHEN NEW.`status` = 'in_stock'
BEGIN
	INSERT INTO `inventory_alert_totals` (`org_id`, `store_id`, `generation`) VALUES (NEW.`org_id`, NEW.`store_id`, 1)
	ON CONFLICT (`org_id`, `store_id`) DO UPDATE SET `generation` = `generation` + 1, `day` = NULL;
END;--> statement-breakpoint
CREATE TRIGGER `inventory_alert_totals_on_unit_update` AFTER UPDATE ON `inventory_units`
FOR EACH ROW WHEN NEW.`status` IS NOT OLD.`status` OR NEW.`store_id` IS NOT OLD.`store_id` OR NEW.`condition` IS NOT OLD.`condition`
	OR NEW.`vehicle_type` IS NOT OLD.`vehicle_type` OR NEW.`stocked_on` IS NOT OLD.`stocked_on` OR NEW.`cost` IS NOT OLD.`cost`
BEGIN
	INSERT INTO `inventory_alert_totals` (`org_id`, `store_id`, `generation`) VALUES (NEW.`org_id`, NEW.`store_id`, 1)
	ON CONFLICT (`org_id`, `store_id`) DO UPDATE SET `generation` = `generation` + 1, `day` = NULL;
	INSERT INTO `inventory_alert_totals` (`org_id`, `store_id`, `generation`) VALUES (OLD.`org_id`, OLD.`store_id`, 1)
	ON CONFLICT (`org_id`, `store_id`) DO UPDATE SET `generation` = `generation` + 1, `day` = NULL;
END;--> statement-breakpoint
-- No row to invalidate means nothing was stored; and a purge that deletes this table first leaves none behind.
CREATE TRIGGER `inventory_alert_totals_on_unit_delete` AFTER DELETE ON `inventory_units`
FOR EACH ROW WHEN OLD.`status` = 'in_stock'
BEGIN
	UPDATE `inventory_alert_totals` SET `generation` = `generation` + 1, `day` = NULL WHERE `org_id` = OLD.`org_id` AND `store_id` = OLD.`store_id`;
END;--> statement-breakpoint
CREATE TRIGGER `inventory_alert_totals_on_store_update` AFTER UPDATE ON `stores`
FOR EACH ROW WHEN NEW.`recon_car` IS NOT OLD.`recon_car` OR NEW.`recon_truck` IS NOT OLD.`recon_truck` OR NEW.`recon_suv` IS NOT OLD.`recon_suv`
	OR NEW.`recon_van` IS NOT OLD.`recon_van` OR NEW.`floorplan_apr_new` IS NOT OLD.`floorplan_apr_new` OR NEW.`floorplan_apr_used` IS NOT OLD.`floorplan_apr_used`
	OR NEW.`aged_threshold_days` IS NOT OLD.`aged_threshold_days` OR NEW.`aged_threshold_days_new` IS NOT OLD.`aged_threshold_days_new`
BEGIN
	INSERT INTO `inventory_alert_totals` (`org_id`, `store_id`, `generation`) VALUES (NEW.`org_id`, NEW.`id`, 1)
	ON CONFLICT (`org_id`, `store_id`) DO UPDATE SET `generation` = `generation` + 1, `day` = NULL;
END;
