-- updated_at as D1 keeps it (migrations/0020_feed_paging.sql): a new row takes its created_at, an
-- update that changes a column stamps the time of the change, so `updated_since` reads the same
-- here. Rows written before this version (none carry updated_at) take their created_at.
UPDATE `inventory_units` SET `updated_at` = `created_at` WHERE `updated_at` IS NULL;--> statement-breakpoint
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
END;
