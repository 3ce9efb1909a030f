-- The reference rows' `source` cited an internal document's sections; each now names the public
-- source of its figure (or says it is an engineering default). Rows are matched by their old text,
-- so an organization's own edited rows are left as they are.
UPDATE `credit_tiers` SET `source` = 'APR: Experian, State of the Automotive Finance Market Q1 2025, by VantageScore 4.0 band (via creditvana.com); reserve caps 2.0 pts ≤ 60 mo, 1.5 pts 61–84, none below 601: engineering default inside the caps F&I Magazine (2018) and the CFPB/DOJ consent orders (2015–2016) report; back-gross targets: engineering default against Group 1 Automotive''s Q4 2024 8-K (sec.gov) and Presidio/NCM Q3 2025 (autodealer-news.com) F&I per unit' WHERE `source` = 'DOMAIN §10.1 (APR: Experian SAFM Q1 2025, §1.2); reserve caps §4.2 (2.0 pts ≤ 60 mo, 1.5 pts 61–84, none below 601); back-gross targets §3.2';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'F&I Magazine 2012: ''penetrated well''; 0.15 and profit: engineering defaults' WHERE `source` = 'DOMAIN §5 (''penetrated well''; DEFAULT 0.15; profit DEFAULT)';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'F&I Magazine 2012 (most other products below 20%); 0.12 and profit: engineering defaults' WHERE `source` = 'DOMAIN §5 (DEFAULT 0.12; profit DEFAULT)';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'F&I Magazine 2012: most other products below 20%; 0.15 and profit: engineering defaults' WHERE `source` = 'DOMAIN §5 (most other products below 20%; DEFAULT 0.15; profit DEFAULT)';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'F&I Magazine 2012 (prepaid maintenance gaining); penetration 0.20 and profit: engineering defaults' WHERE `source` = 'DOMAIN §5 (penetration DEFAULT 0.20; profit DEFAULT)';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'F&I Magazine 2012: 34.9% (2011); 38.5% franchised 2023 (gitnux.org); 0.45 when LTV > 110%: engineering default; example cost $189 / sell $750 (cardealershipguy)' WHERE `source` = 'DOMAIN §5: 34.9% (2011), 38.5% franchised 2023; 0.45 when LTV > 110%; cost $189 / sell $750';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'F&I Magazine (NADA 2018): 45.7% new / 47.6% used; example cost $800 / sell $1,800 (cardealershipguy)' WHERE `source` = 'DOMAIN §5: NADA 2018 45.7% new / 47.6% used; cost $800 / sell $1,800';
--> statement-breakpoint
UPDATE `fi_products` SET `source` = 'gitnux.org: ~22% (2023); ~$312 profit per unit sold' WHERE `source` = 'DOMAIN §5: ~22% (2023); ~$312 profit per unit sold';
--> statement-breakpoint
UPDATE `front_gross_targets` SET `source` = 'Engineering default, against Group 1 Automotive''s Q4 2024 8-K (sec.gov) and Presidio/NCM Q3 2025 (autodealer-news.com) gross per unit' WHERE `source` = 'DOMAIN §3.2 DEFAULT front-gross targets';
--> statement-breakpoint
UPDATE `front_gross_targets` SET `source` = 'Engineering default, against Group 1 Automotive''s Q4 2024 8-K (sec.gov) and Presidio/NCM Q3 2025 (autodealer-news.com) gross per unit; used margin 6–8% of price (cardealershipguy)' WHERE `source` = 'DOMAIN §3.2 DEFAULT front-gross targets (used margin 6–8%)';
--> statement-breakpoint
UPDATE `known_issue_rules` SET `source` = 'Engineering default; Chapter 7 financed after discharge: ntrial.com, American Motor Credit guidelines' WHERE `source` = 'DOMAIN §1.6' AND `issue` = 'bk7';
--> statement-breakpoint
UPDATE `known_issue_rules` SET `source` = 'Engineering default; fewer lenders, extra ID, bigger down, shorter term: financeglass.com, accountinginsights.org' WHERE `source` = 'DOMAIN §1.6' AND `issue` = 'itin';
--> statement-breakpoint
UPDATE `known_issue_rules` SET `source` = 'Credit-union lending manual (swhitworth4.wixsite.com): +2% for a thin file; the rest engineering default' WHERE `source` = 'DOMAIN §1.6 (CU +2% evidence)';
--> statement-breakpoint
UPDATE `known_issue_rules` SET `source` = 'safefed.org: no unpaid charge-offs under 12 months old; paid → normal tier +1.0 pt: engineering default' WHERE `source` = 'DOMAIN §1.6 (paid → normal tier +1.0)';
--> statement-breakpoint
UPDATE `known_issue_rules` SET `source` = 'Engineering default; Chapter 13 needs the trustee''s permission or a court order: ntrial.com, pocketsense.com' WHERE `source` = 'DOMAIN §1.6 (trustee letter required)';
--> statement-breakpoint
UPDATE `known_issue_rules` SET `source` = 'Engineering default; repo at least 1 year old, one at most: carsdirect.com, autocreditexpress.com; deficiency paid: safefed.org' WHERE `source` = 'DOMAIN §1.6 default issue matrix';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'safefed.org auto loans' WHERE `source` = 'DOMAIN §1.6 safefed.org [A]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'Capital One, Proof of Income' WHERE `source` = 'DOMAIN §2.1 Capital One [A]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'autodirectms.com' WHERE `source` = 'DOMAIN §2.1 autodirectms.com [C]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'autodirectms.com; Capital One, Proof of Income' WHERE `source` = 'DOMAIN §2.1 autodirectms.com [C]; Capital One [A]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'carapprovalpro.pages.dev' WHERE `source` = 'DOMAIN §2.1 carapprovalpro [C]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'financeglass.com' WHERE `source` = 'DOMAIN §2.1 financeglass.com [C]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'help.motolease.net' WHERE `source` = 'DOMAIN §2.1 help.motolease.net [A]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'ntrial.com' WHERE `source` = 'DOMAIN §2.1 ntrial.com [C]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'planetmotorsfl.com' WHERE `source` = 'DOMAIN §2.1 planetmotorsfl.com [C]';
--> statement-breakpoint
UPDATE `stip_types` SET `source` = 'Engineering default (no public benchmark)' WHERE `source` = 'DOMAIN §2.2 DEFAULT';
--> statement-breakpoint
UPDATE `lender_routing_settings` SET `source` = 'Engineering default ranking (buckets ≥ 0.8 / 0.5–0.8 / < 0.5; down-tier = score ≥ program ceiling + 40); down-tier placement as steering: Center for Responsible Lending, "Under the Hood" (2011)' WHERE `source` = 'DOMAIN §1.9 DEFAULT ranking (buckets ≥ 0.8 / 0.5–0.8 / < 0.5; down-tier = score ≥ program ceiling + 40)';
--> statement-breakpoint
UPDATE `factory_warranty_terms` SET `source` = 'Basic coverage commonly 3 yr/36,000 mi (manufacturers'' published warranties); "ends soon" within ~12 months/12,000 miles: engineering default' WHERE `source` = 'DOMAIN §5 (2026-11-26): basic commonly 3 yr/36,000 mi; ends soon within ~12 months/12,000 miles (DEFAULT)';
--> statement-breakpoint
UPDATE `factory_warranty_terms` SET `source` = 'Powertrain coverage commonly 5 yr/60,000 mi (manufacturers'' published warranties); "ends soon" within ~12 months/12,000 miles: engineering default' WHERE `source` = 'DOMAIN §5 (2026-11-26): powertrain commonly 5 yr/60,000 mi; ends soon within ~12 months/12,000 miles (DEFAULT)';
--> statement-breakpoint
UPDATE `fi_word_tracks` SET `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (FTC Act §5: a statement that cannot be true for the deal is not sent)' WHERE `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26)';
--> statement-breakpoint
UPDATE `fi_word_tracks` SET `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (FTC Act §5: "ends soon" only within ~12 months/12,000 miles of the basic or powertrain warranty)' WHERE `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: "ends soon" only within ~12 months/12,000 miles of the basic or powertrain warranty)';
--> statement-breakpoint
UPDATE `fi_word_tracks` SET `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (FTC Act §5: only when LTV > 100% or the trade carried negative equity)' WHERE `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: only when LTV > 100% or the trade carried negative equity)';
--> statement-breakpoint
UPDATE `fi_word_tracks` SET `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (FTC Act §5: otherwise "after the factory coverage ends at …")' WHERE `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5, 2026-11-26: otherwise "after the factory coverage ends at …")';
--> statement-breakpoint
UPDATE `fi_word_tracks` SET `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (NADA''s model F&I menu policy, F&I Magazine 2019: "I don''t want to add to my payment" → show cost per day)' WHERE `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (DOMAIN §5: "I don''t want to add to my payment" → show cost per day)';
--> statement-breakpoint
UPDATE `fi_word_tracks` SET `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (balance after 12 payments against the average depreciation curve, KBB depreciation calculator)' WHERE `source` = 'docs/domain/deal-coach.md#word-track-truth-rule (balance after 12 payments against the average depreciation curve, KBB via DOMAIN §6.1)';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'Engineering default: > 100,000 miles → 48 months at most' WHERE `source` = 'DOMAIN §1.5 DEFAULT: > 100,000 miles → 48 months at most';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'Engineering default: BHPH 48 months' WHERE `source` = 'DOMAIN §1.5 DEFAULT: BHPH 48 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'Engineering default: past American Motor Credit''s 120,000-mile table, 36 months' WHERE `source` = 'DOMAIN §1.5 DEFAULT: past American Motor Credit''s 120,000-mile table, 36 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'American Motor Credit''s subprime term by mileage (domestic figures): 0–50,000 mi 72 months' WHERE `source` = 'DOMAIN §1.5 subprime term by mileage (American Motor Credit [C], domestic figures): 0–50,000 mi 72 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'American Motor Credit''s subprime term by mileage (domestic figures): 100–120,000 mi 42 months' WHERE `source` = 'DOMAIN §1.5 subprime term by mileage (American Motor Credit [C], domestic figures): 100–120,000 mi 42 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'American Motor Credit''s subprime term by mileage (domestic figures): 50–80,000 mi 60 months' WHERE `source` = 'DOMAIN §1.5 subprime term by mileage (American Motor Credit [C], domestic figures): 50–80,000 mi 60 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'American Motor Credit''s subprime term by mileage (domestic figures): 80–100,000 mi 48 months' WHERE `source` = 'DOMAIN §1.5 subprime term by mileage (American Motor Credit [C], domestic figures): 80–100,000 mi 48 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'American Motor Credit''s subprime term by mileage (domestic figures): up to 80,000 mi 60 months' WHERE `source` = 'DOMAIN §1.5 subprime term by mileage (American Motor Credit [C], domestic figures): up to 80,000 mi 60 months';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'Cooperative CU loan rates (cooperativecu.com): 72 months from $15,000, used 72 only on the 6 newest model years; > 100,000 mi ≤ 48: engineering default' WHERE `source` = 'DOMAIN §1.5: 72 months from $15,000 (cooperativecu.com [A]); used 72 only on the 6 newest model years (cooperativecu.com [A]); > 100,000 mi ≤ 48 DEFAULT';
--> statement-breakpoint
UPDATE `lender_term_limits` SET `source` = 'Cooperative CU loan rates (cooperativecu.com): 84 months from $25,000, on newer units under 45,000 miles (a credit-union rate sheet); age 3: engineering default' WHERE `source` = 'DOMAIN §1.5: 84 months from $25,000 (cooperativecu.com [A]) on newer units under 45,000 miles (CU rate sheet [C]; age 3 DEFAULT)';
