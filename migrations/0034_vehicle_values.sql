CREATE TABLE `appraisal_condition_grades` (
	`org_id` text,
	`grade` text NOT NULL,
	`factor_pct` real NOT NULL,
	`source` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `appraisal_condition_grades_org_idx` ON `appraisal_condition_grades` (`org_id`);--> statement-breakpoint
ALTER TABLE `appraisal_price_classes` ADD `fallback_body_class` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `appraisal_price_classes` ADD `fallback_fuel_type` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `appraisal_settings` ADD `outlier_retention_ratio` real DEFAULT 0.5 NOT NULL;--> statement-breakpoint
-- Issue 33 values (rules and sources: docs/domain/appraisal.md). Each class's loss scale lands the curve's five-year loss (55%) on iSeeCars' 2025 measured loss: all vehicles 45.6%, EVs 58.8%, hybrids 40.7%, trucks 40.4% (iseecars.com/cars-that-hold-their-value-study, 2025 edition).
UPDATE appraisal_retention_classes SET loss_scale = 0.829 WHERE org_id IS NULL AND retention_class = 'standard';--> statement-breakpoint
UPDATE appraisal_retention_classes SET loss_scale = 1.069 WHERE org_id IS NULL AND retention_class = 'ev';--> statement-breakpoint
UPDATE appraisal_retention_classes SET loss_scale = 0.74 WHERE org_id IS NULL AND retention_class = 'hybrid';--> statement-breakpoint
UPDATE appraisal_retention_classes SET loss_scale = 0.735 WHERE org_id IS NULL AND retention_class = 'truck';--> statement-breakpoint
-- New prices the class table had far under the vehicle: a 2020 Escalade Luxury Sport 4WD listed at $85,090 (KBB via jalopnik.com, 2025); a 2022 F-150 Lightning XLT at $52,974 (jdpower.com, 2021).
INSERT INTO appraisal_price_classes (org_id, class_key, new_price, retention_class) VALUES (NULL, 'fullsize_luxury_suv', 85090, 'standard'), (NULL, 'electric_truck', 52974, 'ev');--> statement-breakpoint
UPDATE appraisal_model_classes SET class_key = 'fullsize_luxury_suv' WHERE org_id IS NULL AND make IN ('Cadillac', 'Lincoln') AND model IN ('Escalade', 'Escalade ESV', 'Navigator');--> statement-breakpoint
INSERT INTO appraisal_model_classes (org_id, make, model, class_key, body_class, fuel_type) VALUES (NULL, 'Ford', 'F-150 Lightning', 'electric_truck', 'pickup', 'electric'), (NULL, 'Rivian', 'R1T', 'electric_truck', 'pickup', 'electric'), (NULL, 'Chevrolet', 'Silverado EV', 'electric_truck', 'pickup', 'electric'), (NULL, 'Lincoln', 'Navigator L', 'fullsize_luxury_suv', 'suv', 'gas');--> statement-breakpoint
-- A decoded vehicle missing from the model table is priced by its body and fuel (a make's fallback row wins only where it names the same body).
UPDATE appraisal_price_classes SET fallback_body_class = 'hatchback' WHERE org_id IS NULL AND class_key = 'compact_car';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'sedan' WHERE org_id IS NULL AND class_key = 'midsize_car';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'coupe' WHERE org_id IS NULL AND class_key = 'sports_car';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'suv' WHERE org_id IS NULL AND class_key = 'midsize_suv';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'pickup' WHERE org_id IS NULL AND class_key = 'fullsize_truck';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'pickup', fallback_fuel_type = 'diesel' WHERE org_id IS NULL AND class_key = 'heavy_duty_truck';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'minivan' WHERE org_id IS NULL AND class_key = 'minivan';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'van' WHERE org_id IS NULL AND class_key = 'fullsize_van';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_fuel_type = 'electric' WHERE org_id IS NULL AND class_key = 'electric_car';--> statement-breakpoint
UPDATE appraisal_price_classes SET fallback_body_class = 'pickup', fallback_fuel_type = 'electric' WHERE org_id IS NULL AND class_key = 'electric_truck';--> statement-breakpoint
UPDATE appraisal_model_classes SET body_class = 'sedan' WHERE org_id IS NULL AND model = '*' AND class_key = 'luxury_car';--> statement-breakpoint
-- The latest study outside the 2021–2022 spike that names the model (iSeeCars 2023, via archyde.com): the 911 coupe lost 9.3% and the Tacoma 20.4% in five years against 38.8% for all vehicles.
UPDATE appraisal_model_retention SET pct_value_lost = 9.3, overall_pct_value_lost = 38.8, study_year = 2023, source = 'https://archyde.com/what-are-the-25-cars-that-hold-their-value-best-and-the-25-worst', quote = 'Top 10 Vehicles with the Lowest Depreciation in 5 Years ... 1 | Porsche 911 (coupe) | 9.3% | $18,094 ... In general | 38.8%' WHERE org_id IS NULL AND make = 'Porsche' AND model = '911';--> statement-breakpoint
UPDATE appraisal_model_retention SET pct_value_lost = 20.4, overall_pct_value_lost = 38.8, study_year = 2023, source = 'https://archyde.com/what-are-the-25-cars-that-hold-their-value-best-and-the-25-worst', quote = 'Top 10 Vehicles with the Lowest Depreciation in 5 Years ... 3 | Toyota Tacoma | 20.4% | $8,359 ... In general | 38.8%' WHERE org_id IS NULL AND make = 'Toyota' AND model = 'Tacoma';--> statement-breakpoint
-- Auction condition grades (docs/domain/gross.md#expected-auction-proceeds): DEFAULT, no published grade factors found; excellent is no higher than clean, the clean wholesale ratio being the ceiling.
INSERT INTO appraisal_condition_grades (org_id, grade, factor_pct, source) VALUES (NULL, 'excellent', 100, 'DEFAULT: the clean wholesale ratio is the ceiling'), (NULL, 'good', 100, 'DEFAULT: a clean unit'), (NULL, 'fair', 92, 'DEFAULT: fair −8%'), (NULL, 'poor', 82, 'DEFAULT: poor −18%');
