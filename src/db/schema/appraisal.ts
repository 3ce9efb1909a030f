import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Trade-appraisal reference data (rules: docs/domain/appraisal.md). Rows with a null `org_id` are the shipped
 * defaults (migrations/*_appraisal_reference.sql); a row with an organization's id replaces the
 * default with the same key for that organization only, so a dealer group tunes its appraisals
 * without a deploy.
 */
const orgId = () => text("org_id");

/** One row per organization (null: the defaults). Figures: docs/domain/appraisal.md. */
export const appraisalSettings = sqliteTable(
  "appraisal_settings",
  {
    orgId: orgId(),
    /** Fewer comparable units than this and the depreciation model prices the trade. */
    minComps: integer("min_comps").notNull(),
    /** Sold deals older than this are not comparables. */
    compSoldWithinDays: integer("comp_sold_within_days").notNull(),
    mileageRateFloor: real("mileage_rate_floor").notNull(),
    /** $/mile per $25,000 of base value, for ages 0–3. */
    mileageRatePer25k: real("mileage_rate_per_25k").notNull(),
    mileageFactorAge4To7: real("mileage_factor_age_4_to_7").notNull(),
    mileageFactorAge8Plus: real("mileage_factor_age_8_plus").notNull(),
    /** Most a high mileage takes off, % of the base (docs/domain/appraisal.md#mileage-adjustment-caps). */
    mileageDeductionCapPct: real("mileage_deduction_cap_pct").notNull(),
    highMileageThreshold: integer("high_mileage_threshold").notNull(),
    highMileagePenaltyPct: real("high_mileage_penalty_pct").notNull(),
    residualFloorPct: real("residual_floor_pct").notNull(),
    valueFloor: real("value_floor").notNull(),
    daysToSell: integer("days_to_sell").notNull(),
    negotiationDiscountPct: real("negotiation_discount_pct").notNull(),
    negotiationMinGap: real("negotiation_min_gap").notNull(),
    /** Most a low mileage adds, % of the base. */
    mileageBonusCapPct: real("mileage_bonus_cap_pct").notNull().default(10),
    /** Appraised to wholesale: auction proceeds as % of retail market, less fees and a margin (docs/domain/appraisal.md#appraise-to-wholesale). */
    wholesaleProceedsPct: real("wholesale_proceeds_pct").notNull().default(90),
    wholesaleFees: real("wholesale_fees").notNull().default(500),
    wholesaleMargin: real("wholesale_margin").notNull().default(500),
    /** The least a running unit brings at auction, whatever its market value (docs/domain/appraisal.md#appraise-to-wholesale). */
    wholesaleFloor: real("wholesale_floor").notNull().default(500),
    /**
     * A model whose published five-year loss is under this share of its study's all-vehicle loss,
     * older than the five years the study measured, is priced at low confidence with a manual
     * inspection (docs/domain/appraisal.md#model-retention): collector demand, not a curve, sets its price.
     */
    outlierRetentionRatio: real("outlier_retention_ratio").notNull().default(0.5),
    /**
     * A unit at least this many years old, priced on the curve with no published figure of its own
     * model at its age, is priced at low confidence (docs/domain/appraisal.md#older-units): the audit
     * measured such units at 8–41% under dealer retail, near trade-in value.
     */
    retailCheckAgeYears: integer("retail_check_age_years").notNull().default(10),
    /**
     * Years this engine's age runs ahead of the published studies' (docs/domain/appraisal.md#study-age): their
     * "five-year-old" is a model year sold five calendar years on, which this engine counts as 5.5 years old.
     */
    studyAgeOffsetYears: real("study_age_offset_years").notNull().default(0.5),
  },
  (t) => [index("appraisal_settings_org_idx").on(t.orgId)],
);

/** Recon line items and what each costs; `additional_cost` prices each further occurrence (dings, panels). */
export const appraisalReconItems = sqliteTable(
  "appraisal_recon_items",
  {
    orgId: orgId(),
    itemKey: text("item_key").notNull(),
    label: text("label").notNull(),
    cost: real("cost").notNull(),
    additionalCost: real("additional_cost"),
    maxCount: integer("max_count").notNull().default(1),
    /** Added to every appraisal (the detail). */
    always: integer("always", { mode: "boolean" }).notNull().default(false),
    /** Comma-separated item keys: when one clause names damage of one of them, this line is part of that repair (one damage, one line). */
    includedIn: text("included_in").notNull().default(""),
    /** Set: no retail line; the unit is appraised to wholesale, this % off the auction value (docs/domain/appraisal.md#appraise-to-wholesale). */
    wholesaleDiscountPct: real("wholesale_discount_pct"),
    /** What one occurrence is: `axle` (front and rear are two), `panel` (each panel named is one), '' (the count words say). */
    unit: text("unit").notNull().default(""),
    /** Set: the odometer is not to be believed, so a low mileage earns no bonus (title brands, docs/domain/appraisal.md#title-and-odometer-brands). */
    noMileageBonus: integer("no_mileage_bonus", { mode: "boolean" }).notNull().default(false),
    /** Why the line moves the number, said in the note (the legal reason of a brand). */
    reason: text("reason").notNull().default(""),
    /** Where the figure comes from. */
    source: text("source").notNull().default(""),
  },
  (t) => [index("appraisal_recon_items_org_idx").on(t.orgId)],
);

/**
 * Condition-note keywords (matched at the start of a word, case-insensitive) and the line item each
 * implies. A `weak` keyword (crack, chip) counts only in a clause no other keyword matched, so
 * "rock chips on the hood" is paint, not a windshield.
 */
export const appraisalReconKeywords = sqliteTable(
  "appraisal_recon_keywords",
  {
    orgId: orgId(),
    keyword: text("keyword").notNull(),
    itemKey: text("item_key").notNull(),
    weak: integer("weak", { mode: "boolean" }).notNull().default(false),
    /** The keyword names a part (where), not damage (what): docs/domain/appraisal.md#one-damage-one-line. */
    part: integer("part", { mode: "boolean" }).notNull().default(false),
    /** Set: the keyword means this item only on a unit of this retention class ("battery" on a hybrid is the hybrid battery). */
    retentionClass: text("retention_class").notNull().default(""),
  },
  (t) => [index("appraisal_recon_keywords_org_idx").on(t.orgId)],
);

/** New-price classes: what a vehicle of the class costs new, the base of the depreciation model. */
export const appraisalPriceClasses = sqliteTable(
  "appraisal_price_classes",
  {
    orgId: orgId(),
    classKey: text("class_key").notNull(),
    newPrice: real("new_price").notNull(),
    /** Key into appraisal_retention_classes. */
    retentionClass: text("retention_class").notNull().default("standard"),
    /**
     * A decoded vehicle missing from the model table is priced in the class whose body and fuel it
     * has (docs/domain/appraisal.md#unknown-vehicles); '' matches any. Both '' : never a fallback.
     */
    fallbackBodyClass: text("fallback_body_class").notNull().default(""),
    fallbackFuelType: text("fallback_fuel_type").notNull().default(""),
    /** Whether the step beyond the high-mileage threshold applies (docs/domain/appraisal.md#mileage-adjustment-caps); not for diesel heavy-duty pickups. */
    highMileageStep: integer("high_mileage_step", { mode: "boolean" }).notNull().default(true),
    /** False: no published study measures the class's retention, its curve is borrowed (heavy-duty pickups, full-size vans): low confidence (docs/domain/appraisal.md#borrowed-retention). */
    retentionMeasured: integer("retention_measured", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [index("appraisal_price_classes_org_idx").on(t.orgId)],
);

/** Make and model → price class; model `*` is the make's fallback, make `*` the last resort. */
export const appraisalModelClasses = sqliteTable(
  "appraisal_model_classes",
  {
    orgId: orgId(),
    make: text("make").notNull(),
    model: text("model").notNull(),
    classKey: text("class_key").notNull(),
    /** vPIC's words for the body: `sedan`, `coupe`, `convertible`, `hatchback`, `wagon`, `suv`, `pickup`, `van`, `minivan`; '' unknown. */
    bodyClass: text("body_class").notNull().default(""),
    /** `gas`, `diesel`, `hybrid`, `plug-in`, `electric`; '' as the price class implies. */
    fuelType: text("fuel_type").notNull().default(""),
    /** Comma-separated trims priced far above this row's class with no row of their own ("rubicon", "trd pro"): low confidence (docs/domain/appraisal.md#trims-above-their-class). */
    aboveClassTrims: text("above_class_trims").notNull().default(""),
    /** Set: the row prices only these model years, whose new price stood far from today's (docs/domain/appraisal.md#depreciation-model); null: every year. */
    modelYearFrom: integer("model_year_from"),
    modelYearTo: integer("model_year_to"),
  },
  (t) => [index("appraisal_model_classes_org_idx").on(t.orgId)],
);

/** Residual value (% of new) by whole years of age (docs/domain/appraisal.md#depreciation-curve); fractional ages interpolate. */
export const appraisalRetentionCurve = sqliteTable(
  "appraisal_retention_curve",
  {
    orgId: orgId(),
    ageYears: integer("age_years").notNull(),
    residualPct: real("residual_pct").notNull(),
  },
  (t) => [index("appraisal_retention_curve_org_idx").on(t.orgId)],
);

/** Market index by ZIP prefix (1–5 digits; the longest matching prefix wins; none: 1.00). */
export const appraisalRegionalIndex = sqliteTable(
  "appraisal_regional_index",
  {
    orgId: orgId(),
    zipPrefix: text("zip_prefix").notNull(),
    marketIndex: real("market_index").notNull(),
    label: text("label").notNull(),
  },
  (t) => [index("appraisal_regional_index_org_idx").on(t.orgId)],
);

/**
 * Retention classes (docs/domain/appraisal.md#retention-by-class): the curve's loss × `loss_scale`;
 * `name_words` (comma-separated) in the model or trim put a unit in the class whatever its price class.
 */
export const appraisalRetentionClasses = sqliteTable(
  "appraisal_retention_classes",
  {
    orgId: orgId(),
    retentionClass: text("retention_class").notNull(),
    lossScale: real("loss_scale").notNull(),
    /** False: a low mileage never lifts the unit above its class curve (EVs). */
    lowMileageBonus: integer("low_mileage_bonus", { mode: "boolean" }).notNull().default(true),
    nameWords: text("name_words").notNull().default(""),
    /** Comma-separated fuel types (model table or VIN decode) that put a unit in this class. */
    fuelTypes: text("fuel_types").notNull().default(""),
  },
  (t) => [index("appraisal_retention_classes_org_idx").on(t.orgId)],
);

/** Expected miles a year from an age on (docs/domain/appraisal.md#expected-miles); an organization's rows replace the schedule whole. */
export const appraisalExpectedMiles = sqliteTable(
  "appraisal_expected_miles",
  {
    orgId: orgId(),
    fromAgeYears: real("from_age_years").notNull(),
    milesPerYear: real("miles_per_year").notNull(),
  },
  (t) => [index("appraisal_expected_miles_org_idx").on(t.orgId)],
);

/**
 * A model's (or, with model `*`, its make's; with make and model `*`, all vehicles') published loss at an
 * age (docs/domain/appraisal.md#model-retention): the five-year loss over the same study's all-vehicle
 * loss scales the curve, so figures of different study years compare; the losses at 7 and 10 years, read
 * against the same source's five-year loss, say how the model falls after five.
 */
export const appraisalModelRetention = sqliteTable(
  "appraisal_model_retention",
  {
    orgId: orgId(),
    make: text("make").notNull(),
    model: text("model").notNull(),
    /** The age the loss was measured at: 5 for the five-year studies, 7 or 10 for the longer tables. */
    ageYears: integer("age_years").notNull().default(5),
    pctValueLost: real("pct_value_lost").notNull(),
    /** The same study's all-vehicle five-year loss. */
    overallPctValueLost: real("overall_pct_value_lost").notNull(),
    studyYear: integer("study_year").notNull(),
    /** Who measured it, as the note names it ("iSeeCars", "CarEdge"). */
    publisher: text("publisher").notNull().default("iSeeCars"),
    source: text("source").notNull(),
    quote: text("quote").notNull().default(""),
  },
  (t) => [index("appraisal_model_retention_org_idx").on(t.orgId)],
);

/**
 * How a unit grades at auction and what the grade takes off a clean unit's wholesale value
 * (docs/domain/gross.md#expected-auction-proceeds): `factor_pct` of the clean figure, never above 100.
 */
export const appraisalConditionGrades = sqliteTable(
  "appraisal_condition_grades",
  {
    orgId: orgId(),
    grade: text("grade").notNull(),
    factorPct: real("factor_pct").notNull(),
    source: text("source").notNull().default(""),
  },
  (t) => [index("appraisal_condition_grades_org_idx").on(t.orgId)],
);
