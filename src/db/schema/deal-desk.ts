import { integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { CREDIT_TIERS, DEAL_CONDITIONS, KNOWN_ISSUES, type KnownIssue, LENDER_TYPES, VEHICLE_TYPES } from "../../engines/deal-math/vocabulary";

/**
 * Deal-desk tables. Reference data (tiers, the 53 lender programs, stip rules, F&I benchmarks)
 * ships in the `deal_desk_reference` migration so a dealer group can tune rows without a deploy;
 * each row carries the source of its figures (the rules pages are docs/domain/lender-routing.md,
 * docs/domain/stips.md and docs/domain/deal-math.md).
 */

export const LENDER_DECISIONS = ["approved", "countered", "declined"] as const;
export const STIP_PRIORITIES = ["required", "likely"] as const;

/** Score bands, Experian Q1 2025 APRs, caps, reserve and back-gross conventions (docs/domain/lender-routing.md#credit-tiers, docs/domain/deal-math.md#reserve-caps). */
export const creditTiers = sqliteTable("credit_tiers", {
  tier: text("tier", { enum: CREDIT_TIERS }).primaryKey(),
  scoreMin: integer("score_min").notNull(),
  scoreMax: integer("score_max").notNull(),
  newApr: real("new_apr").notNull(),
  usedApr: real("used_apr").notNull(),
  /** Half-width of the quoted rate range, points. */
  aprSpread: real("apr_spread").notNull(),
  maxLtv: real("max_ltv").notNull(),
  maxPti: real("max_pti").notNull(),
  maxTerm: integer("max_term").notNull(),
  /** Dealer markup a desk quotes by default (one standard markup for every buyer, docs/domain/deal-math.md#reserve-caps). */
  standardMarkup: real("standard_markup").notNull(),
  markupCapShortTerm: real("markup_cap_short_term").notNull(),
  markupCapLongTerm: real("markup_cap_long_term").notNull(),
  backGrossTarget: real("back_gross_target").notNull(),
  source: text("source").notNull(),
});

/** docs/domain/lender-routing.md#vehicle-type-adjustments (DEFAULT, no source). */
export const vehicleTypeAdjustments = sqliteTable("vehicle_type_adjustments", {
  vehicleType: text("vehicle_type", { enum: VEHICLE_TYPES }).primaryKey(),
  ltvAdd: real("ltv_add").notNull(),
  aprAdd: real("apr_add").notNull(),
});

/** docs/domain/lender-routing.md#known-issues: what an issue costs on any program that takes it. */
export const knownIssueRules = sqliteTable("known_issue_rules", {
  issue: text("issue", { enum: KNOWN_ISSUES }).primaryKey(),
  label: text("label").notNull(),
  extraDownPct: real("extra_down_pct").notNull(),
  rateAdd: real("rate_add").notNull(),
  /** Longest term a program may write with this issue; null: the program's own limit. */
  maxTerm: integer("max_term"),
  source: text("source").notNull(),
});

/** Front-gross targets by condition (docs/domain/gross.md). */
export const frontGrossTargets = sqliteTable("front_gross_targets", {
  condition: text("condition", { enum: DEAL_CONDITIONS }).primaryKey(),
  targetPct: real("target_pct").notNull(),
  minAmount: real("min_amount").notNull(),
  source: text("source").notNull(),
});

/** A row's lender program, declared alike wherever a table names one (see `orgIdRef`). */
export function programIdRef() {
  return text("program_id")
    .notNull()
    .references(() => lenderPrograms.id);
}

/** The lender-program matrix: fictional programs over the lender types of docs/domain/lender-routing.md#lender-types. */
export const lenderPrograms = sqliteTable("lender_programs", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  type: text("type", { enum: LENDER_TYPES }).notNull(),
  minScore: integer("min_score").notNull(),
  maxScore: integer("max_score").notNull(),
  maxLtv: real("max_ltv").notNull(),
  maxPti: real("max_pti").notNull(),
  maxTerm: integer("max_term").notNull(),
  minDownPct: real("min_down_pct").notNull(),
  vehicleMaxAge: integer("vehicle_max_age").notNull(),
  vehicleMaxMiles: integer("vehicle_max_miles").notNull(),
  acceptsRepo: integer("accepts_repo", { mode: "boolean" }).notNull(),
  acceptsBk7: integer("accepts_bk7", { mode: "boolean" }).notNull(),
  acceptsBk13: integer("accepts_bk13", { mode: "boolean" }).notNull(),
  acceptsItin: integer("accepts_itin", { mode: "boolean" }).notNull(),
  acceptsThinFile: integer("accepts_thin_file", { mode: "boolean" }).notNull(),
  acceptsChargeOff: integer("accepts_charge_off", { mode: "boolean" }).notNull(),
  /** Points over the tier's average APR this program's buy rate sits (negative: under). */
  rateMargin: real("rate_margin").notNull(),
  /** Per-issue rate add-ons in points, overriding `known_issue_rules.rate_add`. */
  rateAdd: text("rate_add", { mode: "json" }).$type<Partial<Record<KnownIssue, number>>>().notNull(),
  markupCap: real("markup_cap").notNull(),
  flatFee: real("flat_fee").notNull(),
  fundingDays: integer("funding_days").notNull(),
  /** Hours from submission to stips cleared when a store has no history with the lender. */
  turnaroundHours: real("turnaround_hours").notNull(),
  baseStips: text("base_stips", { mode: "json" }).$type<string[]>().notNull(),
  /** Smallest amount financed the program writes (docs/domain/lender-routing.md#amount-financed-limits); 0: none. */
  minAmount: real("min_amount").notNull().default(0),
  /** Largest amount financed the program writes; null: no stated maximum. */
  maxAmount: real("max_amount"),
});

/**
 * A program's term ladder (docs/domain/lender-routing.md#term-limits): it writes up to `maxTerm`
 * months on a deal financing at least `minAmount` on a vehicle no older than `maxVehicleAge` model
 * years and with no more than `maxMileage` miles (null: no limit on that fact). The longest rung
 * the deal meets is the program's term for it; a deal that meets none is out.
 */
export const lenderTermLimits = sqliteTable(
  "lender_term_limits",
  {
    programId: programIdRef(),
    maxTerm: integer("max_term").notNull(),
    minAmount: real("min_amount").notNull().default(0),
    maxVehicleAge: integer("max_vehicle_age"),
    maxMileage: integer("max_mileage"),
    source: text("source").notNull(),
  },
  (t) => [primaryKey({ columns: [t.programId, t.maxTerm] })],
);

/** Each stip, its document rule and the default hours a customer needs to produce it (docs/domain/stips.md#stip-types). */
export const stipTypes = sqliteTable("stip_types", {
  stip: text("stip").primaryKey(),
  rule: text("rule").notNull(),
  turnaroundHours: real("turnaround_hours").notNull(),
  source: text("source").notNull(),
});

/** The trigger matrix (docs/domain/stips.md#trigger-matrix): which profile fact asks for which stip, and how surely. */
export const stipRules = sqliteTable("stip_rules", {
  id: text("id").primaryKey(),
  triggerKind: text("trigger_kind", { enum: ["tier", "income_type", "issue", "lender_type"] }).notNull(),
  triggerValue: text("trigger_value").notNull(),
  /** Only for programs of this type; null for every type. */
  lenderType: text("lender_type", { enum: LENDER_TYPES }),
  stip: text("stip")
    .notNull()
    .references(() => stipTypes.stip),
  priority: text("priority", { enum: STIP_PRIORITIES }).notNull(),
  /** A more specific document that stands in for a generic one (a pay stub for proof of income). */
  replaces: text("replaces"),
  /** First day of the year (MM-DD) the rule applies, with `activeUntil`; null: all year (docs/domain/stips.md#w-2-window). */
  activeFrom: text("active_from"),
  /** Last day of the year (MM-DD, inclusive) the rule applies; null: all year. */
  activeUntil: text("active_until"),
});

/** The ranking figures of lender routing (docs/domain/lender-routing.md#ranking): one row, `default`. */
export const lenderRoutingSettings = sqliteTable("lender_routing_settings", {
  id: text("id").primaryKey(),
  /** Calibrated approval at or above this is the top bucket. */
  approvalBucketHigh: real("approval_bucket_high").notNull(),
  /** At or above this (and under the top edge) the middle bucket; under it the low bucket. */
  approvalBucketLow: real("approval_bucket_low").notNull(),
  /** A customer this many points or more over a program's score ceiling is a down-tier placement there. */
  downTierScoreMargin: integer("down_tier_score_margin").notNull(),
  /**
   * Standard-normal z of the approval evidence: a program ranks by the lower bound of its approval
   * posterior, mean − z·sd (docs/domain/lender-routing.md#approval-evidence).
   */
  approvalEvidenceZ: real("approval_evidence_z").notNull().default(1.2816),
  source: text("source").notNull(),
});

/** F&I penetration benchmarks and typical profit: docs/domain/deal-coach.md#fi-penetration-defaults. */
export const fiProducts = sqliteTable("fi_products", {
  product: text("product").primaryKey(),
  label: text("label").notNull(),
  penetrationNew: real("penetration_new").notNull(),
  penetrationUsed: real("penetration_used").notNull(),
  /** Penetration when LTV is over `highLtvPct` (GAP); null: no change. */
  penetrationHighLtv: real("penetration_high_ltv"),
  financedOnly: integer("financed_only", { mode: "boolean" }).notNull(),
  typicalProfit: real("typical_profit").notNull(),
  objection: text("objection").notNull(),
  source: text("source").notNull(),
  /** LTV (percent) above which `penetrationHighLtv` applies. */
  highLtvPct: real("high_ltv_pct"),
});

export const WORD_TRACK_CLAIMS = [
  "owes_more_than_worth",
  "negative_equity_rolled",
  "balance_ahead_of_value",
  "coverage_ends_soon",
  "coverage_ends_later",
  "coverage_ended",
  "coverage_remaining",
  "no_deal_fact",
] as const;

/**
 * Objection word tracks as editable templates (docs/domain/deal-coach.md#word-track-truth-rule).
 * `claim` names the fact of the deal the template states; the coach sends the first track by
 * `rank` whose claim the deal bears out, and none when no track is true.
 */
export const fiWordTracks = sqliteTable("fi_word_tracks", {
  id: text("id").primaryKey(),
  product: text("product")
    .notNull()
    .references(() => fiProducts.product),
  claim: text("claim", { enum: WORD_TRACK_CLAIMS }).notNull(),
  rank: integer("rank").notNull(),
  template: text("template").notNull(),
  source: text("source").notNull(),
});

/** Factory warranty terms and the "ends soon" window (docs/domain/deal-coach.md#factory-warranty-coverage). */
export const factoryWarrantyTerms = sqliteTable("factory_warranty_terms", {
  coverage: text("coverage").primaryKey(),
  label: text("label").notNull(),
  months: integer("months").notNull(),
  miles: integer("miles").notNull(),
  endsSoonMonths: integer("ends_soon_months").notNull(),
  endsSoonMiles: integer("ends_soon_miles").notNull(),
  source: text("source").notNull(),
});
