/**
 * Payments and the deal coach: the rules of docs/domain/invariants.md#payments-and-the-deal-coach,
 * each a property over generated deals (price, APR 0–30%, terms, days to the first payment, fees,
 * down, trade, tiers), plus Regulation Z Appendix J's own worked examples as test vectors.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CoachInput, type CoachResult, coachDeal, STANDARD_TERMS, TooSmallToFinance } from "../../../src/engines/deal-coach";
import {
  actuarialApr,
  contractPayment,
  firstPeriodOf,
  monthlyPayment,
  paymentSchedule,
  smallestSchedulePrincipal,
  tierFor,
} from "../../../src/engines/deal-math";
import type { LenderProgramRow } from "../../../src/engines/lender-routing";
import { DealCoachRequestSchema } from "../../../src/routes/deal-desk/deal-desk.routes";
import { COACH_REFERENCE, PROGRAMS } from "../../helpers/deal-desk-reference";
import { holds } from "./check";
import { withinLimits } from "./program-limits";

const NOW = new Date("2026-11-26T12:00:00Z");
const PACK = 500;
const coach = (deal: CoachInput, pack = PACK) => coachDeal(deal, pack, COACH_REFERENCE, NOW);

/** The coach's answer, or null when it refuses a loan too small to schedule (a property below holds the refusal). */
const coachOrCash = (deal: CoachInput) => {
  try {
    return coach(deal);
  } catch (error) {
    if (error instanceof TooSmallToFinance) return null;
    throw error;
  }
};

const apr = fc.integer({ min: 0, max: 3000 }).map((bp) => bp / 100);
const principal = fc.integer({ min: 50_000, max: 15_000_000 }).map((cents) => cents / 100);
const term = fc.constantFrom(...STANDARD_TERMS);
const days = fc.integer({ min: 1, max: 60 });

/** A deal's fields as a desk sends them: any tier, price, trade, down, term, first period, fees and unit facts. */
const dealFields = fc
  .record({
    beacon: fc.integer({ min: 300, max: 850 }),
    vehiclePrice: fc.integer({ min: 5000, max: 90_000 }),
    tradeValue: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })),
    tradePayoff: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 45_000 })),
    downPayment: fc.integer({ min: 0, max: 20_000 }),
    condition: fc.constantFrom("new" as const, "used" as const),
    termMonths: fc.option(term, { nil: undefined }),
    desiredPayment: fc.option(fc.integer({ min: 150, max: 1500 }), { nil: undefined }),
    vehicleCost: fc.option(fc.integer({ min: 3000, max: 95_000 }), { nil: undefined }),
    vehicleYear: fc.option(fc.integer({ min: 2008, max: 2027 }), { nil: undefined }),
    mileage: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
    daysToFirstPayment: fc.option(days, { nil: undefined }),
    financeChargeFees: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
    certified: fc.boolean(),
    warranty: fc.option(fc.record({ months: fc.integer({ min: 0, max: 84 }), miles: fc.integer({ min: 0, max: 100_000 }) }), { nil: undefined }),
  })
  .map(
    ({ warranty, ...d }): CoachInput => ({
      ...d,
      // A certified unit is used (the route answers 422 otherwise).
      certified: d.certified && d.condition === "used",
      warrantyMonthsLeft: warranty?.months,
      warrantyMilesLeft: warranty?.miles,
    }),
  );
const financedOf = (d: CoachInput) => d.vehiclePrice - d.downPayment - (d.tradeValue - d.tradePayoff);
/**
 * A financed deal: $100 or more, which every rate and term the coach quotes schedules (under a few
 * dollars it refuses the loan: docs/domain/deal-math.md#smallest-amount-financed, a property below).
 */
const deals: fc.Arbitrary<CoachInput> = dealFields.filter((d) => financedOf(d) >= 100);
/** The same deals with $0.01–$200 left to finance after cash down. */
const tinyDeals: fc.Arbitrary<CoachInput> = fc
  .tuple(dealFields, fc.integer({ min: 1, max: 20_000 }))
  .map(([d, cents]) => ({ ...d, tradeValue: 0, tradePayoff: 0, downPayment: d.vehiclePrice - cents / 100 }));

/** The panel's programs that write the deal at `financed` over `term` for a clean-file customer inside their score window. */
const writers = (deal: CoachInput, panel: readonly LenderProgramRow[], financed: number, term: number) =>
  panel.filter(
    (p) =>
      deal.beacon >= p.minScore &&
      deal.beacon <= p.maxScore &&
      withinLimits({ ...deal, amount: financed, knownIssues: [] }, p, term, NOW.getUTCFullYear()),
  );
/** The standard terms within the tier that some program on the panel writes at the asking price. */
const writtenAtAsking = (deal: CoachInput, panel: readonly LenderProgramRow[]): number[] => {
  const tier = tierFor(COACH_REFERENCE.tiers, deal.beacon);
  return STANDARD_TERMS.filter((t) => t <= tier.maxTerm && writers(deal, panel, financedOf(deal), t).length > 0);
};

const usd = (text: string) => [...text.matchAll(/\$([\d,]+(?:\.\d\d)?)/g)].map((m) => Number(m[1].replaceAll(",", "")));
const product = (result: CoachResult, name: string) => result.fi_products.find((p) => p.product === name);

describe("12 CFR 1026 Appendix J's worked examples, monthly unit-period (docs/domain/deal-math.md#apr-regulation-z-appendix-j)", () => {
  const level = (count: number, amount: number) => Array<number>(count).fill(amount);
  const regular = { units: 1, fraction: 0 };
  it.each([
    {
      example: "(c)(1)(i) $5,000, 24 monthly payments of $230, regular first period",
      amount: 5000,
      payments: level(24, 230),
      first: regular,
      apr: 9.69,
    },
    {
      example: "(c)(1)(ii) $6,000, 36 payments of $200, first payment 1 month and 19 days out",
      amount: 6000,
      payments: level(36, 200),
      first: { units: 1, fraction: 19 / 30 },
      apr: 11.82,
    },
    {
      example: "(c)(2)(i) $5,000, a first payment of $250 then 23 of $230",
      amount: 5000,
      payments: [250, ...level(23, 230)],
      first: regular,
      apr: 10.08,
    },
    {
      example: "(c)(3)(i) $5,000, 23 payments of $230 then a final $280",
      amount: 5000,
      payments: [...level(23, 230), 280],
      first: regular,
      apr: 10.5,
    },
    {
      example: "(c)(4)(i) $5,000, $250 first, 22 of $230, $280 final",
      amount: 5000,
      payments: [250, ...level(22, 230), 280],
      first: regular,
      apr: 10.9,
    },
  ])("$example: APR $apr%", ({ amount, payments, first, apr: expected }) => {
    expect(Math.round(actuarialApr(amount, payments, first) * 100) / 100).toBe(expected);
  });
});

describe("payments as the contract computes them (docs/domain/deal-math.md#odd-first-period)", () => {
  it("a payment with the first payment 30 days out is the regular amortization payment", () => {
    holds(
      fc.property(principal, apr, term, (amount, rate, n) => {
        expect(contractPayment(amount, rate, n, 30)).toBe(monthlyPayment(amount, rate, n));
        expect(paymentSchedule(amount, rate, n, 30).payment).toBe(Math.round(monthlyPayment(amount, rate, n) * 100) / 100);
      }),
    );
  });

  it("more days to the first payment never lower the payment at a positive APR", () => {
    holds(
      fc.property(principal, apr, term, days, days, (amount, rate, n, a, b) => {
        fc.pre(rate > 0);
        const [sooner, later] = a <= b ? [a, b] : [b, a];
        expect(contractPayment(amount, rate, n, later)).toBeGreaterThanOrEqual(contractPayment(amount, rate, n, sooner));
        expect(paymentSchedule(amount, rate, n, later).payment).toBeGreaterThanOrEqual(paymentSchedule(amount, rate, n, sooner).payment);
      }),
    );
  });

  it("amortizing the quoted payment over the schedule pays the principal off to within a cent", () => {
    holds(
      fc.property(principal, apr, term, days, (amount, rate, n, d) => {
        const { payment, finalPayment, count } = paymentSchedule(amount, rate, n, d);
        // The test's own amortization: the first period is whole 30-day months plus the odd days' share of one.
        const r = rate / 1200;
        let balance = amount * (1 + ((d % 30) / 30) * r) * (1 + r) ** Math.floor(d / 30) - payment;
        for (let k = 2; k < count; k++) balance = balance * (1 + r) - payment;
        balance = balance * (1 + r) - finalPayment;
        expect(count).toBe(n);
        expect(Math.abs(balance)).toBeLessThan(0.01);
        expect(finalPayment).toBeGreaterThan(0);
      }),
    );
  });
});

describe("a schedule is a contract (docs/domain/deal-math.md#smallest-amount-financed)", () => {
  /** Every payment positive, the last within one regular payment of the others. */
  const expectContract = (payment: number, finalPayment: number) => {
    expect(payment).toBeGreaterThan(0);
    expect(finalPayment).toBeGreaterThan(0);
    expect(Math.abs(finalPayment - payment)).toBeLessThanOrEqual(payment);
  };

  it("every payment of a schedule is positive and the last within one regular payment of the others, from the smallest principal it carries", () => {
    // Amounts from $1, most of them small, where the cent rounding weighs most.
    const amount = fc.oneof(fc.integer({ min: 100, max: 10_000 }), fc.integer({ min: 100, max: 15_000_000 })).map((cents) => cents / 100);
    holds(
      fc.property(amount, apr, term, days, (a, rate, n, d) => {
        const { payment, finalPayment } = paymentSchedule(Math.max(a, smallestSchedulePrincipal(rate, n, d)), rate, n, d);
        expectContract(payment, finalPayment);
      }),
    );
  });

  it("the coach pencils a schedule that is a contract, from $0.01 financed, or refuses the loan as a cash deal", () => {
    holds(
      fc.property(tinyDeals, (deal) => {
        let result: CoachResult;
        try {
          result = coach(deal);
        } catch (error) {
          expect(error).toBeInstanceOf(TooSmallToFinance);
          expect((error as Error).message).toMatch(/^Too little is financed to write a loan: .* Desk it as a cash deal\.$/);
          // The largest of the smallest amounts: 84 months at the highest rate a tier carries.
          expect(financedOf(deal) + (deal.financeChargeFees ?? 0)).toBeLessThan(100);
          return;
        }
        expectContract(result.recommended_pencil.payment, result.recommended_pencil.final_payment);
      }),
    );
  });
});

describe("the APR disclosed (docs/domain/deal-math.md#apr-regulation-z-appendix-j)", () => {
  it("is the note rate when nothing but the amount financed is on the note and the first period is regular, from $5 financed", () => {
    holds(
      fc.property(fc.oneof(deals, tinyDeals), (deal) => {
        const result = coachOrCash({ ...deal, daysToFirstPayment: 30, financeChargeFees: 0 });
        if (result === null) return;
        const { recommended_pencil: pencil } = result;
        expect(pencil.principal).toBe(pencil.amount_financed);
        const schedule = [...Array<number>(pencil.term - 1).fill(pencil.payment), pencil.final_payment];
        const appendixJ = actuarialApr(pencil.amount_financed, schedule, firstPeriodOf(30));
        // Under about $5 the cent rounding of the payments alone moves Appendix J's figure past the 1/8-point tolerance.
        if (pencil.amount_financed >= 5) expect(pencil.apr).toBe(pencil.rate);
        else expect(pencil.apr).toBe(Math.abs(appendixJ - pencil.rate) <= 0.125 ? pencil.rate : Math.round(appendixJ * 100) / 100);
      }),
    );
  });

  it("is Appendix J's own figure when the cent rounding of a tiny loan moves it past the tolerance: $3.30 over 24 months at 5.18%", () => {
    // A store whose one lender writes from $10,000: the pencil is the buy rate over 24 months (docs/domain/deal-coach.md#program-limits).
    const deal = {
      beacon: 800,
      vehiclePrice: 30_000,
      downPayment: 29_996.7,
      tradeValue: 0,
      tradePayoff: 0,
      condition: "new" as const,
      termMonths: 24,
    };
    const harborPoint = PROGRAMS.filter((p) => p.id === "lp_harbor_point_bank");
    const { recommended_pencil: pencil } = coachDeal(deal, PACK, { ...COACH_REFERENCE, programs: harborPoint }, NOW);
    expect(pencil).toMatchObject({ amount_financed: 3.3, term: 24, payment: 0.15, final_payment: 0.02, rate: 5.18, apr: 5.04 });
  });

  it("is at or above the note rate when finance-charge fees are financed, and the finance charge is what the payments add", () => {
    holds(
      fc.property(deals, fc.integer({ min: 1, max: 2500 }), (deal, fees) => {
        const { recommended_pencil: pencil } = coach({ ...deal, financeChargeFees: fees });
        expect(pencil.apr).toBeGreaterThanOrEqual(pencil.rate);
        // With fees it is Appendix J's figure for this schedule itself, however close to the note rate.
        const schedule = [...Array<number>(pencil.term - 1).fill(pencil.payment), pencil.final_payment];
        expect(pencil.apr).toBe(Math.round(actuarialApr(pencil.amount_financed, schedule, firstPeriodOf(pencil.days_to_first_payment)) * 100) / 100);
        expect(pencil.principal).toBe(Math.round((pencil.amount_financed + fees) * 100) / 100);
        const total = pencil.payment * (pencil.term - 1) + pencil.final_payment;
        expect(Math.abs(pencil.total_of_payments - total)).toBeLessThan(0.005);
        expect(Math.abs(pencil.finance_charge - (total - pencil.amount_financed))).toBeLessThan(0.01);
      }),
    );
  });
});

describe("the deal coach's pencil (docs/domain/deal-coach.md#coaching-structure)", () => {
  it("no quoted term exceeds the program's limit for that vehicle, amount and tier, whatever term was asked for", () => {
    holds(
      fc.property(deals, fc.subarray(PROGRAMS, { minLength: 0 }), (deal, panel) => {
        const result = coachDeal(deal, PACK, { ...COACH_REFERENCE, programs: panel }, NOW);
        const { term, amount_financed: amount } = result.recommended_pencil;
        const tier = tierFor(COACH_REFERENCE.tiers, deal.beacon);
        expect(term).toBeLessThanOrEqual(tier.maxTerm);
        expect(STANDARD_TERMS).toContain(term);
        const written = writtenAtAsking(deal, panel);
        if (written.length > 0) {
          expect(
            writers(deal, panel, amount, term).map((p) => p.name),
            `${term} months on ${amount} financed`,
          ).not.toEqual([]);
        } else {
          // No program on the panel writes the deal at any term: the answer says so and calls the funding risk high.
          expect(result.funding_risk).toBe("high");
          expect(result.risk_reasons.join(" ")).toMatch(/no program on this store's .* panel writes this deal|lender panel is empty/);
        }
        if (deal.termMonths !== undefined && term < deal.termMonths) {
          // A requested term that is cut is named, with the term penciled instead.
          expect(result.notes).toContain(`${deal.termMonths} months requested`);
          expect(result.notes).toContain(`penciled at ${term} months`);
        }
        if (deal.termMonths !== undefined && written.includes(deal.termMonths)) {
          // A term the tier and a program allow is the customer's to ask for, and no note calls it over.
          expect(term).toBe(deal.termMonths);
          expect(result.notes).not.toContain("requested is over");
        }
      }),
    );
  });

  it("a pencil no program on the store's panel writes carries no markup and no term past the tier's shortest, and says to desk it as cash or outside financing", () => {
    holds(
      // Small panels, so that many generated deals find no program that writes them.
      fc.property(deals, fc.subarray(PROGRAMS, { maxLength: 3 }), (deal, panel) => {
        const result = coachDeal(deal, PACK, { ...COACH_REFERENCE, programs: panel }, NOW);
        if (writtenAtAsking(deal, panel).length > 0) return;
        const pencil = result.recommended_pencil;
        const shortest = STANDARD_TERMS.filter((t) => t <= tierFor(COACH_REFERENCE.tiers, deal.beacon).maxTerm)[0];
        expect(pencil.rate).toBe(pencil.buy_rate);
        expect(pencil.term).toBeLessThanOrEqual(shortest);
        expect(result.notes).toContain("Desk it as cash or outside financing");
        expect(result.funding_risk).toBe("high");
      }),
    );
  });

  it("gives ground on price only down to the front-gross floor, and never prices over the asking price", () => {
    holds(
      fc.property(deals, (deal) => {
        const { recommended_pencil: pencil } = coach(deal);
        const target = COACH_REFERENCE.frontGrossTargets.find((t) => t.condition === deal.condition)!;
        const targetGross = Math.max((deal.vehiclePrice * target.targetPct) / 100, target.minAmount);
        const cost = deal.vehicleCost !== undefined ? deal.vehicleCost + PACK : deal.vehiclePrice - targetGross;
        expect(pencil.selling_price).toBeLessThanOrEqual(deal.vehiclePrice);
        if (pencil.selling_price < deal.vehiclePrice) expect(pencil.selling_price - cost).toBeGreaterThanOrEqual(target.minAmount - 1e-6);
      }),
    );
  });
});

describe("word tracks state only facts the request carries (docs/domain/deal-coach.md#word-track-truth-rule)", () => {
  it("no CPO or remaining-warranty phrase unless the request gives it; a certified unit never hears its coverage is over", () => {
    holds(
      fc.property(deals, (deal) => {
        const result = coach(deal);
        const vsc = product(result, "vsc")!;
        const stated = deal.warrantyMonthsLeft !== undefined && deal.warrantyMilesLeft !== undefined;
        if (!deal.certified) expect(vsc.objection).not.toMatch(/certified/i);
        if (vsc.word_track_claim === "coverage_remaining") {
          expect(stated).toBe(true);
          expect(vsc.word_track).toContain(`about ${deal.warrantyMonthsLeft!.toLocaleString("en-US")} month`);
          expect(vsc.word_track).toContain(`or ${deal.warrantyMilesLeft!.toLocaleString("en-US")} mile`);
        }
        // A stated warranty with nothing left may still be past the factory terms (docs/domain/deal-coach.md#certified-and-remaining-warranty).
        if (deal.certified || (stated && deal.warrantyMonthsLeft! > 0 && deal.warrantyMilesLeft! > 0)) {
          expect(vsc.objection).not.toMatch(/from day one|past its factory coverage|ends soon|ends in about|factory coverage ends at/);
        }
      }),
    );
  });

  it("GAP quotes the pencil's principal and price, never the asking price the pencil cut", () => {
    holds(
      fc.property(deals, (deal) => {
        const result = coach(deal);
        const gap = product(result, "gap");
        if (gap?.word_track_claim !== "owes_more_than_worth") return;
        const { principal: owed, selling_price: price } = result.recommended_pencil;
        expect(owed).toBeGreaterThan(price);
        expect(usd(gap.word_track!)).toEqual([owed, price, Math.round((owed - price) * 100) / 100]);
      }),
    );
  });
});

describe("every input field of deal-coach changes the answer (docs/domain/deal-coach.md#inputs)", () => {
  /** How each request field reaches the engine, and a change to it; `store_id` reaches it as the store's pack. */
  const CHANGES: Record<string, (deal: CoachInput) => [CoachInput, number?]> = {
    beacon: (d) => [{ ...d, beacon: d.beacon > 600 ? 540 : 760 }],
    vehicle_price: (d) => [{ ...d, vehiclePrice: d.vehiclePrice + 1000 }],
    trade_value: (d) => [{ ...d, tradeValue: Math.max(0, d.tradeValue - 500) }],
    trade_payoff: (d) => [{ ...d, tradePayoff: d.tradePayoff + 500 }],
    down_payment: (d) => [{ ...d, downPayment: Math.max(0, d.downPayment - 500) }],
    desired_payment: (d) => [{ ...d, desiredPayment: d.desiredPayment === undefined ? 200 : undefined }],
    term_months: (d) => [{ ...d, termMonths: d.termMonths === 24 ? 48 : 24 }],
    condition: (d) => [{ ...d, condition: d.condition === "new" ? "used" : "new", certified: false }],
    vehicle_cost: (d) => [{ ...d, vehicleCost: d.vehicleCost === undefined ? d.vehiclePrice * 0.8 : undefined }],
    vehicle_year: (d) => [{ ...d, vehicleYear: d.vehicleYear === undefined ? NOW.getUTCFullYear() - 2 : undefined }],
    mileage: (d) => [{ ...d, mileage: d.mileage === undefined ? 30_000 : undefined }],
    certified: (d) => [{ ...d, certified: d.condition === "used" && !d.certified }],
    warranty_months_left: (d) => [{ ...d, warrantyMonthsLeft: 30, warrantyMilesLeft: d.warrantyMilesLeft ?? 30_000 }],
    warranty_miles_left: (d) => [{ ...d, warrantyMilesLeft: 25_000, warrantyMonthsLeft: d.warrantyMonthsLeft ?? 24 }],
    days_to_first_payment: (d) => [{ ...d, daysToFirstPayment: (d.daysToFirstPayment ?? 30) === 45 ? 20 : 45 }],
    finance_charge_fees: (d) => [{ ...d, financeChargeFees: (d.financeChargeFees ?? 0) + 695 }],
    store_id: (d) => [d, PACK + 300],
  };
  /** Fields the docs list as informational only (none today). */
  const INFORMATIONAL: string[] = [];

  it("each field the schema accepts is mapped here or documented as informational, and docs/domain/deal-coach.md#inputs names it", () => {
    const fields = Object.keys(DealCoachRequestSchema.shape).sort();
    expect([...Object.keys(CHANGES), ...INFORMATIONAL].sort()).toEqual(fields);
    const inputs = readFileSync("docs/domain/deal-coach.md", "utf8").split("## Inputs")[1].split("\n## ")[0];
    for (const field of fields) expect(inputs, field).toContain(`\`${field}\``);
  });

  it.each(Object.keys(CHANGES))("%s changes the answer for some generated deal", (field) => {
    const change = CHANGES[field];
    // The universal "never changes" must have a counter-example among the generated deals.
    const outcome = fc.check(
      fc.property(deals, (deal) => {
        const [changed, pack] = change(deal);
        return JSON.stringify(coach(deal)) === JSON.stringify(coach(changed, pack));
      }),
      { numRuns: 2000 },
    );
    expect(outcome.failed, `${field} never changed the answer`).toBe(true);
  });
});
