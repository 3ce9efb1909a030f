/**
 * Golden scenarios for the deal coach, stated as an F&I director would. Each names the rule of
 * docs/domain/deal-coach.md that decides it. Deals go through the Worker, so the word tracks and
 * warranty terms come from the shipped D1 rows.
 */
import type { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type CoachInput, coachDeal } from "../../src/engines/deal-coach";
import { formatUsd } from "../../src/engines/format";
import type { DealCoachResultSchema } from "../../src/routes/deal-desk/deal-desk.routes";
import type { ErrorBody } from "../helpers/bodies";
import { coachReferenceWithCurve, createDeskOrg, post } from "../helpers/deal-desk";
import { COACH_REFERENCE } from "../helpers/deal-desk-reference";

type Coached = z.infer<typeof DealCoachResultSchema>;

const RULES = "docs/domain/deal-coach.md";
/** Engine-level cases fix the clock; HTTP cases run on today's date, so their model years are relative. */
const NOW = new Date("2026-11-26T12:00:00Z");
const YEAR = new Date().getUTCFullYear();

/**
 * A two-year-old unit at 24,000 miles: every program's term ladder writes the tier's terms on it
 * (docs/domain/deal-coach.md#program-limits), for cases about structure rather than the vehicle.
 */
const DESCRIBED = { vehicle_year: YEAR - 2, mileage: 24_000 };

/** The panel: Harbor Point Bank alone unless a case names others, or "all" for the whole catalogue. */
async function coach(body: Record<string, unknown>, panel: string[] | "all" = ["lp_harbor_point_bank"]) {
  const { key } = await createDeskOrg({ programIds: panel === "all" ? undefined : panel });
  const res = await post("/api/v1/deal-coach", key, body);
  return { status: res.status, json: await res.json<Coached & ErrorBody>() };
}
async function coached(body: Record<string, unknown>, panel?: string[] | "all"): Promise<Coached> {
  const { status, json } = await coach(body, panel);
  expect(status, JSON.stringify(json)).toBe(200);
  return json;
}
const product = (result: Pick<Coached, "fi_products">, name: string) => {
  const found = result.fi_products.find((p) => p.product === name);
  if (!found) throw new Error(`no ${name} on the menu`);
  return found;
};

describe(`word tracks state facts of this deal or none (${RULES}#word-track-truth-rule)`, () => {
  it("a deal with $3,000 of trade equity at 83% LTV never tells the customer they owe more than the car is worth", async () => {
    const result = await coached({ beacon: 720, vehicle_price: 30_000, trade_value: 10_000, trade_payoff: 7000, down_payment: 2100 });
    expect(result.ltv).toBe(83);
    const gap = product(result, "gap");
    expect(gap.objection).not.toMatch(/more than (the car|it)('s| is) worth|owe more/i);
    expect(gap.word_track).toBeNull();
    expect(gap.objection).toContain("No word track: none is true for this deal (LTV 83% is not over 100%; the trade carries no negative equity;");
  });

  it("a $3,500 upside-down trade at 104.5% LTV: the GAP track says they'd owe $1,500 more than the car is worth", async () => {
    const result = await coached({ beacon: 688, vehicle_price: 32_995, trade_value: 14_000, trade_payoff: 17_500, down_payment: 2000 });
    const gap = product(result, "gap");
    expect(gap.word_track_claim).toBe("owes_more_than_worth");
    expect(gap.word_track).toContain("you'd owe $34,495 on a $32,995 car, $1,500 more than it's worth today (LTV 104.5%)");
  });

  it("$4,000 of negative equity under a $9,000 down payment (83% LTV) is named as the rolled-in trade balance, never 'more than it's worth'", async () => {
    const result = await coached({ beacon: 720, vehicle_price: 30_000, trade_value: 6000, trade_payoff: 10_000, down_payment: 9000 });
    const gap = product(result, "gap");
    expect(gap.word_track_claim).toBe("negative_equity_rolled");
    expect(gap.word_track).toContain("the $4,000 still owed on your trade is rolled into this loan");
    expect(gap.word_track).not.toMatch(/worth today|owe more/);
  });

  it("a used car financed at exactly its price (100% LTV) never hears 'more than it's worth'; without its model year, no GAP track", async () => {
    const result = await coached({ beacon: 720, vehicle_price: 30_000 });
    expect(result.ltv).toBe(100);
    expect(product(result, "gap").word_track).toBeNull();
  });

  it("a new $38,000 car financed in full over 84 months: GAP shows about $33,738 still owed a year in against about $31,920 average value", async () => {
    const result = await coached({ beacon: 760, vehicle_price: 38_000, condition: "new", term_months: 84 });
    const gap = product(result, "gap");
    expect(gap.word_track_claim).toBe("balance_ahead_of_value");
    expect(gap.word_track).toContain(
      "a year into this 84-month loan you'd still owe about $33,738, while a car like this is worth about $31,920 by then on average",
    );
    expect(gap.word_track).not.toMatch(/more than it's worth|owe more/);
  });

  it("the same car with $8,000 down over 60 months stays ahead of its balance: no GAP track", async () => {
    const gap = product(await coached({ beacon: 760, vehicle_price: 38_000, condition: "new", down_payment: 8000, term_months: 60 }), "gap");
    expect(gap.word_track).toBeNull();
    expect(gap.objection).toContain("a year in, the balance ($24,884) is not above the car's average value ($31,920)");
  });
});

describe(`the service-contract track and factory coverage (${RULES}#factory-warranty-coverage)`, () => {
  it("a leftover new car from two model years back still starts its factory coverage at delivery: nothing 'ends soon'", async () => {
    const vsc = product(await coached({ beacon: 760, vehicle_price: 41_000, condition: "new", vehicle_year: YEAR - 2, mileage: 15 }), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ends_later");
    expect(vsc.word_track).toContain("after the factory coverage ends at 3 years/36,000 miles");
  });

  it("a seven-year-old car with 72,000 miles is never told its factory coverage 'ends soon': it is past it", async () => {
    const vsc = product(await coached({ beacon: 720, vehicle_price: 16_000, vehicle_year: YEAR - 7, mileage: 72_000 }), "vsc");
    expect(vsc.objection).not.toMatch(/ends soon|ends in about/);
    expect(vsc.word_track_claim).toBe("coverage_ended");
    expect(vsc.word_track).toContain(
      "At 72,000 miles this car is past its factory coverage (3 years/36,000 miles bumper-to-bumper, 5 years/60,000 miles powertrain)",
    );
  });

  it("a used car with no year or mileage on the desk gets a service-contract track with no coverage-timing claim", async () => {
    const vsc = product(await coached({ beacon: 720, vehicle_price: 24_000 }), "vsc");
    expect(vsc.word_track_claim).toBe("no_deal_fact");
    expect(vsc.objection).not.toMatch(/ends soon|ends in about|ends at|past its factory/);
  });

  it("a brand-new car hears 'after the factory coverage ends at 3 years/36,000 miles', not 'ends soon'", async () => {
    const vsc = product(await coached({ beacon: 760, vehicle_price: 38_000, condition: "new" }), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ends_later");
    expect(vsc.word_track).toContain("after the factory coverage ends at 3 years/36,000 miles");
    expect(vsc.objection).not.toMatch(/ends soon|ends in about/);
  });

  it("a two-year-old car with 30,000 miles hears its bumper-to-bumper coverage ends soon: 6,000 miles left", async () => {
    const vsc = product(await coached({ beacon: 720, vehicle_price: 27_000, vehicle_year: YEAR - 2, mileage: 30_000 }), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ends_soon");
    expect(vsc.word_track).toMatch(/factory bumper-to-bumper coverage \(3 years\/36,000 miles\) ends in about \d+ months? or 6,000 miles/);
  });

  it("a one-year-old car is inside the 12,000-mile window at 24,000 miles ('ends soon') and outside it at 23,999 ('after it ends')", async () => {
    const at = product(await coached({ beacon: 720, vehicle_price: 29_000, vehicle_year: YEAR - 1, mileage: 24_000 }), "vsc");
    expect(at.word_track_claim).toBe("coverage_ends_soon");
    expect(at.word_track).toContain("or 12,000 miles");
    const outside = product(await coached({ beacon: 720, vehicle_price: 29_000, vehicle_year: YEAR - 1, mileage: 23_999 }), "vsc");
    expect(outside.word_track_claim).toBe("coverage_ends_later");
    expect(outside.word_track).toContain("after the factory coverage ends at 3 years/36,000 miles");
  });

  it("a four-year-old car with 45,000 miles is past bumper-to-bumper; it is the powertrain coverage that ends soon", async () => {
    const vsc = product(await coached({ beacon: 720, vehicle_price: 21_000, vehicle_year: YEAR - 4, mileage: 45_000 }), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ends_soon");
    expect(vsc.word_track).toMatch(/factory powertrain coverage \(5 years\/60,000 miles\) ends in about \d+ months? or 15,000 miles/);
  });

  it("a car with 60,000 miles and no model year is past its powertrain coverage, whatever its age", async () => {
    const vsc = product(await coached({ beacon: 720, vehicle_price: 18_000, mileage: 60_000 }), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ended");
    expect(vsc.word_track).toContain("At 60,000 miles this car is past its factory coverage");
  });

  it("a car with 40,000 miles and no model year gets no coverage claim: its age could have ended the powertrain term", async () => {
    const vsc = product(await coached({ beacon: 720, vehicle_price: 18_000, mileage: 40_000 }), "vsc");
    expect(vsc.word_track_claim).toBe("no_deal_fact");
  });
});

describe(`the coverage window by the calendar (${RULES}#factory-warranty-coverage)`, () => {
  // Engine level, so the month is fixed: age counts from January of the model year.
  const vsc = (now: string, vehicleYear: number, mileage: number) =>
    product(
      coachDeal(
        { beacon: 720, vehiclePrice: 27_000, tradeValue: 0, tradePayoff: 0, downPayment: 3000, condition: "used", vehicleYear, mileage },
        500,
        COACH_REFERENCE,
        new Date(now),
      ),
      "vsc",
    );

  it("a 2024 with 10,000 miles has exactly 12 months of bumper-to-bumper left in January 2026 ('ends soon'), 13 in December 2025 ('after it ends')", () => {
    const track = vsc("2026-01-15T12:00:00Z", 2024, 10_000);
    expect(track.word_track_claim).toBe("coverage_ends_soon");
    expect(track.word_track).toContain("ends in about 12 months or 26,000 miles");
    expect(vsc("2025-12-15T12:00:00Z", 2024, 10_000).word_track_claim).toBe("coverage_ends_later");
  });

  it("in January 2026 a 2023 is three years in: past bumper-to-bumper, and its powertrain coverage is what ends later", () => {
    const track = vsc("2026-01-15T12:00:00Z", 2023, 20_000);
    expect(track.word_track_claim).toBe("coverage_ends_later");
    expect(track.word_track).toContain("factory powertrain coverage today; after the factory coverage ends at 5 years/60,000 miles");
  });
});

describe(`nothing financed means no rate, term or payment (${RULES}#nothing-financed)`, () => {
  it("trade equity and cash down that beat the price by $2,000 get no rate or term: a 422 naming down_payment and trade_value", async () => {
    const { status, json } = await coach({ beacon: 760, vehicle_price: 20_000, trade_value: 17_000, trade_payoff: 0, down_payment: 5000 });
    expect(status).toBe(422);
    expect(json.error).toBe("validation_error");
    expect(json.details?.map((d) => d.path).sort()).toEqual(["down_payment", "trade_value"]);
    expect(json.details?.[0].message).toBe(
      "Nothing is financed: amount financed = price $20,000 − cash down $5,000 − trade equity $17,000 = -$2,000. This is a cash deal with $2,000 due back to the customer; there is no rate, term or payment to quote.",
    );
  });

  it("cash down plus trade equity exactly equal to the price finance nothing (422); $100 less is a loan, and it is coached", async () => {
    const { status, json } = await coach({ beacon: 760, vehicle_price: 20_000, trade_value: 15_000, down_payment: 5000 });
    expect(status).toBe(422);
    expect(json.details?.[0].message).toContain("= $0. This is a cash deal;");
    const result = await coached({ beacon: 760, vehicle_price: 20_000, trade_value: 14_900, down_payment: 5000 });
    expect(result.recommended_pencil.amount_financed).toBe(100);
    expect(result.recommended_pencil.payment).toBeGreaterThan(0);
  });
});

describe(`too little financed to schedule (docs/domain/deal-math.md#smallest-amount-financed)`, () => {
  const SMALLEST_MESSAGE =
    "Too little is financed to write a loan: $1.00 over 24 months at 13.22% is 24 payments of about $0.05, and rounding them to the cent could move the last one by more than a whole payment. From $3.08 financed at this rate and term every payment is positive and the last is within one payment of the others. Desk it as a cash deal.";
  it("$1 left to finance over 24 months is not a contract (23 × $0.05 and a last of −$0.01): a 422 on down_payment that says to desk it as cash", async () => {
    const { status, json } = await coach({ beacon: 501, vehicle_price: 19_987, down_payment: 19_986, condition: "new", term_months: 24 });
    expect(status).toBe(422);
    expect(json.details).toEqual([
      {
        path: "down_payment",
        code: "too_small_to_finance",
        message: SMALLEST_MESSAGE,
      },
    ]);
  });

  it("$5 left is scheduled: every payment positive and the last within one payment of the others", async () => {
    const result = await coached({ beacon: 501, vehicle_price: 19_987, down_payment: 19_982, condition: "new", term_months: 24 });
    const { payment, final_payment: last } = result.recommended_pencil;
    expect(payment).toBeGreaterThan(0);
    expect(last).toBeGreaterThan(0);
    expect(Math.abs(last - payment)).toBeLessThanOrEqual(payment);
  });

  it("an upside-down trade is not equity: $5,000 down on $20,000 with a trade $2,000 under its payoff finances $17,000", async () => {
    const result = await coached({ beacon: 760, vehicle_price: 20_000, trade_value: 8000, trade_payoff: 10_000, down_payment: 5000 });
    expect(result.recommended_pencil.amount_financed).toBe(17_000);
    expect(result.notes).toContain(
      "Amount financed $17,000 = price $20,000 − cash down $5,000 + negative equity $2,000 (before tax, title and fees).",
    );
  });
});

describe(`coaching structure (${RULES}#coaching-structure)`, () => {
  it("a prime customer who needs 84 months to reach $500 on a $30,000 car gets 84 months at the asking price, not a price cut at 72", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 720, vehicle_price: 30_000, desired_payment: 500 });
    expect(result.recommended_pencil).toMatchObject({ term: 84, selling_price: 30_000, rate: 10.06, payment: 498.97 });
    expect(result.desired_payment_met).toBe(true);
    expect(result.notes).toContain("$500 is reached at the asking price over 84 months with the standard markup.");
  });

  it("a desired payment equal to the 60-month payment to the cent is met at 60 months, not stretched to 72", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 720, vehicle_price: 30_000, desired_payment: 638.3 });
    expect(result.recommended_pencil).toMatchObject({ term: 60, payment: 638.3 });
  });

  it("a near-prime customer is never coached past the tier's 75-month maximum: the longest offered term is 72", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 640, vehicle_price: 30_000, desired_payment: 300 }, "all");
    expect(result.recommended_pencil.term).toBe(72);
    expect(result.desired_payment_met).toBe(false);
  });

  it("asked for 84 months, a near-prime deal is penciled at 72: the note says 84 is over the tier's 75-month maximum", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 640, vehicle_price: 30_000, down_payment: 6000, term_months: 84 }, "all");
    expect(result.recommended_pencil.term).toBe(72);
    expect(result.notes).toContain("84 months requested is over the 75-month maximum for near prime (640): penciled at 72 months.");
  });

  it("a subprime deal at exactly 72 months is at its maximum term, not over it, and carries no long-term flag", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 560, vehicle_price: 18_000, down_payment: 4000, term_months: 72 }, [
      "lp_keystone_auto_finance",
    ]);
    expect(result.risk_reasons.join("; ")).not.toMatch(/over the 72-month maximum|72-month term/);
    expect(result.funding_risk).toBe("medium");
  });
});

describe(`funding risk at the tier's advance (${RULES}#funding-risk)`, () => {
  it("a prime deal at exactly the 125% advance is medium risk, not high; at 125.1% it is high", async () => {
    const at = await coached({ beacon: 720, vehicle_price: 20_000, trade_payoff: 5000 });
    expect(at.ltv).toBe(125);
    expect(at.funding_risk).toBe("medium");
    expect(at.risk_reasons).toContain("LTV 125% is less than 10 points under the 125% tier advance");
    const over = await coached({ beacon: 720, vehicle_price: 20_000, trade_payoff: 5020 });
    expect(over.ltv).toBe(125.1);
    expect(over.funding_risk).toBe("high");
  });
});

describe(`funding risk 10 points under the advance (${RULES}#funding-risk)`, () => {
  it("a clean file exactly 10 points under its tier's advance is low risk; a tenth of a point closer is medium", () => {
    // Engine level: with the shipped rows only negative equity lifts LTV, and that is a risk of its own.
    const reference = { ...COACH_REFERENCE, tiers: COACH_REFERENCE.tiers.map((t) => ({ ...t, maxLtv: 100 })) };
    const risk = (downPayment: number) =>
      coachDeal(
        { beacon: 720, vehiclePrice: 20_000, tradeValue: 0, tradePayoff: 0, downPayment, condition: "used", termMonths: 60 },
        500,
        reference,
        NOW,
      );
    expect(risk(2000)).toMatchObject({ ltv: 90, funding_risk: "low" });
    expect(risk(1980)).toMatchObject({
      ltv: 90.1,
      funding_risk: "medium",
      risk_reasons: ["LTV 90.1% is less than 10 points under the 100% tier advance"],
    });
  });
});

describe(`GAP penetration at high LTV (${RULES}#penetration-adjustments)`, () => {
  it("GAP penetration stays 0.35 at exactly 110% LTV and rises to 0.45 at 110.1%", async () => {
    const at = await coached({ beacon: 720, vehicle_price: 20_000, trade_payoff: 2000 });
    expect(at.ltv).toBe(110);
    expect(product(at, "gap").penetration_rate).toBe(0.35);
    const over = await coached({ beacon: 720, vehicle_price: 20_000, trade_payoff: 2020 });
    expect(over.ltv).toBe(110.1);
    expect(product(over, "gap").penetration_rate).toBe(0.45);
  });
});

describe(`reserve cap (${RULES}#reserve-cap)`, () => {
  const deal: CoachInput = {
    beacon: 720,
    vehiclePrice: 30_000,
    tradeValue: 0,
    tradePayoff: 0,
    downPayment: 5000,
    condition: "used",
    vehicleYear: 2024,
    mileage: 24_000,
  };

  it("on a tier whose standard markup is 2 points, 60 months carries all 2 and 72 months only the 1.5-point cap", () => {
    const reference = { ...COACH_REFERENCE, tiers: COACH_REFERENCE.tiers.map((t) => ({ ...t, standardMarkup: 2 })) };
    expect(coachDeal({ ...deal, termMonths: 60 }, 500, reference, NOW).recommended_pencil.rate).toBe(11.06);
    expect(coachDeal({ ...deal, termMonths: 72 }, 500, reference, NOW).recommended_pencil.rate).toBe(10.56);
  });

  it("subprime paper carries no markup: the contract rate is the buy rate", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 560, vehicle_price: 18_000, down_payment: 4000 }, ["lp_keystone_auto_finance"]);
    expect(result.recommended_pencil.rate).toBe(result.recommended_pencil.buy_rate);
  });
});

describe(`payments as the contract computes them (${RULES}#payment-formula, docs/domain/deal-math.md#apr-regulation-z-appendix-j)`, () => {
  it("first payment in 45 days with $695 of loan fees financed: 71 payments of $516.07, a last of $515.64, APR 10.99% on the $27,000 financed", async () => {
    // Checked by hand: 27,695 at 10.06%/12 over 72 months × (1 + ½·r) = $516.07; Appendix J on $27,000 gives 10.99%.
    const result = await coached({
      ...DESCRIBED,
      beacon: 720,
      vehicle_price: 30_000,
      down_payment: 3000,
      term_months: 72,
      days_to_first_payment: 45,
      finance_charge_fees: 695,
    });
    expect(result.recommended_pencil).toMatchObject({
      rate: 10.06,
      term: 72,
      payment: 516.07,
      final_payment: 515.64,
      days_to_first_payment: 45,
      apr: 10.99,
      amount_financed: 27_000,
      principal: 27_695,
      total_of_payments: 37_156.61,
      finance_charge: 10_156.61,
    });
    // The fees are owed on the note, so the LTV counts them: $27,695 ÷ $30,000.
    expect(result.ltv).toBe(92.3);
    expect(result.notes).toContain(
      "First payment 45 days out (1 month and 15 days in Regulation Z's 30-day months): 71 payments of $516.07 and a last of $515.64. APR 10.99% (12 CFR 1026 Appendix J, actuarial) on amount financed $27,000; the $695 of finance-charge fees on the $27,695 note put it over the 10.06% note rate.",
    );
  });

  it("the same deal with its first payment a month out and no fees pays the published amortization payment, APR = the note rate", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 720, vehicle_price: 30_000, down_payment: 3000, term_months: 60 });
    // $27,000 at 10.06% over 60 months: P = A·r / (1 − (1 + r)^−60) = $574.47 (docs/domain/deal-math.md#payment).
    expect(result.recommended_pencil).toMatchObject({ payment: 574.47, apr: 10.06, days_to_first_payment: 30, principal: 27_000 });
    expect(result.notes).not.toContain("First payment");
  });

  it("a first payment 75 days out is a 422 on days_to_first_payment that says the range", async () => {
    const { status, json } = await coach({ beacon: 720, vehicle_price: 30_000, days_to_first_payment: 75 });
    expect(status).toBe(422);
    expect(json.details?.[0]).toMatchObject({ path: "days_to_first_payment" });
    expect(json.details?.[0].message).toContain("days_to_first_payment must be 1 to 60");
  });
});

describe(`the tier's term limit (${RULES}#coaching-structure)`, () => {
  // A subprime finance company that writes a 480 on a described unit, so the tier is what limits the term.
  const SECOND_GEAR = ["lp_second_gear_acceptance"];
  it("a 480 score asking 72 months is penciled at 60, the deep-subprime maximum, and told why", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 480, vehicle_price: 16_000, down_payment: 2000, term_months: 72 }, SECOND_GEAR);
    expect(result.tier).toBe("deep_subprime");
    expect(result.recommended_pencil).toMatchObject({ term: 60, rate: 21.58, payment: 383.33 });
    expect(result.notes).toContain("72 months requested is over the 60-month maximum for deep subprime (480): penciled at 60 months.");
  });

  it("a 480 score who wants $250 a month is never stretched past 60 months to get there", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 480, vehicle_price: 16_000, down_payment: 2000, desired_payment: 250 }, SECOND_GEAR);
    expect(result.recommended_pencil.term).toBe(60);
    expect(result.desired_payment_met).toBe(false);
  });
});

describe(`an out-of-reach payment (${RULES}#gross-floor)`, () => {
  it("$380 on a $32,000 car with $1,000 down: the first pencil holds the price, leads with down, and gives price only to the $1,200 floor", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 690, vehicle_price: 32_000, down_payment: 1000, desired_payment: 380 });
    expect(result.desired_payment_met).toBe(false);
    expect(result.recommended_pencil).toMatchObject({ selling_price: 32_000, term: 84, rate: 9.06, payment: 499.71, front_gross: 2560 });
    expect(result.notes).toContain(
      "$380 is out of reach on this unit: the pencil holds the asking price at 84 months and the buy rate, $499.71 a month. It would take $9,954 more cash down or trade equity, a payment of $499.71, or a unit priced about $22,046 (at 72 months: what $380 finances over 84 months, $23,573, is under what the panel's programs write at 84 months). Price can give at most $1,360, down to $30,640 at the $1,200 front-gross floor, and that still needs $8,594 more down.",
    );
  });

  it("a unit whose asking price only carries $900 over cost and pack has no price room at all", async () => {
    const result = await coached({ beacon: 690, vehicle_price: 20_000, vehicle_cost: 18_600, down_payment: 1000, desired_payment: 150 });
    expect(result.recommended_pencil).toMatchObject({ selling_price: 20_000, front_gross: 900 });
    expect(result.notes).toContain("The asking price has no room above the $1,200 front-gross floor.");
  });

  it("a payment a price cut reaches takes no more than the gross over the floor, and GAP quotes the cut price", async () => {
    const result = await coached({
      ...DESCRIBED,
      beacon: 720,
      vehicle_price: 30_000,
      trade_value: 5000,
      trade_payoff: 12_000,
      down_payment: 1000,
      desired_payment: 575,
    });
    const { selling_price: price, principal, front_gross: gross } = result.recommended_pencil;
    expect(price).toBeLessThan(30_000);
    expect(gross).toBeGreaterThanOrEqual(1200);
    expect(result.desired_payment_met).toBe(true);
    const gap = product(result, "gap");
    expect(gap.word_track_claim).toBe("owes_more_than_worth");
    expect(gap.word_track).toContain(`you'd owe ${formatUsd(principal)} on a ${formatUsd(price)} car, $6,000 more than it's worth today`);
    expect(gap.word_track).not.toContain("$30,000");
  });
});

describe(`a certified unit and its remaining warranty (${RULES}#certified-and-remaining-warranty)`, () => {
  it("a CPO 2021 with 68,000 miles and 4 years/50,000 miles of CPO warranty left hears that, never 'repairs are yours from day one'", async () => {
    const vsc = product(
      await coached({
        beacon: 735,
        vehicle_price: 28_995,
        down_payment: 2000,
        vehicle_year: YEAR - 5,
        mileage: 68_000,
        certified: true,
        warranty_months_left: 48,
        warranty_miles_left: 50_000,
      }),
      "vsc",
    );
    expect(vsc.word_track_claim).toBe("coverage_remaining");
    expect(vsc.word_track).toContain("This car's certified pre-owned warranty has about 48 months or 50,000 miles left, whichever comes first");
    expect(vsc.objection).not.toMatch(/from day one|past its factory coverage/);
  });

  it("the same CPO car without its warranty figures gets no coverage claim at all", async () => {
    const vsc = product(
      await coached({ beacon: 735, vehicle_price: 28_995, down_payment: 2000, vehicle_year: YEAR - 5, mileage: 68_000, certified: true }),
      "vsc",
    );
    expect(vsc.word_track_claim).toBe("no_deal_fact");
    expect(vsc.objection).not.toMatch(/from day one|past its factory coverage|ends soon|certified/);
  });

  it("the same car not certified, at 68,000 miles, is past its factory coverage: that track is still true for it", async () => {
    const vsc = product(await coached({ beacon: 735, vehicle_price: 28_995, down_payment: 2000, vehicle_year: YEAR - 5, mileage: 68_000 }), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ended");
  });

  it("a 2020 with 88,000 miles whose warranty record shows nothing left is past its factory coverage; certified, it gets no coverage claim", async () => {
    const deal = {
      beacon: 690,
      vehicle_price: 17_995,
      down_payment: 1000,
      vehicle_year: YEAR - 6,
      mileage: 88_000,
      warranty_months_left: 0,
      warranty_miles_left: 0,
    };
    const vsc = product(await coached(deal), "vsc");
    expect(vsc.word_track_claim).toBe("coverage_ended");
    expect(vsc.word_track).toContain("At 88,000 miles this car is past its factory coverage");
    expect(product(await coached({ ...deal, certified: true }), "vsc").word_track_claim).toBe("no_deal_fact");
  });

  it("warranty months without miles, or a certified new car, is a 422 naming the field", async () => {
    const months = await coach({ beacon: 735, vehicle_price: 28_995, warranty_months_left: 48 });
    expect(months.status).toBe(422);
    expect(months.json.details?.[0]).toMatchObject({ path: "warranty_miles_left" });
    const certifiedNew = await coach({ beacon: 735, vehicle_price: 28_995, condition: "new", certified: true });
    expect(certifiedNew.status).toBe(422);
    expect(certifiedNew.json.details?.[0]).toMatchObject({ path: "certified" });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over generated deals (engine level, the shipped reference rows).

const deals = fc
  .record({
    beacon: fc.integer({ min: 300, max: 850 }),
    vehiclePrice: fc.integer({ min: 5000, max: 90_000 }),
    tradeValue: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })),
    tradePayoff: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 45_000 })),
    downPayment: fc.integer({ min: 0, max: 20_000 }),
    condition: fc.constantFrom("new" as const, "used" as const),
    vehicleYear: fc.option(fc.integer({ min: 2008, max: 2027 }), { nil: undefined }),
    mileage: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
    desiredPayment: fc.option(fc.integer({ min: 150, max: 1500 }), { nil: undefined }),
  })
  // $100 or more financed: under a few dollars the coach refuses the loan (docs/domain/deal-math.md#smallest-amount-financed).
  .filter((d) => d.vehiclePrice - d.downPayment - (d.tradeValue - d.tradePayoff) >= 100);

const usd = (text: string) => [...text.matchAll(/\$([\d,]+(?:\.\d\d)?)/g)].map((m) => Number(m[1].replaceAll(",", "")));
const TERMS = [
  { label: "bumper-to-bumper", months: 36, miles: 36_000 },
  { label: "powertrain", months: 60, miles: 60_000 },
];

/** Residual % at a (fractional) age, linear between the curve's whole years: the property's own oracle. */
const residual = (curve: { ageYears: number; residualPct: number }[], age: number) => {
  const below = [...curve].reverse().find((p) => p.ageYears <= age) ?? curve[0];
  const above = curve.find((p) => p.ageYears >= age) ?? curve[curve.length - 1];
  return above.ageYears === below.ageYears
    ? below.residualPct
    : below.residualPct + ((above.residualPct - below.residualPct) * (age - below.ageYears)) / (above.ageYears - below.ageYears);
};

describe(`properties (${RULES}#word-track-truth-rule)`, () => {
  let reference: Awaited<ReturnType<typeof coachReferenceWithCurve>>;
  beforeAll(async () => {
    reference = await coachReferenceWithCurve();
  });

  it("no word track states a fact the deal contradicts", () => {
    fc.assert(
      fc.property(deals, (deal) => {
        const result = coachDeal(deal, 500, reference, NOW);
        // GAP's figures are the pencil's: what is owed on it and its price (docs/domain/deal-coach.md#word-track-truth-rule).
        const { principal: financed, selling_price: price } = result.recommended_pencil;
        const negativeEquity = deal.tradePayoff - deal.tradeValue;
        const age = deal.condition === "new" ? 0 : deal.vehicleYear !== undefined ? Math.max(0, (2026 - deal.vehicleYear) * 12 + 10) : undefined;
        const miles = deal.mileage ?? (deal.condition === "new" ? 0 : undefined);
        for (const p of result.fi_products) {
          // What the customer hears: the objection line as answered (the track, or why there is none).
          const track = p.objection;
          expect(track).not.toMatch(/[{}]/);
          if (p.word_track) expect(track).toContain(p.word_track);
          if (/more than it's worth|owe more/.test(track)) {
            expect(financed).toBeGreaterThan(price);
            expect(usd(track)).toEqual([financed, price, Math.round((financed - price) * 100) / 100]);
          }
          if (/still owed on your trade/.test(track)) expect(usd(track)).toEqual([negativeEquity]);
          if (/a year into this/.test(track)) {
            const { rate, payment, term } = result.recommended_pencil;
            const r = rate / 100 / 12;
            const balance = financed * (1 + r) ** 12 - (payment * ((1 + r) ** 12 - 1)) / r;
            const value = (price * residual(reference.retentionCurve, age! / 12 + 1)) / residual(reference.retentionCurve, age! / 12);
            expect(term).toBeGreaterThan(12);
            expect(balance).toBeGreaterThan(value);
            const [owed, worth] = usd(track);
            expect(Math.abs(owed - balance)).toBeLessThan(1);
            expect(Math.abs(worth - value)).toBeLessThan(1);
          }
          if (p.word_track_claim?.startsWith("coverage_")) {
            expect(age !== undefined || miles !== undefined, "a coverage claim needs the unit's age or its odometer").toBe(true);
          }
          const soon = track.match(/factory (\S+) coverage \((\d+) years\/([\d,]+) miles\) ends in about (\d+) months? or ([\d,]+) miles/);
          if (soon) {
            const term = TERMS.find((t) => t.label === soon[1])!;
            expect(age).toBeDefined();
            expect(miles).toBeDefined();
            expect(Number(soon[4])).toBe(term.months - age!);
            expect(Number(soon[5].replaceAll(",", ""))).toBe(term.miles - miles!);
            expect(term.months - age! <= 12 || term.miles - miles! <= 12_000).toBe(true);
            expect(term.months - age!).toBeGreaterThan(0);
            expect(term.miles - miles!).toBeGreaterThan(0);
          }
          const later = track.match(/after the factory coverage ends at (\d+) years\/([\d,]+) miles/);
          if (later) {
            const months = Number(later[1]) * 12;
            const limit = Number(later[2].replaceAll(",", ""));
            expect(months - age!).toBeGreaterThan(12);
            expect(limit - miles!).toBeGreaterThan(12_000);
          }
          if (/past its factory coverage/.test(track)) {
            expect((age !== undefined && age >= 60) || (miles !== undefined && miles >= 60_000)).toBe(true);
          }
          if (/ends soon/.test(track)) expect(soon, "'ends soon' only as the in-window claim with its figures").not.toBeNull();
          if (deal.condition === "used" && (deal.vehicleYear === undefined || deal.mileage === undefined)) {
            expect(track).not.toMatch(/ends soon|ends in about|ends at/);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  // The contract rate also carries the structure: a desired payment the lower score reaches only at
  // the buy rate, on the shorter terms its programs write, drops the markup the higher score keeps.
  it("lowering a customer's score never lowers their buy rate, nor the contract rate at the same term and markup", () => {
    fc.assert(
      fc.property(deals, fc.integer({ min: 300, max: 850 }), fc.integer({ min: 300, max: 850 }), (deal, a, b) => {
        const [lower, higher] = a <= b ? [a, b] : [b, a];
        const pencil = (beacon: number) => coachDeal({ ...deal, beacon }, 500, COACH_REFERENCE, NOW).recommended_pencil;
        const [low, high] = [pencil(lower), pencil(higher)];
        expect(low.buy_rate).toBeGreaterThanOrEqual(high.buy_rate);
        if (low.term === high.term && low.rate > low.buy_rate === high.rate > high.buy_rate) expect(low.rate).toBeGreaterThanOrEqual(high.rate);
      }),
      { numRuns: 500 },
    );
  });
});

describe(`the store's programs' limits (${RULES}#program-limits)`, () => {
  const ALL = "all";

  it("a 720 asking 84 months on a 2016 car with 112,000 miles, $12,000 financed, is penciled at 48: who writes it is named", async () => {
    const result = await coached(
      { beacon: 720, vehicle_price: 14_000, down_payment: 2000, term_months: 84, vehicle_year: YEAR - 10, mileage: 112_000 },
      ALL,
    );
    expect(result.recommended_pencil.term).toBe(48);
    expect(result.notes).toContain(
      "84 months requested: no program on this store's panel writes it on this deal (60 months needs 100,000 miles or fewer (10)",
    );
    expect(result.notes).toMatch(/at 48 months 10 programs write it \(.*\): penciled at 48 months\./);
  });

  it("a $30,000 used car nobody described is penciled at 48 months, and the note says to send year and mileage to open 84", async () => {
    const result = await coached({ beacon: 720, vehicle_price: 30_000 });
    expect(result.recommended_pencil.term).toBe(48);
    expect(result.notes).toContain(
      "Without the vehicle's model year and mileage (not supplied) only terms that do not need them are written, 48 months at most on this deal: send vehicle_year and mileage to open terms up to 84 months.",
    );
    const described = await coached({ ...DESCRIBED, beacon: 720, vehicle_price: 30_000 });
    expect(described.recommended_pencil.term).toBe(72);
    expect(described.notes).not.toContain("not supplied");
  });

  it("a 72-month request some programs write is penciled at 72, and the note names the term at which the rest would write it", async () => {
    const result = await coached(
      { beacon: 720, vehicle_price: 20_000, down_payment: 3000, term_months: 72, vehicle_year: YEAR - 5, mileage: 60_000 },
      ALL,
    );
    expect(result.recommended_pencil.term).toBe(72);
    expect(result.notes).toMatch(
      /At 72 months 31 programs write it \(.*\); 3 more programs write this deal at shorter terms, 3 of them at 60 months/,
    );
  });

  it("$268 a month would need $14,843 financed at 72 months, under the bank's $15,000 for 72: the coach does not cut the price to it", async () => {
    const result = await coached({
      beacon: 720,
      vehicle_price: 17_000,
      vehicle_cost: 14_000,
      down_payment: 1500,
      desired_payment: 268,
      vehicle_year: YEAR - 4,
      mileage: 30_000,
    });
    expect(result.recommended_pencil).toMatchObject({ selling_price: 17_000, term: 72 });
    expect(result.desired_payment_met).toBe(false);
    expect(result.notes).toContain(
      "It would take $2,608 more cash down or trade equity, a payment of $279.86, or a unit priced about $14,392 (at 60 months: what $268 finances over 72 months, $14,843, is under what the panel's programs write at 72 months).",
    );
    // $272 finances $15,064 at 72 months: over the $15,000, so the price gives $436.
    const reached = await coached({
      beacon: 720,
      vehicle_price: 17_000,
      vehicle_cost: 14_000,
      down_payment: 1500,
      desired_payment: 272,
      vehicle_year: YEAR - 4,
      mileage: 30_000,
    });
    expect(reached.recommended_pencil).toMatchObject({ selling_price: 16_564, term: 72, amount_financed: 15_064 });
  });

  it("a $9,000 loan at a store whose only lender writes from $10,000 is flagged high risk: no program on the panel writes it", async () => {
    const result = await coached({ ...DESCRIBED, beacon: 720, vehicle_price: 9000 });
    expect(result.funding_risk).toBe("high");
    expect(result.risk_reasons).toContain(
      "no program on this store's 1-lender panel writes this deal (writes loans from $10,000; this deal finances $9,000)",
    );
  });

  const UNWRITTEN_NOTE =
    "No program on this store's 53-lender panel writes this deal (writes loans from $10,000; this deal finances $8,000 (21) and takes vehicles up to 10 years old; this one is 16 (11)). Desk it as cash or outside financing: the pencil shows the buy rate (without a lender there is no dealer reserve) over 24 months, the shortest term, not a term a lender writes.";

  it("a 16-year-old car every program refuses for its age is penciled at the buy rate over 24 months, not 72 with a markup: desk it as cash or outside financing", async () => {
    const deal = { beacon: 720, vehicle_price: 9000, down_payment: 1000, vehicle_year: YEAR - 16, mileage: 140_000 };
    const result = await coached(deal, ALL);
    expect(result.recommended_pencil).toMatchObject({ term: 24, rate: 9.06, buy_rate: 9.06 });
    expect(result.funding_risk).toBe("high");
    expect(result.notes).toContain(UNWRITTEN_NOTE);
    // Asked for 60 months, the customer is told no program writes any term, and the pencil stays at 24.
    const asked = await coached({ ...deal, term_months: 60 }, ALL);
    expect(asked.recommended_pencil.term).toBe(24);
    expect(asked.notes).toContain("60 months requested: no program on this store's panel writes this deal at any term: penciled at 24 months.");
  });
});
