-- The public series the nightly refresh reads (DOMAIN.md §8). Switch one off with enabled = 0.
INSERT OR IGNORE INTO market_series (id, provider, name, category, unit, frequency, fallback_for, source, enabled) VALUES
  ('UMCSENT', 'fred', 'Consumer sentiment (University of Michigan)', 'macro', 'index', 'monthly', NULL, 'FRED UMCSENT (University of Michigan consumer sentiment)', 1),
  ('EMM_EPMR_PTE_NUS_DPG', 'eia', 'U.S. regular gasoline', 'macro', 'usd_per_gallon', 'weekly', NULL, 'EIA weekly U.S. regular gasoline retail price (EMM_EPMR_PTE_NUS_DPG)', 1),
  ('GASREGW', 'fred', 'U.S. regular gasoline', 'macro', 'usd_per_gallon', 'weekly', 'EMM_EPMR_PTE_NUS_DPG', 'FRED GASREGW (EIA U.S. regular gasoline, FRED mirror)', 1),
  ('RIFLPBCIANM60NM', 'fred', '60-month new-auto loan rate at commercial banks', 'lender_environment', 'percent', 'quarterly', NULL, 'FRED RIFLPBCIANM60NM (commercial bank 60-month new auto loan rate)', 1),
  ('RIFLPBCIANM72NM', 'fred', '72-month new-auto loan rate at commercial banks', 'lender_environment', 'percent', 'quarterly', NULL, 'FRED RIFLPBCIANM72NM (commercial bank 72-month new auto loan rate)', 1),
  ('TERMCBAUTO48NS', 'fred', '48-month new-auto loan rate at commercial banks', 'lender_environment', 'percent', 'quarterly', NULL, 'FRED TERMCBAUTO48NS (commercial bank 48-month new auto loan rate)', 1),
  ('DPRIME', 'fred', 'Bank prime loan rate', 'macro', 'percent', 'daily', NULL, 'FRED DPRIME (bank prime loan rate)', 1),
  ('SOFR', 'fred', 'Secured overnight financing rate', 'macro', 'percent', 'daily', NULL, 'FRED SOFR (secured overnight financing rate)', 1),
  ('MANHEIM_UVVI', 'manual', 'Manheim Used Vehicle Value Index', 'wholesale_index', 'index', 'monthly', NULL, 'Manheim Used Vehicle Value Index (entered monthly; no public API)', 1);
