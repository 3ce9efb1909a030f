-- Deal coach: word tracks state facts of the deal or none (docs/domain/deal-coach.md#word-track-truth-rule).
-- Tracks move from one fixed sentence per product (fi_products.word_track, which told every GAP buyer
-- "you'd owe more than the car is worth" and every VSC buyer "factory coverage ends soon") to
-- templates with the claim each one states; the coach sends only a track whose claim the deal bears
-- out. Factory warranty terms and the "ends soon" window become reference rows, and GAP's high-LTV
-- threshold (110%) moves from code to its product row. Rows match scripts/deal-desk-reference.ts.
CREATE TABLE `factory_warranty_terms` (
	`coverage` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`months` integer NOT NULL,
	`miles` integer NOT NULL,
	`ends_soon_months` integer NOT NULL,
	`ends_soon_miles` integer NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fi_word_tracks` (
	`id` text PRIMARY KEY NOT NULL,
	`product` text NOT NULL,
	`claim` text NOT NULL,
	`rank` integer NOT NULL,
	`template` text NOT NULL,
	`source` text NOT NULL,
	FOREIGN KEY (`product`) REFERENCES `fi_products`(`product`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `fi_products` ADD `high_ltv_pct` real;
--> statement-breakpoint
UPDATE fi_products SET high_ltv_pct = 110 WHERE product = 'gap';
--> statement-breakpoint
ALTER TABLE `fi_products` DROP COLUMN `word_track`;
--> statement-breakpoint
INSERT OR IGNORE INTO factory_warranty_terms (coverage, label, months, miles, ends_soon_months, ends_soon_miles, source) VALUES
('basic', 'bumper-to-bumper', 36, 36000, 12, 12000, 'DOMAIN §5 (2026-11-26): basic commonly 3 yr/36,000 mi; ends soon within ~12 months/12,000 miles (DEFAULT)'),
('powertrain', 'powertrain', 60, 60000, 12, 12000, 'DOMAIN §5 (2026-11-26): powertrain commonly 5 yr/60,000 mi; ends soon within ~12 months/12,000 miles (DEFAULT)');
--> statement-breakpoint
INSERT OR IGNORE INTO fi_word_tracks (id, product, claim, rank, template, source) VALUES
('gap_owes_more_than_worth', 'gap', 'owes_more_than_worth', 10, 'Let''s look at your numbers: you''d owe {amount_financed} on a {vehicle_price} car, {amount_over_value} more than it''s worth today (LTV {ltv}). If it''s totaled or stolen, insurance pays the car''s value, not the loan, and GAP pays the difference so you''re not making payments on a car you don''t have.', 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: only when LTV > 100% or the trade carried negative equity)'),
('gap_negative_equity_rolled', 'gap', 'negative_equity_rolled', 20, 'Let''s look at your numbers: the {negative_equity} still owed on your trade is rolled into this loan. If the car is totaled or stolen, insurance pays the car''s value, not what''s owed on it, and GAP pays the difference so you''re not making payments on a car you don''t have.', 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: only when LTV > 100% or the trade carried negative equity)'),
('gap_balance_ahead_of_value', 'gap', 'balance_ahead_of_value', 30, 'Let''s look at your numbers: a year into this {term}-month loan you''d still owe about {balance_after_year}, while a car like this is worth about {value_after_year} by then on average. If it''s totaled or stolen while the balance runs ahead of the value, insurance pays the value, not the loan, and GAP pays the difference.', 'docs/domain/deal-coach.md#word-track-truth-rule (balance after 12 payments against the average depreciation curve, KBB via DOMAIN §6.1)'),
('vsc_coverage_ends_soon', 'vsc', 'coverage_ends_soon', 10, 'Totally fair. This car''s factory {coverage} coverage ({coverage_term}) ends in about {coverage_left}, whichever comes first; one major repair commonly runs $2,000–$4,000 after that. This caps a covered repair at your deductible.', 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: "ends soon" only within ~12 months/12,000 miles of the basic or powertrain warranty)'),
('vsc_coverage_ends_later', 'vsc', 'coverage_ends_later', 20, 'Totally fair. It''s under factory {coverage} coverage today; after the factory coverage ends at {coverage_term}, one major repair commonly runs $2,000–$4,000. This picks up there and caps a covered repair at your deductible.', 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: otherwise "after the factory coverage ends at …")'),
('vsc_coverage_ended', 'vsc', 'coverage_ended', 30, 'Totally fair. {coverage_ended_at} this car is past its factory coverage ({coverage_terms}), so repairs are yours from day one; one major repair commonly runs $2,000–$4,000. This caps a covered repair at your deductible.', 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26)'),
('vsc_no_deal_fact', 'vsc', 'no_deal_fact', 90, 'Totally fair. Once factory coverage runs out, repairs are yours; one major repair commonly runs $2,000–$4,000. This caps a covered repair at your deductible.', 'docs/domain/deal-coach.md#word-track-truth-rule (no vehicle year or mileage: no coverage-timing claim)'),
('tire_wheel_no_deal_fact', 'tire_wheel', 'no_deal_fact', 90, 'I hear you. One bent wheel and tire from a pothole commonly runs $400 or more out of pocket; let''s look at what this costs per day against that.', 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5: "I don''t want to add to my payment" → show cost per day)'),
('prepaid_maintenance_no_deal_fact', 'prepaid_maintenance', 'no_deal_fact', 90, 'You will pay for them either way; this locks today''s prices for the services the car needs and keeps the service record the next buyer pays more for.', 'docs/domain/deal-coach.md#word-track-truth-rule'),
('appearance_no_deal_fact', 'appearance', 'no_deal_fact', 90, 'That''s exactly who it''s for: it keeps the finish and seats at trade-in condition, which is worth more than its cost when you sell.', 'docs/domain/deal-coach.md#word-track-truth-rule'),
('theft_etch_no_deal_fact', 'theft_etch', 'no_deal_fact', 90, 'It does, after the deductible; etch makes the car a worse target and pays toward your deductible and replacement if it''s stolen anyway.', 'docs/domain/deal-coach.md#word-track-truth-rule'),
('key_replacement_no_deal_fact', 'key_replacement', 'no_deal_fact', 90, 'Good, and a modern smart key commonly costs $300–$600 to replace and program; this covers the keys on the car for the product''s term.', 'docs/domain/deal-coach.md#word-track-truth-rule');
