-- The published figures' clock (docs/domain/appraisal.md#study-age): iSeeCars' "five-year-old" is a model year sold five
-- calendar years on ("iSeeCars.com analyzed more than 8.2 million car sales to identify vehicles from the 2016 model year with
-- the lowest and highest loss in value from MSRP after five years ... the average five-year-old vehicle depreciated by 40.1
-- percent in 2021", iSeeCars via theautochannel.com 2021), which this engine counts as 5.5 years old (current year − model
-- year + 0.5). The figures were read half a year early: a 2020 in 2026 was priced as a six-year-old, not as the study's five plus one.
ALTER TABLE `appraisal_settings` ADD `study_age_offset_years` real DEFAULT 0.5 NOT NULL;--> statement-breakpoint
ALTER TABLE `appraisal_model_classes` ADD `model_year_from` integer;--> statement-breakpoint
ALTER TABLE `appraisal_model_classes` ADD `model_year_to` integer;--> statement-breakpoint
-- A model year whose new price stood far above today's (docs/domain/appraisal.md#depreciation-model): iSeeCars reads a used
-- price against the original MSRP of the same model year, and Tesla's 2022 prices were 20–30% over the electric_car class's
-- $45,000 and over its own later prices. The lowest published 2022 price of each, so the offer never rests on the peak:
-- Model Y Long Range "The Tesla Model Y will now set you back $58,990 for the Long Range trim (before options)" (carbuzz.com,
-- November 2021, for the 2022 deliveries; later "The Long Range went from $62,990 to $65,990", jalopnik.com 2022); Model 3 Long
-- Range "The Model 3 Long Range ... went from $54,490 to $57,990" (jalopnik.com 2022). 2023 prices fell ("Tesla has dropped that
-- price", jalopnik via mvmblog.ir 2023), so these rows price the 2022 model year only.
INSERT INTO appraisal_price_classes (org_id, class_key, new_price, retention_class) VALUES (NULL, 'electric_suv_model_y_lr_2022', 58990, 'ev'), (NULL, 'electric_car_model_3_lr_2022', 54490, 'ev');--> statement-breakpoint
INSERT INTO appraisal_model_classes (org_id, make, model, class_key, body_class, fuel_type, model_year_from, model_year_to) VALUES (NULL, 'Tesla', 'Model Y Long Range', 'electric_suv_model_y_lr_2022', 'suv', 'electric', 2022, 2022), (NULL, 'Tesla', 'Model 3 Long Range', 'electric_car_model_3_lr_2022', 'sedan', 'electric', 2022, 2022);
