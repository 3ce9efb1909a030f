-- The used-unit front-gross target has one owner: the store settings `target_front_gross_used_pct`
-- and `target_front_gross_used_min` (defaults 8% and $1,200, docs/domain/gross.md#front-gross-targets),
-- read by gross-calc, deal-coach, appraisal and the briefings. The reference row that gross-calc and
-- deal-coach read instead is dropped; `front_gross_targets` keeps the new-unit target.
DELETE FROM front_gross_targets WHERE condition = 'used';
