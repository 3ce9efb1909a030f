-- Default screening settings (DOMAIN.md §7.3 thresholds: hold at 95, flag at 85; a list older than
-- 45 days is stale; a buyer's date of birth between 18 and 110 years ago). Organizations override
-- them with a row of their own.
INSERT OR IGNORE INTO compliance_settings (org_id, hold_score, flag_score, max_list_age_days, minimum_age, maximum_age)
VALUES ('*', 95, 85, 45, 18, 110);
