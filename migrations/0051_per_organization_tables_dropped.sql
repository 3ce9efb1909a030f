-- The last move, contracted (docs/scaling.md#the-last-move-d1s-per-organization-tables-dropped): D1's copies of the
-- per-organization tables go, with the move's tables, the settings columns of the store directory and the storage flag.
-- The previous release's Workers read the flag and those columns: this runs only once no Worker runs them. On a database
-- that holds organizations it is refused while migration 0050 is younger than 10 minutes (they came in one apply, before
-- this release was deployed; 0050 wrote when it ran): deploy this release, then apply the migrations again. The error names the constraint
-- `apply_0051_after_deploying_this_release`. The whole file is one transaction.
CREATE TABLE `deployed_before_dropping` (
	`ready` integer NOT NULL CONSTRAINT `apply_0051_after_deploying_this_release` CHECK (`ready` = 1)
);--> statement-breakpoint
INSERT INTO `deployed_before_dropping` (`ready`)
SELECT (julianday('now') - julianday(`at`)) * 1440 >= 10 OR NOT EXISTS (SELECT 1 FROM `organizations`) FROM `last_move_expanded_at`;--> statement-breakpoint
DROP TABLE `deployed_before_dropping`;--> statement-breakpoint
DROP TABLE `last_move_expanded_at`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `organizations_born_in_their_objects`;--> statement-breakpoint
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
