-- The published figures' clock (docs/domain/appraisal.md#study-age): iSeeCars' "five-year-old" is a model year sold five
-- calendar years on ("iSeeCars.com analyzed more than 8.2 million car sales to identify vehicles from the 2016 model year with
-- the lowest and highest loss in value from MSRP after five years ... the average five-year-old vehicle depreciated by 40.1
-- percent in 2021", iSeeCars via theautochannel.com 2021), which this engine counts as 5.5 years old (current year − model
-- year + 0.5). The figures were read half a year early: a 2020 in 2026 priced as a six-year-old, not the study's 5.5 + 1.
ALTER TABLE `appraisal_settings` ADD `study_age_offset_years` real DEFAULT 0.5 NOT NULL;
