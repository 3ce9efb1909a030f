/**
 * The deal desk's and the inventory's words, each listed once: the D1 schema, the engines and the
 * routes' request schemas all take them from here, so a new value is added in one place.
 */

export const CREDIT_TIERS = ["super_prime", "prime", "near_prime", "subprime", "deep_subprime"] as const;
export type CreditTier = (typeof CREDIT_TIERS)[number];

export const VEHICLE_TYPES = ["car", "truck", "suv", "van"] as const;
export type VehicleType = (typeof VEHICLE_TYPES)[number];

/** A deal's condition: it picks the new or the used rate, pack and floor-plan figures. */
export const DEAL_CONDITIONS = ["new", "used"] as const;
export type Condition = (typeof DEAL_CONDITIONS)[number];

/** A unit in inventory may also be certified pre-owned. */
export const UNIT_CONDITIONS = ["new", "used", "cpo"] as const;
export type UnitCondition = (typeof UNIT_CONDITIONS)[number];

/** A deal in the funding pipeline: its stips still matter (not yet funded, not unwound). */
export const PIPELINE_STATUSES = ["pending", "submitted", "approved"] as const;
export const DEAL_STATUSES = [...PIPELINE_STATUSES, "funded", "unwound"] as const;

export const KNOWN_ISSUES = ["repo", "bk7", "bk13", "itin", "thin_file", "charge_off"] as const;
export type KnownIssue = (typeof KNOWN_ISSUES)[number];

export const LENDER_TYPES = ["captive", "bank", "credit_union", "subprime", "specialty", "bhph"] as const;
export type LenderType = (typeof LENDER_TYPES)[number];

export const INCOME_TYPES = ["w2", "self_employed", "itin", "fixed"] as const;
export type IncomeType = (typeof INCOME_TYPES)[number];
