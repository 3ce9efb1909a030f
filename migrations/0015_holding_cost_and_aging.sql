-- One holding-cost function for every engine (docs/domain/gross.md#holding-cost): a store's all-in
-- daily figure is holding_cost_per_day (default $35) for a unit costing under
-- holding_high_value_cost ($30,000), and that plus holding_high_value_daily_pct (0.10%) of the cost
-- per day at or above it. Each store row carries its own figures (the store-specific override).
ALTER TABLE `stores` ADD `holding_high_value_cost` real DEFAULT 30000 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `holding_high_value_daily_pct` real DEFAULT 0.1 NOT NULL;--> statement-breakpoint
-- New units age against ~66 days of national new supply, so they are aged at 90 days by default
-- (docs/domain/reports.md#new-units-age-differently); aged_threshold_days stays the used threshold.
ALTER TABLE `stores` ADD `aged_threshold_days_new` integer DEFAULT 90 NOT NULL;--> statement-breakpoint
-- Seeded demo readings and feed entries say so (docs/domain/reports.md#demo-market-data).
ALTER TABLE `market_feed_entries` ADD `is_demo` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `market_observations` ADD `is_demo` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Appraisal reads the store's holding cost now (one function for every engine); its own copy goes.
ALTER TABLE `appraisal_settings` DROP COLUMN `holding_high_value_threshold`;--> statement-breakpoint
ALTER TABLE `appraisal_settings` DROP COLUMN `holding_high_value_daily_pct`;
