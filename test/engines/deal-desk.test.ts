import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { STIP_RULE_ROWS, STIP_TYPE_ROWS } from "../../scripts/deal-desk-reference";
import { daysBefore, isoDay } from "../../src/engines/dates";
import { coachDeal } from "../../src/engines/deal-coach";
import { monthlyPayment, principalFor, roundCents } from "../../src/engines/deal-math";
import { calculateGross } from "../../src/engines/gross";
import { type Calibration, calibratedConfidence, type DecisionCounts, type RouteProfile, routeLender } from "../../src/engines/lender-routing";
import { evaluateUnit } from "../../src/engines/reports/alerts";
import { checkStips, closestNames } from "../../src/engines/stips";
import { COACH_REFERENCE, DEFAULT_STORE, PROGRAMS, program, ROUTING_REFERENCE } from "../helpers/deal-desk-reference";

const NO_HISTORY: Calibration = new Map();
/** In tax season, so a W-2 file is asked for the prior-year W-2 (docs/domain/stips.md#w-2-window). */
const AS_OF = new Date("2026-03-02T15:00:00Z");
const FRONT_GROSS_TARGETS = COACH_REFERENCE.frontGrossTargets;
const stipTypes = new Map(STIP_TYPE_ROWS.map((s) => [s.stip, s]));

describe("payment math (DOMAIN §4.1)", () => {
  it("prices $25,000 at 6% over 60 months at $483.32", () => {
    expect(roundCents(monthlyPayment(25_000, 6, 60))).toBe(483.32);
    expect(roundCents(monthlyPayment(27_000, 10.06, 60))).toBe(574.47);
    expect(monthlyPayment(12_000, 0, 48)).toBe(250);
  });

  it("inverts: principal(payment(rate, term, principal)) is the principal", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 500, max: 250_000, noNaN: true }),
        fc.double({ min: 0, max: 35, noNaN: true }),
        fc.constantFrom(24, 36, 48, 60, 72, 84),
        (principal, apr, term) => {
          const back = principalFor(monthlyPayment(principal, apr, term), apr, term);
          expect(Math.abs(back - principal)).toBeLessThan(principal * 1e-9 + 1e-6);
        },
      ),
    );
  });
});

describe("true-cost gross (docs/domain/gross.md)", () => {
  it("breaks down an aged SUV: purchase + recon + floor plan + daily holding + pack", () => {
    const result = calculateGross(
      { purchasePrice: 18_500, sellingPrice: 22_995, vehicleType: "suv", daysOnLot: 52, condition: "used" },
      DEFAULT_STORE,
      FRONT_GROSS_TARGETS,
    );
    // All-in holding 35 × 52 = 1,820 (docs/domain/gross.md#holding-cost), of which floor plan 18,500 × 8.5% ÷ 365 × 52 = 224.03.
    expect(result.breakdown).toEqual({
      purchase_price: 18_500,
      recon: 1300,
      floor_plan_interest: 224.03,
      floor_plan_assistance: 0,
      daily_holding: 1595.97,
      pack: 500,
    });
    expect(result.holding_cost_allocated).toBe(1820);
    expect(result.true_cost).toBe(22_120);
    expect(result.pack).toBe(500);
    expect(result.front_gross).toBe(875);
    expect(result.front_gross_pct).toBe(3.81);
    expect(result.aged_flag).toBe(true);
    // Market estimated at 19,800 / 0.88 = $22,500 (the retail market: the value curve is the wholesale figure's, not retail's):
    // over true cost, so aged and repriced toward it before the 60-day review.
    expect(result.market_value).toBe(22_500);
    expect(result.pricing_recommendation).toMatch(/^Aged: 52 days \(aged at 45\)\. Reprice to \$22,495/);
    // 22,500 × 82% × 95.8% = $17,675 wholesale value, less $500 fees.
    expect(result.expected_auction_proceeds).toBe(17_175);
  });

  it("flags a unit at exactly the threshold, reviews a 60-day unit for wholesale and sends a 90-day one", () => {
    const at = (days: number) =>
      calculateGross(
        { purchasePrice: 20_000, sellingPrice: 24_000, vehicleType: "car", daysOnLot: days, condition: "used" },
        DEFAULT_STORE,
        FRONT_GROSS_TARGETS,
      );
    expect(at(44).aged_flag).toBe(false);
    expect(at(45).aged_flag).toBe(true);
    expect(at(60).pricing_recommendation).toMatch(/^Wholesale review \(60 days on the lot, reviewed at 60\)/);
    expect(at(90).pricing_recommendation).toMatch(/^Wholesale: 90 days on the lot/);
    expect(at(0).holding_cost_allocated).toBe(0);
  });

  it("never lowers true cost when the unit sits longer", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1000, max: 150_000, noNaN: true }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom("car", "truck", "suv", "van"),
        fc.constantFrom("new", "used"),
        (purchasePrice, a, b, vehicleType, condition) => {
          const cost = (daysOnLot: number) =>
            calculateGross(
              { purchasePrice, sellingPrice: purchasePrice * 1.1, vehicleType, daysOnLot, condition },
              DEFAULT_STORE,
              FRONT_GROSS_TARGETS,
            ).true_cost;
          expect(cost(Math.max(a, b))).toBeGreaterThanOrEqual(cost(Math.min(a, b)));
        },
      ),
    );
  });
});

describe("lender routing", () => {
  const bk13Panel = [
    "Keystone Auto Finance",
    "Second Gear Acceptance",
    "Bridgeway ITIN Auto Loans",
    "Fresh Start Auto Lending",
    "New Chapter Auto Finance",
    "Trustee-Ready Auto Finance",
  ].map(program);
  const bk13Deal = (bookValue: number): RouteProfile => ({
    beacon: 560,
    downPayment: 3000,
    vehiclePrice: 20_000,
    vehicleType: "car",
    condition: "used",
    knownIssues: ["bk13"],
    bookValue,
  });

  it("knocks out the lenders that refuse a Chapter 13 and those a 125% LTV is over, by name and rule", () => {
    const result = routeLender(bk13Deal(13_600), bk13Panel, ROUTING_REFERENCE, NO_HISTORY, AS_OF);
    expect(result.ltv).toBe(125);
    expect(result.primary).toBeNull();
    expect(result.backup).toBeNull();
    const rules = Object.fromEntries(result.avoid_details.map((a) => [a.lender, a.rule]));
    expect(rules).toEqual({
      "Keystone Auto Finance": "no_bk13",
      "Second Gear Acceptance": "no_bk13",
      "Bridgeway ITIN Auto Loans": "no_bk13",
      "Fresh Start Auto Lending": "ltv_over_maximum",
      "New Chapter Auto Finance": "ltv_over_maximum",
      "Trustee-Ready Auto Finance": "ltv_over_maximum",
    });
    expect(result.avoid_reason).toContain(
      "does not take a Chapter 13 bankruptcy: Bridgeway ITIN Auto Loans, Keystone Auto Finance, Second Gear Acceptance",
    );
    expect(result.avoid_reason).toContain(
      "LTV 125% over the program maximum: Fresh Start Auto Lending, New Chapter Auto Finance, Trustee-Ready Auto Finance",
    );
    expect(result.routing_note).toMatch(/^No program on this store's 6-lender panel fits 560 subprime, LTV 125%, bk13/);
    expect(result.predicted_stips).toEqual([]);
  });

  it("at 100% LTV routes to the specialty lender with the lowest rate among those in the same approval bucket, priced with its BK13 add-on", () => {
    const result = routeLender(bk13Deal(17_000), bk13Panel, ROUTING_REFERENCE, NO_HISTORY, AS_OF);
    // Fit = 0.30 + 0.35 (score margin ≥ 80) + 0.20 × LTV headroom/20 + 0.05 (no income) − 0.07 (one issue):
    // 0.78, 0.73 and 0.73, all in the 0.5–0.8 bucket, so the customer's rate decides
    // (docs/domain/lender-routing.md#ranking): Trustee-Ready's BK13 add-on is 2.0 pts, New Chapter's 2.5, Fresh Start's the default 3.0.
    expect(result.primary).toMatchObject({ lender: "Trustee-Ready Auto Finance", confidence: 0.73, rate_range: "20.49% - 24.49%", funding_days: 10 });
    expect(result.backup).toMatchObject({ lender: "New Chapter Auto Finance", confidence: 0.78, expected_rate: 22.99 });
    expect(result.avoid).toEqual(["Bridgeway ITIN Auto Loans", "Keystone Auto Finance", "Second Gear Acceptance"]);
    expect(result.predicted_stips[0]).toBe("Trustee permission letter");
  });

  it("gives the same answer to the same input", () => {
    const a = routeLender(bk13Deal(17_000), PROGRAMS, ROUTING_REFERENCE, NO_HISTORY, AS_OF);
    const b = routeLender(bk13Deal(17_000), [...PROGRAMS].reverse(), ROUTING_REFERENCE, NO_HISTORY, AS_OF);
    expect(b).toEqual(a);
  });

  it("updates the program-fit prior with the store's decisions (Beta-Binomial, prior worth 10 submissions)", () => {
    expect(calibratedConfidence(0.7, { approved: 0, countered: 0, declined: 0 })).toBeCloseTo(0.7, 10);
    expect(calibratedConfidence(0.7, { approved: 2, countered: 0, declined: 18 })).toBeCloseTo(9 / 30, 10);
    expect(calibratedConfidence(0.7, { approved: 1, countered: 2, declined: 0 })).toBeCloseTo(9 / 13, 10);
  });

  it("moves a lender's confidence and rank when the store's history says it declines that band", () => {
    const deal: RouteProfile = { beacon: 700, downPayment: 3000, vehiclePrice: 28_000, vehicleType: "car", condition: "used", knownIssues: [] };
    const before = routeLender(deal, PROGRAMS, ROUTING_REFERENCE, NO_HISTORY, AS_OF);
    const top = before.primary!;
    const history: Calibration = new Map([[top.lender_id, { prime: { approved: 3, countered: 1, declined: 26 } }]]);
    const after = routeLender(deal, PROGRAMS, ROUTING_REFERENCE, history, AS_OF);
    expect(after.primary!.lender).not.toBe(top.lender);
    expect(after.avoid_details.find((a) => a.lender === top.lender)).toMatchObject({ rule: "low_approval_likelihood" });
    // Another band's history leaves this deal alone.
    const otherBand: Calibration = new Map([[top.lender_id, { near_prime: { approved: 0, countered: 0, declined: 40 } }]]);
    expect(routeLender(deal, PROGRAMS, ROUTING_REFERENCE, otherBand, AS_OF).primary).toEqual(top);
  });

  it("never lowers a lender's confidence when the score rises", () => {
    const counts = fc.record({ approved: fc.nat(40), countered: fc.nat(10), declined: fc.nat(40) });
    fc.assert(
      fc.property(
        fc.integer({ min: 300, max: 850 }),
        fc.integer({ min: 300, max: 850 }),
        fc.double({ min: 5000, max: 80_000, noNaN: true }),
        fc.double({ min: 0, max: 0.4, noNaN: true }),
        fc.subarray(["repo", "bk7", "bk13", "itin", "thin_file", "charge_off"] as const),
        fc.option(fc.double({ min: 1500, max: 20_000, noNaN: true }), { nil: undefined }),
        counts,
        (s1, s2, price, downShare, issues, income, history) => {
          const [low, high] = s1 <= s2 ? [s1, s2] : [s2, s1];
          const sameEveryBand: Record<string, DecisionCounts> = Object.fromEntries(
            ["super_prime", "prime", "near_prime", "subprime", "deep_subprime"].map((band) => [band, history]),
          );
          const calibration: Calibration = new Map(PROGRAMS.map((p) => [p.id, sameEveryBand]));
          const at = (beacon: number) => {
            const profile: RouteProfile = {
              beacon,
              downPayment: price * downShare,
              vehiclePrice: price,
              vehicleType: "car",
              condition: "used",
              knownIssues: issues,
              monthlyIncome: income,
            };
            const result = routeLender(profile, PROGRAMS, { ...ROUTING_REFERENCE, stipRules: [] }, calibration, AS_OF);
            return new Map([result.primary, result.backup].filter((p) => p !== null).map((p) => [p!.lender, p!.confidence]));
          };
          const lowPicks = at(low);
          const highPicks = at(high);
          for (const [lender, confidence] of lowPicks) {
            if (highPicks.has(lender)) expect(highPicks.get(lender)!).toBeGreaterThanOrEqual(confidence);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("lender routing's payment with the first payment 45 days out (docs/domain/deal-math.md#odd-first-period)", () => {
  const deal = (daysToFirstPayment?: number): RouteProfile => ({
    beacon: 720,
    vehiclePrice: 30_000,
    downPayment: 0,
    vehicleType: "car",
    condition: "used",
    knownIssues: [],
    termMonths: 72,
    monthlyIncome: 2712,
    // A late-model unit with few miles, so the term ladders allow the 72 months asked.
    vehicleYear: 2024,
    mileage: 18_000,
    daysToFirstPayment,
  });
  const ptiKnockout = (daysToFirstPayment?: number) =>
    routeLender(deal(daysToFirstPayment), PROGRAMS, ROUTING_REFERENCE, NO_HISTORY, AS_OF).avoid_details.find(
      (a) => a.lender === "Harbor Point Bank" && a.rule === "pti_over_cap",
    );

  it("a bank whose 20% payment-to-income cap a regular first month fits knocks the deal out when the first payment is 45 days out", () => {
    expect(ptiKnockout()).toBeUndefined();
    expect(ptiKnockout(30)).toBeUndefined();
    expect(ptiKnockout(45)?.reason).toContain("payment $543.70 is 20.05% of income, over its 20% cap");
  });
});

describe("stip prediction (DOMAIN §2.2)", () => {
  it("asks a specialty lender's Chapter 13, W-2 subprime file for the trustee letter first and a pay stub for income", () => {
    const result = checkStips(
      { beacon: 548, tier: "subprime", knownIssues: ["bk13"], incomeType: "w2", asOf: AS_OF },
      program("Fresh Start Auto Lending"),
      STIP_RULE_ROWS,
      stipTypes,
      { submissions: 0, avgTurnaroundHours: null },
    );
    expect(result.required_stips.map((s) => [s.stip, s.priority])).toEqual([
      ["Trustee permission letter", "required"],
      ["Proof of residence", "required"],
      ["Pay stub", "required"],
      ["Proof of insurance", "required"],
      ["References", "required"],
      ["Driver's license", "required"],
      ["Plan payment history", "likely"],
      ["Bank statements", "likely"],
      ["Employment verification", "likely"],
      ["W-2", "likely"],
    ]);
    expect(result.submission_tip).toContain("trustee permission letter");
    expect(result.submission_tip).toContain("issued within 40 days");
    expect(result.avg_turnaround_hours).toBe(168);
    expect(result.turnaround_source).toBe("program_default");
  });

  it("asks a prime file at a captive only for license and insurance, income likely; quotes the store's turnaround when it has 3+", () => {
    const result = checkStips(
      { beacon: 790, tier: "super_prime", knownIssues: [], asOf: AS_OF },
      program("Crestline Motor Credit"),
      STIP_RULE_ROWS,
      stipTypes,
      {
        submissions: 4,
        avgTurnaroundHours: 18.25,
      },
    );
    expect(result.required_stips.map((s) => [s.stip, s.priority])).toEqual([
      ["Proof of insurance", "required"],
      ["Driver's license", "required"],
      ["Proof of income", "likely"],
    ]);
    expect(result.avg_turnaround_hours).toBe(18.3);
    expect(result.turnaround_source).toBe("store_history");
  });

  it("suggests the closest program names for a mistyped lender", () => {
    const names = PROGRAMS.map((p) => p.name);
    expect(closestNames("Fresh Start", names)[0]).toBe("Fresh Start Auto Lending");
    expect(closestNames("Harbour Pointe Bank", names)[0]).toBe("Harbor Point Bank");
  });
});

describe("deal coaching", () => {
  const COACH_NOW = new Date("2026-11-26T12:00:00Z");
  const DESCRIBED = { vehicleYear: 2023, mileage: 30_000 };

  it("pencils a prime deal with negative equity rolled in, payment to the cent", () => {
    const result = coachDeal(
      // A three-year-old unit at 30,000 miles: the panel's term ladders write every term up to the tier's (docs/domain/deal-coach.md#program-limits).
      {
        ...DESCRIBED,
        beacon: 700,
        vehiclePrice: 30_000,
        tradeValue: 10_000,
        tradePayoff: 12_500,
        downPayment: 3000,
        termMonths: 60,
        condition: "used",
      },
      500,
      COACH_REFERENCE,
      COACH_NOW,
    );
    // Prime used buy rate 9.06% + the 1.0-pt standard markup (cap 2.0 at ≤ 60 months); A = 30,000 − 3,000 + 2,500.
    expect(result.recommended_pencil).toEqual({
      selling_price: 30_000,
      rate: 10.06,
      buy_rate: 9.06,
      term: 60,
      payment: 627.66,
      final_payment: 627.59,
      days_to_first_payment: 30,
      apr: 10.06,
      amount_financed: 29_500,
      principal: 29_500,
      finance_charge: 8159.53,
      total_of_payments: 37_659.53,
      front_gross: 2400,
      back_gross_target: 1800,
    });
    expect(result.trade_equity).toBe(-2500);
    expect(result.funding_risk).toBe("medium");
    expect(result.notes).toContain("Trade is $2,500 upside down");
    expect(result.fi_products[0]).toMatchObject({ product: "vsc", penetration_rate: 0.48 });
    expect(result.fi_products.find((p) => p.product === "gap")!.objection).toContain("GAP is a scam");
  });

  it("drops the markup and then the price to reach the desired payment, never below zero front gross", () => {
    const result = coachDeal(
      {
        ...DESCRIBED,
        beacon: 700,
        vehiclePrice: 30_000,
        tradeValue: 10_000,
        tradePayoff: 12_500,
        downPayment: 3000,
        termMonths: 60,
        desiredPayment: 600,
        condition: "used",
      },
      500,
      COACH_REFERENCE,
      COACH_NOW,
    );
    expect(result.desired_payment_met).toBe(true);
    expect(result.recommended_pencil.rate).toBe(9.06);
    expect(result.recommended_pencil.payment).toBeLessThanOrEqual(600);
    expect(result.recommended_pencil.selling_price).toBeLessThan(30_000);
    expect(result.recommended_pencil.front_gross).toBeGreaterThanOrEqual(0);
  });

  it("says a deep-subprime payment is reached at the buy rate: that tier carries no markup", () => {
    const result = coachDeal(
      { ...DESCRIBED, beacon: 455, vehiclePrice: 11_200, tradeValue: 0, tradePayoff: 0, downPayment: 2500, desiredPayment: 240, condition: "used" },
      500,
      COACH_REFERENCE,
      COACH_NOW,
    );
    expect(result.recommended_pencil).toMatchObject({ term: 60, rate: 21.58, payment: 238.21 });
    expect(result.notes).toContain("$240 is reached at the asking price over 60 months at the buy rate (no markup on this tier).");
  });

  it("says what it would take when the payment is out of reach", () => {
    const result = coachDeal(
      { ...DESCRIBED, beacon: 700, vehiclePrice: 30_000, tradeValue: 0, tradePayoff: 0, downPayment: 0, desiredPayment: 250, condition: "used" },
      500,
      COACH_REFERENCE,
      COACH_NOW,
    );
    // The first pencil holds the asking price (its whole $2,400 front gross) and leads with term, rate and down.
    expect(result.desired_payment_met).toBe(false);
    expect(result.recommended_pencil).toMatchObject({ selling_price: 30_000, term: 84, rate: 9.06, front_gross: 2400 });
    expect(result.notes).toMatch(/out of reach.*It would take \$[\d,]+ more cash down/);
    expect(result.notes).toContain("Price can give at most $1,200, down to $28,800 at the $1,200 front-gross floor");
  });

  it("a payment equal to the 60-month payment to the cent is met at 60 months; an LTV exactly at the tier's advance is medium risk, not high (mutation survivors)", () => {
    const at = (extra: Partial<Parameters<typeof coachDeal>[0]>) =>
      coachDeal(
        { ...DESCRIBED, beacon: 720, vehiclePrice: 30_000, tradeValue: 0, tradePayoff: 0, downPayment: 0, condition: "used", ...extra },
        500,
        COACH_REFERENCE,
        COACH_NOW,
      );
    expect(at({ desiredPayment: 638.3 }).recommended_pencil).toMatchObject({ term: 60, payment: 638.3 });
    const edge = at({ vehiclePrice: 20_000, tradePayoff: 5000 });
    expect(edge.ltv).toBe(125);
    expect(edge.funding_risk).toBe("medium");
    expect(at({ vehiclePrice: 20_000, tradePayoff: 5020 }).funding_risk).toBe("high");
  });

  it("quotes no rate on a cash deal and flags deep subprime over the advance as high risk", () => {
    expect(() =>
      coachDeal(
        { beacon: 760, vehiclePrice: 20_000, tradeValue: 21_000, tradePayoff: 0, downPayment: 0, condition: "used" },
        500,
        COACH_REFERENCE,
        COACH_NOW,
      ),
    ).toThrow(/Nothing is financed/);
    const deep = coachDeal(
      { beacon: 480, vehiclePrice: 18_000, tradeValue: 4000, tradePayoff: 9000, downPayment: 500, condition: "used" },
      500,
      COACH_REFERENCE,
      COACH_NOW,
    );
    expect(deep.funding_risk).toBe("high");
    expect(deep.fi_products.find((p) => p.product === "gap")!.penetration_rate).toBe(0.45);
  });
});

describe("edges the mutation pass found unpinned in the Node tests", () => {
  const NOW = new Date("2026-11-26T12:00:00Z");
  const keystone = (extra: Partial<RouteProfile>) =>
    routeLender(
      {
        beacon: 620,
        downPayment: 0,
        vehiclePrice: 20_000,
        vehicleType: "car",
        condition: "used",
        knownIssues: [],
        vehicleYear: 2022,
        mileage: 30_000,
        ...extra,
      },
      [program("Keystone Auto Finance")],
      ROUTING_REFERENCE,
      new Map(),
      NOW,
    );

  it("positive trade equity is down payment to a lender, and exactly the 10% requirement is enough (docs/domain/lender-routing.md#down-payment)", () => {
    expect(keystone({ tradeValue: 3000, tradePayoff: 1000 }).primary?.lender).toBe("Keystone Auto Finance");
    expect(keystone({ downPayment: 2000 }).primary?.lender).toBe("Keystone Auto Finance");
    expect(keystone({ downPayment: 1999 }).avoid_details[0]?.rule).toBe("down_payment_short");
  });

  it("a bank writes exactly its $10,000 minimum (docs/domain/lender-routing.md#amount-financed-limits)", () => {
    const at = (financed: number) =>
      routeLender(
        { beacon: 800, downPayment: 0, vehiclePrice: financed, vehicleType: "car", condition: "new", knownIssues: [] },
        [program("Harbor Point Bank")],
        ROUTING_REFERENCE,
        new Map(),
        NOW,
      );
    expect(at(10_000).primary?.lender).toBe("Harbor Point Bank");
    expect(at(9_999).primary).toBeNull();
  });

  it("a new unit carries no recon; the cushion counts whole days, rounded down (docs/domain/gross.md#recon-allocation)", () => {
    const fresh = (condition: "new" | "used") =>
      calculateGross(
        { purchasePrice: 16_000, sellingPrice: 22_995, vehicleType: "car", daysOnLot: 10, condition, marketValue: 23_000 },
        DEFAULT_STORE,
        COACH_REFERENCE.frontGrossTargets,
      );
    expect(fresh("new").breakdown.recon).toBe(0);
    // Cushion $4,945 − $1,839.60 target = $3,105.40 at $35 a day: 88.7 days, so 88.
    expect(fresh("used").pricing_recommendation).toContain("cushion in 88 days");
  });
});

describe("an aged alert's figures (docs/domain/reports.md#wholesale-candidate)", () => {
  const unitAt = (days: number, cost: number, askingPrice: number, marketValue: number) =>
    evaluateUnit(
      {
        stockNumber: "P",
        storeId: "s",
        year: 2021,
        make: "Make",
        model: "Model",
        trim: "",
        condition: "used",
        vehicleType: "car",
        stockedOn: isoDay(daysBefore(new Date("2026-11-26T12:00:00Z"), days)),
        cost,
        askingPrice,
        marketValue,
      },
      { ...DEFAULT_STORE, id: "s" },
      new Date("2026-11-26T12:00:00Z"),
    );

  it("pack counts in the projected gross ($455 over true cost before pack is −$45 after it), and a unit is aged on its 45th day", () => {
    expect(unitAt(47, 20_000, 23_495, 23_300)?.projectedFrontGrossUsd).toBe(-45);
    expect(unitAt(45, 18_000, 24_995, 25_000)?.alertType).toBe("aged");
    expect(unitAt(44, 18_000, 24_995, 25_000)).toBeNull();
  });
});
