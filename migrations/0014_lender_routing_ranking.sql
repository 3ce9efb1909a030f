-- Lender routing ranks a panel the way a desk manager does (docs/domain/lender-routing.md#ranking):
-- approval bucket, then the customer's rate; a down-tier placement is never primary while an
-- in-tier program approves. Source: DOMAIN.md §1.9 (DEFAULT figures, added 2026-11-26).
CREATE TABLE `lender_routing_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`approval_bucket_high` real NOT NULL,
	`approval_bucket_low` real NOT NULL,
	`down_tier_score_margin` integer NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
INSERT INTO lender_routing_settings (id, approval_bucket_high, approval_bucket_low, down_tier_score_margin, source) VALUES
('default', 0.8, 0.5, 40, 'DOMAIN §1.9 DEFAULT ranking (buckets ≥ 0.8 / 0.5–0.8 / < 0.5; down-tier = score ≥ program ceiling + 40)');
--> statement-breakpoint
-- A stip rule may apply only in part of the year (MM-DD, inclusive; null: all year).
ALTER TABLE `stip_rules` ADD `active_from` text;
--> statement-breakpoint
ALTER TABLE `stip_rules` ADD `active_until` text;
--> statement-breakpoint
-- The prior-year W-2 is asked for in tax season only, Jan 1–Apr 15; the pay stub covers the rest of the year
-- (DOMAIN §2.1 Capital One "Proof of Income" [A]; docs/domain/stips.md#w-2-window).
UPDATE stip_rules SET active_from = '01-01', active_until = '04-15' WHERE trigger_kind = 'income_type' AND trigger_value = 'w2' AND stip = 'W-2';
