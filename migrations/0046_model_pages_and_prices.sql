-- Per-model figures from iSeeCars' model pages, iseecars.com/car/<make>-<model>/resale-value (docs/domain/appraisal.md#model-retention).
-- A page is undated and self-consistent: it gives the model's 3-, 5-, 7- and 10-year losses and, beside them, all vehicles'
-- five-year loss, so a row reads the model against the all-vehicle figure of the same page. That figure dates the page: 45.5% is
-- the 2025 edition's 45.6% ("The industry average for all vehicles is 45.6%", iseecars.com/cars-that-hold-their-value-study), so
-- these pages are 2025 snapshots. A 7- or 10-year figure is used only for a model sold that long before the snapshot (the Q7
-- since the 2007 model year, the RAV4 since 1996); a young model's figures are projections and are not shipped (the rules page
-- lists those read and left out: the Mustang Mach-E's and the Kia K5's).
INSERT INTO appraisal_model_retention (org_id, make, model, age_years, pct_value_lost, overall_pct_value_lost, study_year, publisher, source, quote) VALUES (NULL, 'Audi', 'Q7', 5, 60.9, 45.5, 2025, 'iSeeCars', 'https://www.iseecars.com/car/audi-q7/resale-value', 'A new Audi Q7 depreciates 60.9 percent after five years, resulting in a resale value of $23,685. In comparison, the luxury midsize SUV category ... loses 54.9 percent ... for all vehicles is 45.5 percent.'), (NULL, 'Audi', 'Q7', 7, 73.8, 45.5, 2025, 'iSeeCars', 'https://www.iseecars.com/car/audi-q7/resale-value', 'Its 7-year depreciation is 73.8 percent and 10-year depreciation is 82 percent.'), (NULL, 'Audi', 'Q7', 10, 82.0, 45.5, 2025, 'iSeeCars', 'https://www.iseecars.com/car/audi-q7/resale-value', 'Its 7-year depreciation is 73.8 percent and 10-year depreciation is 82 percent.');--> statement-breakpoint
-- The Lexus RX page as slashgear.com reported it (2025-11-27); its category figure, 54.9% for midsize luxury SUVs, is the Q7 page's,
-- so it is the same 2025 snapshot and reads against that page's 45.5% for all vehicles.
INSERT INTO appraisal_model_retention (org_id, make, model, age_years, pct_value_lost, overall_pct_value_lost, study_year, publisher, source, quote) VALUES (NULL, 'Lexus', 'RX', 5, 38.9, 45.5, 2025, 'iSeeCars', 'https://www.slashgear.com/2034774/lexus-rx-350-depreciation-rate-per-year/', 'According to iSeeCars, a new Lexus RX 350 is set to lose 23.2% after the initial three years, or 38.9% after five ... the average five-year depreciation number for a midsize luxury SUV is 54.9%.');--> statement-breakpoint
-- The RAV4 page as jalopnik.com reported it (2025): its five-, seven- and ten-year figures, one snapshot, replacing the 2025 study's
-- rounded 30.9% so the later ages are read against their own page's five-year loss (30.3% = 1 − $20,398 / $29,250, the page's
-- resale value of a 2020 at its sticker price; "about 30%" in the text).
UPDATE appraisal_model_retention SET pct_value_lost = 30.3, overall_pct_value_lost = 45.5, study_year = 2025, source = 'https://jalopnik.com/2025652/2020-toyota-rav4-5-year-depreciation', quote = 'iSeeCars estimating that a 2020 model loses only about 30% of its original selling price over five years ... significantly better than the average 45.5% five-year depreciation rate across all vehicles ... Based on an original sticker price of $29,250, the 2020 Toyota RAV4 would have a resale value of $20,398 after five years, according to iSeeCars.' WHERE org_id IS NULL AND make = 'Toyota' AND model = 'RAV4' AND age_years = 5;--> statement-breakpoint
INSERT INTO appraisal_model_retention (org_id, make, model, age_years, pct_value_lost, overall_pct_value_lost, study_year, publisher, source, quote) VALUES (NULL, 'Toyota', 'RAV4', 7, 43.3, 45.5, 2025, 'iSeeCars', 'https://jalopnik.com/2025652/2020-toyota-rav4-5-year-depreciation', 'The 2020 RAV4''s modest depreciation forecast remains when looking at other terms: three years (16.8%), seven years (43.3%), and ten years (57.2%).'), (NULL, 'Toyota', 'RAV4', 10, 57.2, 45.5, 2025, 'iSeeCars', 'https://jalopnik.com/2025652/2020-toyota-rav4-5-year-depreciation', 'three years (16.8%), seven years (43.3%), and ten years (57.2%)');--> statement-breakpoint
-- The Chevrolet Bolt EV by model year (docs/domain/appraisal.md#depreciation-model): the electric_car class's $45,000 priced a 2022
-- Bolt 23% over its typical asking price. Its list price: 2017 "$37,495 before the $7,500 federal credit" (automotive-fleet.com
-- 2017), 2021 "The 2021 Chevrolet Bolt started at $37,495 (including destination fees) whereas the 2022 model year starts at just
-- $31,995" (blog.carsforsale.com 2021), 2023 "The 2023 Chevy Bolt will cost $26,595" (deseret.com 2022). 2017–2021 at the $37,495
-- both ends published; 2022 at its lowest published price ($32,495 later, protocol.com 2022), so an offer never rests on the peak.
INSERT INTO appraisal_price_classes (org_id, class_key, new_price, retention_class) VALUES (NULL, 'electric_car_bolt', 37495, 'ev'), (NULL, 'electric_car_bolt_2022', 31995, 'ev'), (NULL, 'electric_car_bolt_2023', 26595, 'ev');--> statement-breakpoint
UPDATE appraisal_model_classes SET class_key = 'electric_car_bolt', model_year_to = 2021 WHERE org_id IS NULL AND make = 'Chevrolet' AND model = 'Bolt EV';--> statement-breakpoint
INSERT INTO appraisal_model_classes (org_id, make, model, class_key, body_class, fuel_type, model_year_from, model_year_to) VALUES (NULL, 'Chevrolet', 'Bolt EV', 'electric_car_bolt_2022', 'hatchback', 'electric', 2022, 2022), (NULL, 'Chevrolet', 'Bolt EV', 'electric_car_bolt_2023', 'hatchback', 'electric', 2023, NULL);--> statement-breakpoint
-- The Audi Q5: "Prices start at $41,500 for the Premium trim level" (autoevolution.com 2018); the luxury_suv class's $55,000 priced a
-- 2017 Q5 Premium 31% over its typical asking price.
INSERT INTO appraisal_price_classes (org_id, class_key, new_price, retention_class) VALUES (NULL, 'compact_luxury_suv_q5', 41500, 'standard');--> statement-breakpoint
UPDATE appraisal_model_classes SET class_key = 'compact_luxury_suv_q5' WHERE org_id IS NULL AND make = 'Audi' AND model = 'Q5';--> statement-breakpoint
-- A trim with a published price far above its class has its own price row (docs/domain/appraisal.md#trims-above-their-class): "If
-- you bought a 2020 Wrangler Recon Sport Utility 2D new (at $45,740)" (usnfix.com 2025, citing Kelley Blue Book), 48% over
-- compact_suv's $31,000; a 2020 Recon at 60,000 miles was $21,709, 31% under that page's Kelley Blue Book resale value ($31,290).
INSERT INTO appraisal_price_classes (org_id, class_key, new_price, retention_class) VALUES (NULL, 'wrangler_recon', 45740, 'standard');--> statement-breakpoint
INSERT INTO appraisal_model_classes (org_id, make, model, class_key, body_class, fuel_type) VALUES (NULL, 'Jeep', 'Wrangler Recon', 'wrangler_recon', 'suv', 'gas');
--> statement-breakpoint
-- Likewise "the
-- Prius Four Touring ($30,565)" (star-telegram.com 2018), 27% over compact_car's $24,000; a 2018 Four Touring at 85,000 miles was 26%
-- under Kelley Blue Book's private-party value on the class's price.
INSERT INTO appraisal_price_classes (org_id, class_key, new_price, retention_class) VALUES (NULL, 'compact_car_prius_four_touring', 30565, 'standard');--> statement-breakpoint
INSERT INTO appraisal_model_classes (org_id, make, model, class_key, body_class, fuel_type) VALUES (NULL, 'Toyota', 'Prius Four Touring', 'compact_car_prius_four_touring', 'hatchback', 'hybrid');
