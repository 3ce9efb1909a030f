CREATE TABLE `inventory_units` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`store_id` text NOT NULL,
	`stock_number` text NOT NULL,
	`vin` text NOT NULL,
	`year` integer NOT NULL,
	`make` text NOT NULL,
	`model` text NOT NULL,
	`trim` text NOT NULL,
	`condition` text NOT NULL,
	`vehicle_type` text NOT NULL,
	`mileage` integer NOT NULL,
	`stocked_on` text NOT NULL,
	`cost` real NOT NULL,
	`asking_price` real NOT NULL,
	`status` text DEFAULT 'in_stock' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inventory_org_stock_idx` ON `inventory_units` (`org_id`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_status_stocked_stock_idx` ON `inventory_units` (`org_id`,`status`,`stocked_on`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_store_status_stocked_idx` ON `inventory_units` (`org_id`,`store_id`,`status`,`stocked_on`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_updated_idx` ON `inventory_units` (`org_id`,`updated_at`,`stock_number`);--> statement-breakpoint
CREATE INDEX `inventory_org_make_model_idx` ON `inventory_units` (`org_id`,lower("make"),lower("model"),`year`);--> statement-breakpoint
CREATE INDEX `inventory_org_vin_idx` ON `inventory_units` (`org_id`,`vin`);--> statement-breakpoint
CREATE TABLE `storage_owner` (
	`org_id` text PRIMARY KEY NOT NULL,
	`active` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stores` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL
);
