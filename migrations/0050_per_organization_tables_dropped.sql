-- Every organization's own tables live in its storage object (docs/scaling.md#the-last-move-d1s-per-organization-tables-dropped):
-- D1's copies go, with the move's tables, the settings columns of the store directory and the storage flag.
-- First, a refusal: while any organization is not in its object, this migration fails here, before it drops anything
-- (the whole file is one transaction). The release before this one moves them: `npm run storage -- move --all --remote`.
-- The error names the constraint `every_organization_in_its_object`.
CREATE TABLE `every_organization_in_its_object` (
	`storage` text NOT NULL CONSTRAINT `every_organization_in_its_object` CHECK (`storage` = 'object')
);--> statement-breakpoint
INSERT INTO `every_organization_in_its_object` (`storage`) SELECT `storage` FROM `organizations`;--> statement-breakpoint
DROP TABLE `every_organization_in_its_object`;--> statement-breakpoint
-- A move laid capture triggers on the directory's stores (the moved tables' go with them), and the alert totals one:
-- they name tables dropped below, and SQLite refuses to drop a column of a table whose triggers do not parse.
DROP TRIGGER IF EXISTS `stores_move_capture_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `stores_move_capture_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `stores_move_capture_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `inventory_alert_totals_on_store_update`;--> statement-breakpoint
-- Only the defaults row stays (`*`): each organization's own thresholds are in its object.
DELETE FROM `compliance_settings` WHERE `org_id` <> '*';--> statement-breakpoint
DROP TABLE `compliance_checks`;--> statement-breakpoint
DROP TABLE `lender_decisions`;--> statement-breakpoint
DROP TABLE `store_lender_panel`;--> statement-breakpoint
DROP TABLE `aged_inventory_alerts`;--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
DROP TABLE `webhook_deliveries`;--> statement-breakpoint
DROP TABLE `webhook_endpoints`;--> statement-breakpoint
DROP TABLE `org_storage_changes`;--> statement-breakpoint
DROP TABLE `org_storage_moves`;--> statement-breakpoint
DROP TABLE `deal_stips`;--> statement-breakpoint
DROP TABLE `deals`;--> statement-breakpoint
DROP TABLE `inventory_units`;--> statement-breakpoint
DROP TABLE `sales_monthly`;--> statement-breakpoint
DROP TABLE `inventory_alert_totals`;--> statement-breakpoint
DROP TABLE `morning_briefings`;--> statement-breakpoint
DROP TABLE `unit_market_values`;--> statement-breakpoint
DROP TABLE `settings_audit`;--> statement-breakpoint
DROP TABLE `lender_outcome_episodes`;--> statement-breakpoint
DROP TABLE `store_feeds`;--> statement-breakpoint
DROP INDEX `organizations_storage_moved_idx`;--> statement-breakpoint
ALTER TABLE `organizations` DROP COLUMN `storage`;--> statement-breakpoint
ALTER TABLE `organizations` DROP COLUMN `storage_moved_at`;--> statement-breakpoint
ALTER TABLE `organizations` DROP COLUMN `d1_copy_purged_at`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `pack_new`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `pack_used`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `holding_cost_per_day`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `holding_high_value_cost`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `holding_high_value_daily_pct`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `floorplan_apr_new`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `floorplan_apr_used`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `floorplan_assistance_new_per_day`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `overhead_new_per_day`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `wholesale_ratio_pct`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `auction_fees`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `recon_car`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `recon_truck`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `recon_suv`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `recon_van`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `aged_threshold_days`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `aged_threshold_days_new`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `target_front_gross_used_pct`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `target_front_gross_used_min`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `inventory_stale_hours`;--> statement-breakpoint
ALTER TABLE `stores` DROP COLUMN `deals_stale_hours`;