-- Identity hashes are now keyed per organization (HKDF of COMPLIANCE_HASH_SALT with the
-- organization id; docs/domain/screening.md#identity-hashes-per-organization). Rows written under
-- the one shared key can no longer link to new checks, but they could still link the same customer
-- across organizations, which is the defect. Their hashes are replaced by random values and the
-- two pair hashes cleared: the audit record (result, rule, score, list, key, time) stays, the
-- person in it becomes unlinkable.
UPDATE compliance_checks
SET person_hash = lower(hex(randomblob(32))),
    name_hash = lower(hex(randomblob(32))),
    dob_hash = lower(hex(randomblob(32))),
    ssn_dob_hash = NULL,
    name_zip_hash = NULL;
