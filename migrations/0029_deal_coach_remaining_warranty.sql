-- Deal coach: a certified or warrantied unit's service-contract track states the remaining warranty the
-- request carries (docs/domain/deal-coach.md#certified-and-remaining-warranty), ahead of the factory-term
-- tracks, so a CPO buyer is never told "repairs are yours from day one". Row matches scripts/deal-desk-reference.ts.
INSERT OR IGNORE INTO fi_word_tracks (id, product, claim, rank, template, source) VALUES
('vsc_coverage_remaining', 'vsc', 'coverage_remaining', 5, 'Totally fair. This car''s {coverage} has about {coverage_left} left, whichever comes first; after that, one major repair commonly runs $2,000–$4,000. This picks up where it ends and caps a covered repair at your deductible.', 'docs/domain/deal-coach.md#word-track-truth-rule (the remaining factory or CPO warranty the request states; a certified unit is never told its coverage is over)');
