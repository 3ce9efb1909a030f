import { z } from "@hono/zod-openapi";
import { WORD_TRACK_CLAIMS } from "../../db/schema/deal-desk";
import { WHOLESALE_GRADES } from "../../engines/aged-inventory/recommendation";
import { nothingFinancedReason, STANDARD_TERMS } from "../../engines/deal-coach";
import { amountFinanced, type FinancedInputs } from "../../engines/deal-math";
import { DEAL_CONDITIONS, INCOME_TYPES, KNOWN_ISSUES, LENDER_TYPES, VEHICLE_TYPES } from "../../engines/deal-math/vocabulary";
import { dataAsOfFields, freshFeedExample } from "../../http/data-as-of";
import { notFoundResponse } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";

const MAX_USD = 10_000_000;

const Beacon = z.int().min(300).max(850).openapi({ description: "Customer credit score, 300 to 850.", example: 640 });
const Usd = (description: string) =>
  z
    .number()
    .min(0)
    .max(MAX_USD)
    .openapi({ description: `${description} USD.` });
const PositiveUsd = (description: string) =>
  z
    .number()
    .positive()
    .max(MAX_USD)
    .openapi({ description: `${description} USD, above 0.` });
const VehicleType = z.enum(VEHICLE_TYPES);
const Condition = z
  .enum(DEAL_CONDITIONS)
  .default("used")
  .openapi({ description: "Extension. Picks the new or used APR, pack and floor-plan rate. Default `used`." });
const KnownIssues = z
  .array(z.enum(KNOWN_ISSUES))
  .max(KNOWN_ISSUES.length)
  .default([])
  .openapi({ description: "Any of `repo`, `bk7`, `bk13`, `itin`, `thin_file`, `charge_off`.", example: ["bk13"] });
const TermMonths = z
  .int()
  .refine((v) => (STANDARD_TERMS as readonly number[]).includes(v), { message: `term_months must be one of ${STANDARD_TERMS.join(", ")}` })
  .openapi({ description: `${STANDARD_TERMS.slice(0, -1).join(", ")} or ${STANDARD_TERMS.at(-1)}.`, example: 72 });
/** docs/domain/deal-math.md#odd-first-period: a retail installment contract's first payment is 30–45 days out; 1–60 accepted. */
const DAYS_TO_FIRST_PAYMENT_RANGE =
  "days_to_first_payment must be 1 to 60: a retail installment contract's first payment is commonly 30 to 45 days out, and 30 is a regular month";
const DaysToFirstPayment = z
  .int()
  .min(1, { message: DAYS_TO_FIRST_PAYMENT_RANGE })
  .max(60, { message: DAYS_TO_FIRST_PAYMENT_RANGE })
  .default(30)
  .openapi({
    description:
      "Extension. Days from the contract date to the first payment, 1 to 60; default 30 (a regular month). The payment carries the odd first period's interest (Regulation Z Appendix J).",
    example: 45,
  });
const StoreId = z.string().min(1).max(64).optional().openapi({
  description: "The store whose panel, settings and history apply; default the organization's primary store.",
  example: "sto_summit_north",
});

/** The optional deal figures lender routing and stip-check use for the amount financed (docs/domain/deal-math.md#amount-financed). */
const DealFigures = {
  trade_value: Usd(
    "Trade ACV; with `trade_payoff`, the net trade (negative equity is added to the amount financed). Absent: the LTV excludes any trade,",
  ).optional(),
  trade_payoff: Usd("Payoff owed on the trade. Absent with a `trade_value`: the LTV excludes the payoff,").optional(),
  taxes: Usd("Sales tax financed. Absent: the LTV excludes taxes,").optional(),
  fees: Usd("Title, registration and dealer fees financed. Absent: the LTV excludes them,").optional(),
};

interface FinancedFields {
  vehicle_price?: number;
  down_payment?: number;
  trade_value?: number;
  trade_payoff?: number;
  taxes?: number;
  fees?: number;
}

/** The request's deal figures as the engine's amount-financed inputs (docs/domain/deal-math.md#amount-financed); no cash down is 0. */
export const financedInputs = (body: FinancedFields & { vehicle_price: number }): FinancedInputs => ({
  vehiclePrice: body.vehicle_price,
  downPayment: body.down_payment ?? 0,
  tradeValue: body.trade_value,
  tradePayoff: body.trade_payoff,
  taxes: body.taxes,
  fees: body.fees,
});

/**
 * Nothing to finance is a 422 naming the fields that cover the price, never a rate and term
 * (docs/domain/deal-math.md#nothing-to-finance): price − cash down − net trade + taxes + fees ≤ 0.
 */
const somethingToFinance = (body: FinancedFields, ctx: z.RefinementCtx) => {
  if (body.vehicle_price === undefined) return;
  const { amount, tradeEquity } = amountFinanced(financedInputs({ ...body, vehicle_price: body.vehicle_price }));
  if (amount > 0) return;
  const down = body.down_payment ?? 0;
  const covering = tradeEquity > 0 ? `cash down ${down} and trade equity ${tradeEquity}` : `cash down ${down}`;
  const message = `nothing to finance: ${covering} cover the ${body.vehicle_price} price with taxes and fees (amount financed ${amount}); a cash deal gets no rate or term`;
  ctx.addIssue({ code: "custom", path: ["down_payment"], message });
  if (tradeEquity > 0) ctx.addIssue({ code: "custom", path: ["trade_value"], message });
};

// ---------------------------------------------------------------------------------------------
// lender-route

export const LenderRouteRequestSchema = z
  .strictObject({
    beacon: Beacon,
    down_payment: Usd("Cash down,"),
    vehicle_price: PositiveUsd("Selling price,"),
    vehicle_type: VehicleType,
    known_issues: KnownIssues,
    term_months: TermMonths.optional(),
    condition: Condition,
    book_value: PositiveUsd("Extension. Book retail the LTV is measured against; default vehicle_price,").optional(),
    monthly_income: PositiveUsd("Extension. Gross monthly income; enables each program's payment-to-income cap,").optional(),
    vehicle_year: z.int().min(1980).max(2100).optional().openapi({ description: "Extension. Model year; checks each program's vehicle-age limit." }),
    mileage: z.int().min(0).max(1_000_000).optional().openapi({ description: "Extension. Odometer; checks each program's mileage limit." }),
    days_to_first_payment: DaysToFirstPayment,
    ...DealFigures,
    store_id: StoreId,
  })
  .superRefine(somethingToFinance)
  .openapi("DealDeskLenderRouteRequest", {
    example: { beacon: 612, down_payment: 2500, vehicle_price: 21995, vehicle_type: "suv", known_issues: ["charge_off"], term_months: 72 },
  });

const LenderPickSchema = z
  .object({
    lender: z.string(),
    lender_id: z.string(),
    lender_type: z.enum(LENDER_TYPES),
    rate_range: z.string().openapi({ description: "Tier APR plus program margin and issue add-ons, ± the tier spread.", example: "12.24% - 15.24%" }),
    expected_rate: z.number().openapi({ description: "The customer's expected contract rate here, percent (the middle of `rate_range`)." }),
    confidence: z.number().min(0).max(1).openapi({ description: "Calibrated approval likelihood, 0 to 1." }),
    approval_evidence: z.number().min(0).max(1).openapi({
      description:
        "The lower bound of the approval likelihood given how many decisions stand behind it (docs/domain/lender-routing.md#approval-evidence): what the ranking reads.",
      example: 0.66,
    }),
    approval_bucket: z
      .enum(["high", "medium", "low"])
      .openapi({ description: "The coarse bucket of `approval_evidence` the ranking uses first (default edges 0.8 and 0.5)." }),
    down_tier: z
      .boolean()
      .openapi({ description: "A down-tier placement: prime paper at a lender far below it; never primary while an in-tier program approves." }),
    program_fit: z.number().openapi({ description: "The prior: program fit before the store's history." }),
    history: z
      .object({ approved: z.number(), countered: z.number(), declined: z.number() })
      .openapi({ description: "This store's decisions from the lender in the deal's score band." }),
    term_months: z.int(),
    funding_days: z.int(),
    stip_burden_hours: z.number(),
    reasons: z.array(z.string()),
  })
  .nullable()
  .openapi("DealDeskLenderPick");

export const LenderRouteResultSchema = z
  .object({
    primary: LenderPickSchema,
    backup: LenderPickSchema,
    avoid: z.array(z.string()),
    avoid_reason: z.string().openapi({ description: "Each rule that knocked lenders out, with the lenders it knocked out." }),
    avoid_details: z
      .array(z.object({ lender: z.string(), rule: z.string(), reason: z.string() }))
      .openapi({ description: "Per avoided lender, the first rule it broke." }),
    predicted_stips: z.array(z.string()),
    routing_note: z.string(),
    tier: z.string(),
    ltv: z.number().openapi({ description: "Amount financed ÷ book value, percent." }),
    amount_financed: z.number().openapi({ description: "Price − cash down − net trade (negative equity added) + taxes + fees, as supplied." }),
    negative_equity: z.number().openapi({ description: "Trade payoff over its value, rolled into the amount financed." }),
    ltv_excludes: z
      .array(z.enum(["trade", "trade payoff", "trade value", "taxes", "title and fees"]))
      .openapi({ description: "The inputs the request did not supply, which the LTV therefore leaves out." }),
    term_options: z.array(z.object({ term_months: z.int(), lenders: z.array(z.string()) })).openapi({
      description:
        "When the requested `term_months` knocked programs out: each shorter term they write, longest first, with the programs that approve at it (docs/domain/lender-routing.md#term-limits). Empty otherwise.",
      example: [{ term_months: 48, lenders: ["Riverbend Community Credit Union", "Union Rail Credit Union"] }],
    }),
    panel_size: z.int(),
    store_id: z.string(),
    outcome_changes: z.array(z.object({ lender: z.string(), lender_id: z.string(), since: z.iso.date(), summary: z.string() })).openapi({
      description:
        "Panel programs whose approvals at this store fell below their own baseline beyond chance (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions), open until they recover: each such program that fits is ranked on its recent approvals and named in the note.",
      example: [
        {
          lender: "Keystone National Bank Prime",
          lender_id: "lp_bank_prime_1",
          since: "2026-11-29",
          summary: "Approvals at Keystone National Bank Prime fell from 78% to 41% over the last 30 days, 17 decisions (against 50 before)",
        },
      ],
    }),
    ...dataAsOfFields,
  })
  .openapi("DealDeskLenderRouteResult", {
    example: {
      primary: {
        lender: "Keystone Auto Finance",
        lender_id: "lp_keystone_auto_finance",
        lender_type: "subprime",
        rate_range: "18.99% - 22.99%",
        expected_rate: 20.99,
        confidence: 0.78,
        approval_evidence: 0.72,
        approval_bucket: "medium",
        down_tier: false,
        program_fit: 0.69,
        history: { approved: 41, countered: 6, declined: 7 },
        term_months: 72,
        funding_days: 7,
        stip_burden_hours: 20.5,
        reasons: ["program fit 0.69: score 612 vs minimum 500, LTV 88.6% vs 125% maximum, 1 known issue(s)"],
      },
      backup: null,
      avoid: ["Harbor Point Bank"],
      avoid_reason: "score 612 under the program minimum: Harbor Point Bank",
      avoid_details: [{ lender: "Harbor Point Bank", rule: "score_below_minimum", reason: "score 612 is under its 660 minimum" }],
      predicted_stips: ["Proof of residence", "Proof of income", "References", "Proof of insurance", "Driver's license"],
      routing_note: "612 near prime, LTV 88.6%, charge_off: 9 of 42 panel programs fit. Send to Keystone Auto Finance first …",
      tier: "near_prime",
      ltv: 88.6,
      amount_financed: 19495,
      negative_equity: 0,
      ltv_excludes: ["trade", "taxes", "title and fees"],
      term_options: [],
      panel_size: 42,
      store_id: "sto_summit_north",
      outcome_changes: [],
      data_as_of: [freshFeedExample("deals", "2026-11-29T05:10:00.000Z", 2.3)],
      data_warnings: [],
    },
  });

// ---------------------------------------------------------------------------------------------
// stip-check

export const StipCheckRequestSchema = z
  .strictObject({
    lender: z
      .string()
      .trim()
      .min(1)
      .max(120)
      .openapi({ description: "A lender program's name (case-insensitive).", example: "Fresh Start Auto Lending" }),
    beacon: Beacon,
    known_issues: KnownIssues,
    income_type: z.enum(INCOME_TYPES).optional(),
    vehicle_price: PositiveUsd("Selling price; with it the answer states the deal's amount financed and LTV,").optional(),
    down_payment: Usd("Cash down, default 0,").optional(),
    book_value: PositiveUsd("Book retail the LTV is measured against; default vehicle_price,").optional(),
    vehicle_type: VehicleType.optional().openapi({
      description:
        "With `vehicle_price`: the lender's LTV maximum includes the vehicle type's add (trucks and SUVs +5 points, docs/domain/lender-routing.md#vehicle-type-adjustments). Default: the program's own maximum.",
      example: "truck",
    }),
    ...DealFigures,
    store_id: StoreId,
  })
  .superRefine((body, ctx) => {
    if (body.vehicle_price !== undefined) return somethingToFinance(body, ctx);
    for (const field of ["down_payment", "book_value", "vehicle_type", "trade_value", "trade_payoff", "taxes", "fees"] as const) {
      if (body[field] !== undefined)
        ctx.addIssue({ code: "custom", path: [field], message: `${field} needs vehicle_price (the LTV is measured on the price)` });
    }
  })
  .openapi("DealDeskStipCheckRequest", { example: { lender: "Fresh Start Auto Lending", beacon: 548, known_issues: ["bk13"], income_type: "w2" } });

const StipCheckResultSchema = z
  .object({
    lender: z.string(),
    lender_type: z.enum(LENDER_TYPES),
    required_stips: z.array(
      z.object({
        stip: z.string(),
        priority: z.enum(["required", "likely"]),
        reason: z.string().openapi({ description: "What asked for it: program, tier:…, income:…, issue:…, lender_type:…" }),
        turnaround_hours: z.number().openapi({ description: "Typical hours for a customer to produce it." }),
      }),
    ),
    submission_tip: z.string(),
    avg_turnaround_hours: z.number(),
    turnaround_source: z.enum(["store_history", "program_default"]),
    amount_financed: z.number().nullable().openapi({ description: "With `vehicle_price`: the amount financed; else null." }),
    ltv: z.number().nullable().openapi({ description: "With `vehicle_price`: amount financed ÷ book value, percent; else null." }),
    ltv_excludes: z.array(z.string()).openapi({ description: "The inputs the LTV leaves out because the request did not supply them." }),
    max_ltv: z.number().nullable().openapi({
      description: "With `vehicle_price`: the lender's LTV maximum for this vehicle, percent (at it is inside); else null.",
      example: 125,
    }),
    down_payment_needed: z.int().nullable().openapi({
      description:
        "With `vehicle_price`: the cash down (USD, whole dollars up) that brings the LTV to the lender's maximum; 0 when inside it, null without a price.",
      example: 0,
    }),
    store_id: z.string(),
    ...dataAsOfFields,
  })
  .openapi("DealDeskStipCheckResult", {
    example: {
      lender: "Fresh Start Auto Lending",
      lender_type: "specialty",
      required_stips: [{ stip: "Trustee permission letter", priority: "required", reason: "issue:bk13", turnaround_hours: 120 }],
      submission_tip: "Fresh Start Auto Lending (specialty lender) on 548 (subprime), an open Chapter 13, w2 income: have all 7 required stips …",
      avg_turnaround_hours: 151.2,
      turnaround_source: "store_history",
      amount_financed: null,
      ltv: null,
      ltv_excludes: [],
      max_ltv: null,
      down_payment_needed: null,
      store_id: "sto_summit_north",
      data_as_of: [freshFeedExample("deals", "2026-11-29T05:10:00.000Z", 2.3)],
      data_warnings: [],
    },
  });

// ---------------------------------------------------------------------------------------------
// gross-calc

export const GrossCalcRequestSchema = z
  .strictObject({
    purchase_price: PositiveUsd("What the store paid (ACV or invoice),"),
    selling_price: PositiveUsd("Selling price,"),
    vehicle_type: VehicleType.default("car").openapi({ description: "Default `car`; selects the store's recon allocation." }),
    days_on_lot: z.int().min(0).max(3650).default(0).openapi({ description: "Days since acquisition, default 0." }),
    condition: Condition,
    market_value: PositiveUsd("Retail market value of the unit, optional: without it the market is estimated from cost;").optional(),
    condition_grade: z.enum(WHOLESALE_GRADES).default("good").openapi({
      description:
        "How a pre-owned unit would grade at auction, default `good` (clean): `fair` brings 8% less wholesale, `poor` 18% less (docs/domain/gross.md#expected-auction-proceeds). Informational for a new unit, which is never wholesaled.",
      example: "fair",
    }),
    store_id: StoreId,
  })
  .openapi("DealDeskGrossCalcRequest", { example: { purchase_price: 18500, selling_price: 22995, vehicle_type: "suv", days_on_lot: 52 } });

const GrossCalcResultSchema = z
  .object({
    true_cost: z.number(),
    holding_cost_allocated: z.number(),
    pack: z.number(),
    front_gross: z.number(),
    front_gross_pct: z.number(),
    pricing_recommendation: z.string(),
    aged_flag: z.boolean(),
    breakdown: z.object({
      purchase_price: z.number(),
      recon: z.number(),
      floor_plan_interest: z.number(),
      floor_plan_assistance: z.number().openapi({
        description:
          "Floor-plan assistance or holdback the store states, credited against a new unit's interest (0 for used; docs/domain/gross.md#holding-cost).",
      }),
      daily_holding: z
        .number()
        .openapi({ description: "The rest of the holding cost: used, the all-in figure less the interest; new, the store's overhead figure." }),
      pack: z.number(),
    }),
    daily_carrying_cost: z.number(),
    target_front_gross: z.number(),
    aged_threshold_days: z.int(),
    market_value: z.number().openapi({ description: "The market value the advice uses: the one sent, or an estimate from cost and age." }),
    market_value_source: z.enum(["request", "estimate"]),
    aging_stage: z.enum(["fresh", "watch", "aged", "wholesale"]).openapi({
      description:
        "fresh < 30 days; watch 30 days to the aged threshold; aged; wholesale (used units only). Rules: docs/domain/gross.md#aging-conventions.",
    }),
    owner: z.enum(["used_car_manager", "new_car_manager"]),
    expected_auction_proceeds: z.number().nullable().openapi({
      description:
        "Wholesale value today (market × the store's wholesale ratio, less for a rough grade, × the value curve at this age) less auction and transport fees; always under the market (docs/domain/gross.md#expected-auction-proceeds). Null for a new unit, never wholesaled.",
    }),
    store_id: z.string(),
  })
  .openapi("DealDeskGrossCalcResult", {
    example: {
      true_cost: 22120,
      holding_cost_allocated: 1820,
      pack: 500,
      front_gross: 875,
      front_gross_pct: 3.81,
      pricing_recommendation:
        "Aged: 52 days (aged at 45). Reprice to $22,495 (toward market $22,500, not above the $22,995 asking price) to turn it in the 8 days before its 60-day wholesale review; each more day costs $35 to hold. True cost $22,120, front gross $875 at $22,995 (market estimated at $22,500 from cost; send market_value for a better answer).",
      aged_flag: true,
      breakdown: { purchase_price: 18500, recon: 1300, floor_plan_interest: 224.03, floor_plan_assistance: 0, daily_holding: 1595.97, pack: 500 },
      daily_carrying_cost: 35,
      target_front_gross: 1839.6,
      aged_threshold_days: 45,
      market_value: 22500,
      market_value_source: "estimate",
      aging_stage: "aged",
      owner: "used_car_manager",
      expected_auction_proceeds: 17175,
      store_id: "sto_summit_north",
    },
  });

// ---------------------------------------------------------------------------------------------
// deal-coach

/** docs/domain/deal-coach.md#nothing-financed: a cash deal gets a 422 naming the fields that cover the price. */
const somethingFinanced = (
  body: {
    vehicle_price: number;
    down_payment: number;
    trade_value: number;
    trade_payoff: number;
    condition: string;
    certified: boolean;
    warranty_months_left?: number;
    warranty_miles_left?: number;
  },
  ctx: z.RefinementCtx,
) => {
  // docs/domain/deal-coach.md#certified-and-remaining-warranty: a track states the warranty left only with both figures.
  if ((body.warranty_months_left === undefined) !== (body.warranty_miles_left === undefined)) {
    const missing = body.warranty_months_left === undefined ? "warranty_months_left" : "warranty_miles_left";
    ctx.addIssue({
      code: "custom",
      path: [missing],
      message: "warranty_months_left and warranty_miles_left come together: a warranty ends at whichever runs out first",
    });
  }
  if (body.certified && body.condition === "new") {
    ctx.addIssue({ code: "custom", path: ["certified"], message: 'a certified pre-owned unit is used: send condition "used" with certified true' });
  }
  const reason = nothingFinancedReason({
    vehiclePrice: body.vehicle_price,
    downPayment: body.down_payment,
    tradeValue: body.trade_value,
    tradePayoff: body.trade_payoff,
  });
  if (reason === null) return;
  const fields = body.trade_value > body.trade_payoff ? ["down_payment", "trade_value"] : ["down_payment"];
  for (const field of fields) ctx.addIssue({ code: "custom", path: [field], message: reason });
};

export const DealCoachRequestSchema = z
  .strictObject({
    beacon: Beacon,
    vehicle_price: PositiveUsd("Asking price,"),
    trade_value: Usd("Trade ACV, default 0;").default(0),
    trade_payoff: Usd("Payoff owed on the trade, default 0;").default(0),
    down_payment: Usd("Cash down, default 0;").default(0),
    desired_payment: PositiveUsd("The monthly payment the customer wants,").optional(),
    term_months: TermMonths.optional(),
    condition: Condition,
    vehicle_cost: PositiveUsd("Extension. The unit's cost; default: the asking price carries the target front gross,").optional(),
    vehicle_year: z.int().min(1980).max(2100).optional().openapi({
      description:
        "Extension. Model year: the lender programs' age limits and term ladders for the pencil's term (docs/domain/deal-coach.md#program-limits; a used unit without it is penciled at the terms that need no age), and, with `mileage`, when factory coverage ends.",
      example: 2023,
    }),
    mileage: z.int().min(0).max(1_000_000).optional().openapi({
      description:
        "Extension. Odometer: the lender programs' mileage limits and term ladders for the pencil's term (a used unit without it is penciled at the terms that need no mileage), and, with `vehicle_year`, when factory coverage ends.",
      example: 28_500,
    }),
    certified: z.boolean().default(false).openapi({
      description:
        "Extension. A certified pre-owned unit (condition `used`): it carries a CPO warranty, so no word track tells the buyer its coverage is over.",
      example: true,
    }),
    warranty_months_left: z.int().min(0).max(240).optional().openapi({
      description:
        "Extension. Months of factory or CPO warranty the unit has left (with `warranty_miles_left`); the service-contract track states them.",
      example: 48,
    }),
    warranty_miles_left: z.int().min(0).max(1_000_000).optional().openapi({
      description: "Extension. Miles of factory or CPO warranty the unit has left (with `warranty_months_left`).",
      example: 50_000,
    }),
    days_to_first_payment: DaysToFirstPayment,
    finance_charge_fees: Usd(
      "Extension. Fees financed that are finance charges under Regulation Z (12 CFR 1026.4), e.g. a lender's acquisition fee: added to the note, not to the amount financed, so the APR disclosed is above the note rate. Default 0;",
    ).default(0),
    store_id: StoreId,
  })
  .superRefine(somethingFinanced)
  .openapi("DealDeskCoachRequest", {
    example: { beacon: 688, vehicle_price: 32995, trade_value: 14000, trade_payoff: 17500, down_payment: 2000, desired_payment: 550 },
  });

export const DealCoachResultSchema = z
  .object({
    recommended_pencil: z.object({
      selling_price: z.number(),
      rate: z.number().openapi({ description: "Contract APR, percent: buy rate plus a markup within the cap." }),
      buy_rate: z.number(),
      term: z.int(),
      payment: z.number().openapi({ description: "Each payment but the last, to the cent, with the first period's interest." }),
      final_payment: z.number().openapi({ description: "The last payment, which pays the balance off to the cent." }),
      days_to_first_payment: z.int(),
      apr: z.number().openapi({
        description:
          "Annual percentage rate by 12 CFR 1026 Appendix J (actuarial) on the amount financed: the note rate unless finance-charge fees are financed.",
      }),
      amount_financed: z.number().openapi({ description: "Price − cash down − trade equity (negative equity added), before tax, title and fees." }),
      principal: z.number().openapi({ description: "What the note carries: amount financed + finance-charge fees." }),
      finance_charge: z.number().openapi({ description: "Total of payments − amount financed." }),
      total_of_payments: z.number(),
      front_gross: z.number(),
      back_gross_target: z.number(),
    }),
    trade_equity: z.number(),
    ltv: z.number(),
    tier: z.string(),
    desired_payment_met: z.boolean().nullable(),
    fi_products: z.array(
      z.object({
        product: z.string(),
        label: z.string(),
        penetration_rate: z.number(),
        typical_profit: z.number(),
        objection: z.string().openapi({ description: "The objection in quotes, then its word track, or why no track is true for this deal." }),
        word_track: z
          .string()
          .nullable()
          .openapi({ description: "The track sent: it states facts of this deal or none. Null when no track is true." }),
        word_track_claim: z
          .enum(WORD_TRACK_CLAIMS)
          .nullable()
          .openapi({ description: "The fact of the deal the track states (`no_deal_fact`: none)." }),
      }),
    ),
    funding_risk: z.enum(["low", "medium", "high"]),
    risk_reasons: z.array(z.string()),
    notes: z.string(),
    store_id: z.string(),
  })
  .openapi("DealDeskCoachResult", {
    example: {
      recommended_pencil: {
        selling_price: 32995,
        rate: 10.06,
        buy_rate: 9.06,
        term: 84,
        payment: 573.73,
        final_payment: 573.47,
        days_to_first_payment: 30,
        apr: 10.06,
        amount_financed: 34495,
        principal: 34495,
        finance_charge: 13698.06,
        total_of_payments: 48193.06,
        front_gross: 2639.6,
        back_gross_target: 1800,
      },
      trade_equity: -3500,
      ltv: 104.5,
      tier: "prime",
      desired_payment_met: false,
      fi_products: [
        {
          product: "vsc",
          label: "Vehicle service contract",
          penetration_rate: 0.48,
          typical_profit: 1000,
          objection: '"I never buy warranties." Totally fair. Once factory coverage runs out, …',
          word_track: "Totally fair. Once factory coverage runs out, …",
          word_track_claim: "no_deal_fact",
        },
      ],
      funding_risk: "medium",
      risk_reasons: ["$3,500 negative equity rolled into the loan"],
      notes: "Trade is $3,500 upside down …",
      store_id: "sto_summit_north",
    },
  });

// ---------------------------------------------------------------------------------------------
// Routes

const dealToolResponses = (description: string, schema: z.ZodType) => ({
  200: { description, content: { "application/json": { schema } } },
  ...notFoundResponse,
});

export const routeLender = v1Route({
  method: "post",
  path: "/api/v1/lender-route",
  operationId: "routeLender",
  tags: ["Deal desk"],
  summary: "Route a deal to the store's best-fitting lenders",
  description:
    "Filters the store's lender panel by hard rules (score band, LTV on the whole amount financed — trade, negative equity, taxes and fees when given —, down payment, term, known issues, vehicle age/mileage, payment-to-income), then ranks the rest by approval likelihood calibrated to the store's own decisions (Beta-Binomial) in coarse buckets (≥ 0.8 / 0.5–0.8 / < 0.5), then the customer's expected rate, then days to fund, then stip burden. A down-tier placement (prime paper at a subprime or BHPH lender, or a score 40+ over the program's ceiling) is never primary while an in-tier program approves with ≥ 0.5; when it is, the note says why. Nothing to finance (cash down and trade equity cover the price): 422. A field the body does not declare: 422 naming it. `store_id` of another organization: 404. Rules: docs/domain/lender-routing.md.",
  endpoint: "lender-route",
  body: true,
  reads: "nearest-replica",
  request: { body: { required: true, content: { "application/json": { schema: LenderRouteRequestSchema } } } },
  responses: dealToolResponses("Primary and backup lender, lenders to avoid and why, predicted stips.", LenderRouteResultSchema),
});

export const checkStips = v1Route({
  method: "post",
  path: "/api/v1/stip-check",
  operationId: "checkStips",
  tags: ["Deal desk"],
  summary: "Predict the stips a lender will ask for on a profile",
  description:
    "The lender must be a known program (422 with the closest names otherwise). Stips come from the editable trigger matrix (a seasonal rule, like the prior-year W-2 from Jan 1 to Apr 15, only in its window); turnaround is the store's own average with the lender when it has at least 3 timed submissions, else the program default. With `vehicle_price` the answer states the deal's amount financed and LTV. A field the body does not declare: 422 naming it. Rules: docs/domain/stips.md.",
  endpoint: "stip-check",
  body: true,
  reads: "nearest-replica",
  request: { body: { required: true, content: { "application/json": { schema: StipCheckRequestSchema } } } },
  responses: dealToolResponses("Stips with priorities, a submission tip and the expected turnaround.", StipCheckResultSchema),
});

export const calculateGross = v1Route({
  method: "post",
  path: "/api/v1/gross-calc",
  operationId: "calculateGross",
  tags: ["Deal desk"],
  summary: "True-cost front gross of a unit at a selling price",
  description:
    "True cost = purchase price + the store's recon allocation for the vehicle type + holding cost for the days on lot (floor-plan interest at the store's APR plus its daily holding cost) + the store's pack.",
  endpoint: "gross-calc",
  body: true,
  reads: "nearest-replica",
  request: { body: { required: true, content: { "application/json": { schema: GrossCalcRequestSchema } } } },
  responses: dealToolResponses("True cost, front gross and a pricing recommendation.", GrossCalcResultSchema),
});

export const coachDeal = v1Route({
  method: "post",
  path: "/api/v1/deal-coach",
  operationId: "coachDeal",
  tags: ["Deal desk"],
  summary: "A first pencil, F&I menu and funding risk for a deal",
  description:
    "Trade equity, amount financed, the tier's buy rate plus a markup within the reserve cap, and a term and price that reach the desired payment when they can (else what it would take); payment by the amortization formula to the cent. F&I word tracks state facts of this deal or none. When cash down and trade equity cover the price nothing is financed: 422 naming `down_payment` (and `trade_value`), no rate, term or payment. Too little financed for level payments rounded to the cent to carry (a $1 loan over 24 months would pay 23 × $0.05 and a last of −$0.01; docs/domain/deal-math.md#smallest-amount-financed): 422 on `down_payment`, code `too_small_to_finance`, naming the smallest amount the pencil's rate and term carry. When no lender program on the store's panel writes the deal: the buy rate over the tier's shortest term, funding risk high, and the note says to desk it as cash or outside financing.",
  endpoint: "deal-coach",
  body: true,
  reads: "nearest-replica",
  request: { body: { required: true, content: { "application/json": { schema: DealCoachRequestSchema } } } },
  responses: dealToolResponses("The recommended pencil, products with word tracks and funding risk.", DealCoachResultSchema),
});
