/**
 * Lender routing and stip-check invariants (docs/domain/invariants.md#lender-routing-and-stips):
 * rules that hold over every generated deal — customers across the tiers, new and used vehicles of
 * every age and mileage, $2k–$120k financed, terms of 24–96 months, panels cut from the shipped
 * programs with their limits varied, and store histories.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amountFinanced, type KnownIssue, tierApr, tierFor } from "../../../src/engines/deal-math";
import { KNOWN_ISSUES, VEHICLE_TYPES } from "../../../src/engines/deal-math/vocabulary";
import {
  approvalBucket,
  type Calibration,
  type DecisionCounts,
  isDownTier,
  type LenderPick,
  type LenderProgramRow,
  type RouteProfile,
  type RouteResult,
  routeLender,
} from "../../../src/engines/lender-routing";
import { checkStips } from "../../../src/engines/stips";
import { LenderRouteRequestSchema, StipCheckRequestSchema } from "../../../src/routes/deal-desk/deal-desk.routes";
import { routeProfile, stipCheckInput } from "../../../src/routes/deal-desk/deal-desk.service";
import { PROGRAMS, ROUTING_REFERENCE } from "../../helpers/deal-desk-reference";
import { holds } from "./check";
import { withinLimits } from "./program-limits";

const AS_OF = new Date("2026-11-20T15:00:00Z");
const YEAR = AS_OF.getUTCFullYear();
const REF = ROUTING_REFERENCE;
const NO_TURNAROUND = { submissions: 0, avgTurnaroundHours: null };
const BANDS = ["super_prime", "prime", "near_prime", "subprime", "deep_subprime"] as const;

// ---------------------------------------------------------------------------------------------
// Generators

const vehicleArb = fc.oneof(
  fc.record({
    condition: fc.constant("new" as const),
    vehicleYear: fc.option(fc.constantFrom(YEAR - 1, YEAR, YEAR + 1), { nil: undefined }),
    mileage: fc.option(fc.integer({ min: 0, max: 9_000 }), { nil: undefined }),
  }),
  fc.record({
    condition: fc.constant("used" as const),
    vehicleYear: fc.option(fc.integer({ min: 2004, max: YEAR }), { nil: undefined, freq: 6 }),
    mileage: fc.option(fc.integer({ min: 0, max: 230_000 }), { nil: undefined, freq: 6 }),
  }),
);

const profileArb: fc.Arbitrary<RouteProfile> = fc
  .record({
    beacon: fc.integer({ min: 300, max: 850 }),
    knownIssues: fc.subarray([...KNOWN_ISSUES] as KnownIssue[], { maxLength: 2 }),
    vehicle: vehicleArb,
    vehicleType: fc.constantFrom(...VEHICLE_TYPES),
    financed: fc.integer({ min: 2_000, max: 120_000 }),
    downShare: fc.double({ min: 0, max: 0.4, noNaN: true }),
    trade: fc.option(fc.record({ value: fc.integer({ min: 0, max: 30_000 }), payoff: fc.integer({ min: 0, max: 35_000 }) }), { nil: undefined }),
    bookShare: fc.option(fc.double({ min: 0.6, max: 1.4, noNaN: true }), { nil: undefined }),
    termMonths: fc.option(fc.integer({ min: 24, max: 96 }), { nil: undefined }),
    monthlyIncome: fc.option(fc.integer({ min: 1_500, max: 20_000 }), { nil: undefined }),
  })
  .map((d) => {
    const downPayment = Math.round(d.financed * d.downShare);
    const vehiclePrice = d.financed + downPayment;
    return {
      beacon: d.beacon,
      knownIssues: d.knownIssues,
      ...d.vehicle,
      vehicleType: d.vehicleType,
      vehiclePrice,
      downPayment,
      tradeValue: d.trade?.value,
      tradePayoff: d.trade?.payoff,
      bookValue: d.bookShare === undefined ? undefined : Math.round(vehiclePrice * d.bookShare),
      termMonths: d.termMonths,
      monthlyIncome: d.monthlyIncome,
    };
  })
  .filter((p) => amountFinanced(p).amount > 0);

/** A panel cut from the shipped programs, some with their LTV and amount limits varied. */
const panelArb: fc.Arbitrary<LenderProgramRow[]> = fc
  .array(
    fc.record({
      base: fc.constantFrom(...PROGRAMS),
      maxLtv: fc.option(fc.integer({ min: 80, max: 140 }), { nil: undefined }),
      minAmount: fc.option(fc.constantFrom(0, 5_000, 10_000, 25_000), { nil: undefined }),
      maxAmount: fc.option(fc.constantFrom(null, 30_000, 60_000, 150_000), { nil: undefined }),
    }),
    { maxLength: 12 },
  )
  .map((rows) =>
    rows.map(({ base, maxLtv, minAmount, maxAmount }, i) => ({
      ...base,
      id: `${base.id}_${i}`,
      name: `${base.name} ${i}`,
      maxLtv: maxLtv ?? base.maxLtv,
      minAmount: minAmount ?? base.minAmount,
      maxAmount: maxAmount === undefined ? base.maxAmount : maxAmount,
    })),
  );

const countsArb: fc.Arbitrary<DecisionCounts> = fc.record({
  approved: fc.integer({ min: 0, max: 40 }),
  countered: fc.integer({ min: 0, max: 4 }),
  declined: fc.integer({ min: 0, max: 40 }),
});

/** A store's history: some of the panel's programs with decisions in every band. */
const historyArb = fc.array(fc.tuple(fc.nat(11), countsArb), { maxLength: 8 });
const calibrationOf = (panel: readonly LenderProgramRow[], history: readonly [number, DecisionCounts][]): Calibration =>
  new Map(history.filter(([i]) => i < panel.length).map(([i, counts]) => [panel[i].id, Object.fromEntries(BANDS.map((band) => [band, counts]))]));

const route = (profile: RouteProfile, panel: readonly LenderProgramRow[], calibration: Calibration = new Map()) =>
  routeLender(profile, panel, REF, calibration, AS_OF);
const picks = (result: RouteResult) => [result.primary, result.backup].filter((p): p is LenderPick => p !== null);

// ---------------------------------------------------------------------------------------------
// The limits a deal must meet, stated from the rows (docs/domain/lender-routing.md#term-limits)

const limitDeal = (p: RouteProfile) => ({ ...p, amount: amountFinanced(p).amount });

function expectWithinLimits(p: RouteProfile, program: LenderProgramRow, term: number) {
  expect(withinLimits(limitDeal(p), program, term, YEAR), `${program.name} at ${term} months`).toBe(true);
}

/** Dollars financed over the program's maximum advance, to the cent (docs/domain/lender-routing.md#ltv-limits). */
function overMax(p: RouteProfile, maxLtv: number): number {
  const cents = Math.round(amountFinanced(p).amount * 100);
  return Math.max(0, cents - Math.round(maxLtv * (p.bookValue ?? p.vehiclePrice))) / 100;
}
const maxLtvFor = (program: LenderProgramRow, p: RouteProfile) => program.maxLtv + (REF.vehicleAdjustments.get(p.vehicleType)?.ltvAdd ?? 0);

/** The ranking keys a pick shows, in the documented order, without the name. */
const rankKeys = (pick: LenderPick) => [
  { high: 0, medium: 1, low: 2 }[pick.approval_bucket],
  pick.expected_rate,
  -pick.approval_evidence,
  -pick.confidence,
  -(pick.history.approved + pick.history.countered + pick.history.declined),
  pick.funding_days,
  pick.stip_burden_hours,
];
const compareKeys = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
};

describe("lender routing invariants (docs/domain/invariants.md#lender-routing-and-stips)", () => {
  it("no routed term exceeds the program's limit for that vehicle, amount and tier", () => {
    holds(
      fc.property(profileArb, panelArb, historyArb, (profile, panel, history) => {
        const result = route(profile, panel, calibrationOf(panel, history));
        const byName = new Map(panel.map((p) => [p.name, p]));
        for (const pick of picks(result)) expectWithinLimits(profile, byName.get(pick.lender)!, pick.term_months);
        for (const option of result.term_options) {
          expect(option.term_months).toBeLessThan(profile.termMonths!);
          for (const lender of option.lenders) expectWithinLimits(profile, byName.get(lender)!, option.term_months);
        }
      }),
    );
  });

  it("a lender is ranked by evidence, then the customer's rate: the primary and backup are the best two by the documented keys", () => {
    holds(
      fc.property(profileArb, panelArb, historyArb, (profile, panel, history) => {
        const calibration = calibrationOf(panel, history);
        const result = route(profile, panel, calibration);
        // Each program alone: what it quotes this deal, independent of the others.
        const alone = panel.map((p) => route(profile, [p], calibration).primary).filter((p): p is LenderPick => p !== null);
        const approvingInTier = (p: LenderPick) => !p.down_tier && p.confidence >= REF.settings.approvalBucketLow;
        const keyed = alone.map((p) => [approvingInTier(p) ? 0 : 1, ...rankKeys(p)]).sort(compareKeys);
        const shown = picks(result).map((p) => [approvingInTier(p) ? 0 : 1, ...rankKeys(p)]);
        expect(shown).toEqual(keyed.slice(0, 2));
        for (const pick of picks(result)) expect(pick.approval_bucket).toBe(approvalBucket(pick.approval_evidence, REF.settings));
      }),
    );
  });

  it("renaming the lenders never changes the order unless every evidence field is equal", () => {
    holds(
      fc.property(
        profileArb,
        panelArb,
        historyArb,
        fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 12, maxLength: 12 }),
        (profile, panel, history, names) => {
          const calibration = calibrationOf(panel, history);
          const renamed = panel.map((p, i) => ({ ...p, name: `${names[i]}#${i}` }));
          const before = picks(route(profile, panel, calibration));
          const after = picks(route(profile, renamed, calibration));
          expect(after.length).toBe(before.length);
          for (let i = 0; i < before.length; i++) {
            if (after[i].lender_id !== before[i].lender_id) expect(rankKeys(after[i])).toEqual(rankKeys(before[i]));
          }
        },
      ),
    );
  });

  it("a routing note never states a reason false for the deal, and never an empty list", () => {
    holds(
      fc.property(profileArb, panelArb, historyArb, (profile, panel, history) => {
        const calibration = calibrationOf(panel, history);
        const result = route(profile, panel, calibration);
        const note = result.routing_note;
        expect(note).not.toMatch(/: \.|: ;|\(\)|, \.| {2}|undefined|NaN|Infinity/);
        const alone = panel.map((p) => ({ program: p, pick: route(profile, [p], calibration).primary }));
        const fits = alone.filter((a) => a.pick !== null);
        if (panel.length === 0) expect(note).toMatch(/^This store's lender panel is empty/);
        else if (result.primary) expect(note).toContain(`${fits.length} of ${panel.length} panel programs fit`);
        else expect(note).toMatch(/Main blockers: [^;]+? \(\d+\)/);
        // "better-rate programs fit": one that fits quotes the customer less than that program would.
        const tier = tierFor(REF.tiers, profile.beacon);
        const baseApr = tierApr(tier, profile.condition, REF.vehicleAdjustments.get(profile.vehicleType));
        for (const detail of result.avoid_details) {
          if (!detail.reason.includes("better-rate programs fit")) continue;
          const program = panel.find((p) => p.name === detail.lender)!;
          expect(fits.some((f) => f.pick!.expected_rate < baseApr + program.rateMargin)).toBe(true);
        }
        // "no <tier> program approves this structure": none in-tier approves at the low edge.
        if (note.includes("Down-tier placement")) {
          expect(fits.some((f) => !f.pick!.down_tier && f.pick!.confidence >= REF.settings.approvalBucketLow)).toBe(false);
        }
        // "at 60 months 2 credit unions write it": each of them fits at that term on its own.
        for (const option of result.term_options) {
          expect(option.lenders.length).toBeGreaterThan(0);
          for (const lender of option.lenders) {
            const program = panel.find((p) => p.name === lender)!;
            expect(route({ ...profile, termMonths: option.term_months }, [program], calibration).primary).not.toBeNull();
          }
        }
        // "$X more cash down brings the LTV inside L's Y% maximum": it does.
        const fix = note.match(/\$([\d,]+) more cash down brings the LTV inside (.+?)'s ([\d.]+)% maximum/);
        if (fix) {
          const program = panel.find((p) => p.name === fix[2])!;
          const more = Number(fix[1].replaceAll(",", ""));
          expect(overMax({ ...profile, downPayment: profile.downPayment + more }, Number(fix[3]))).toBe(0);
          expect(overMax(profile, maxLtvFor(program, profile))).toBeGreaterThan(0);
        }
        // "$X more cash down … L's …": with that cash L fits the deal whole, on its own (its other rules too).
        const cash = note.match(/\$([\d,]+) more cash down (?:brings the LTV inside|brings the amount financed to|meets) (.+?)'s /);
        if (cash) {
          const program = panel.find((p) => p.name === cash[2])!;
          const more = Number(cash[1].replaceAll(",", ""));
          expect(route({ ...profile, downPayment: profile.downPayment + more }, [program], calibration).primary?.lender).toBe(program.name);
          // Never a down-tier lender while the pick is one, nor while an in-tier one fits with cash.
          if (result.primary?.down_tier)
            expect(isDownTier(profile.beacon, tierFor(REF.tiers, profile.beacon).tier, program, REF.settings)).toBe(false);
        }
        // "$X more cash down meets L's P% down-payment requirement": it does, counting trade equity as lenders do.
        const downFix = note.match(/\$([\d,]+) more cash down meets .+?'s ([\d.]+)% down-payment requirement/);
        if (downFix) {
          const more = Number(downFix[1].replaceAll(",", ""));
          const equity = amountFinanced(profile).tradeEquity;
          expect(((profile.downPayment + more + equity) / profile.vehiclePrice) * 100).toBeGreaterThanOrEqual(Number(downFix[2]) - 1e-9);
        }
      }),
    );
  });

  it("every LTV over a program's maximum is refused by the router and named by stip-check, and one at the maximum is not", () => {
    // Half the deals finance exactly at a program's maximum advance, a cent or a dollar either side.
    const atEdgeArb = fc
      .tuple(profileArb, fc.constantFrom(...PROGRAMS), fc.constantFrom(-1, -0.01, 0, 0, 0.01, 1), fc.integer({ min: 5_000, max: 90_000 }))
      .map(([profile, program, delta, book]): [RouteProfile, LenderProgramRow] => {
        const financed = Math.round(maxLtvFor(program, profile) * book) / 100 + delta;
        return [
          {
            ...profile,
            vehiclePrice: financed,
            downPayment: 0,
            tradeValue: undefined,
            tradePayoff: undefined,
            taxes: undefined,
            fees: undefined,
            bookValue: book,
          },
          program,
        ];
      });
    const anyArb = fc.tuple(profileArb, fc.constantFrom(...PROGRAMS));
    holds(
      fc.property(fc.oneof(atEdgeArb, anyArb), ([profile, program]) => {
        const maxLtv = maxLtvFor(program, profile);
        const over = overMax(profile, maxLtv);
        const result = route(profile, [program]);
        const financed = amountFinanced(profile);
        const book = profile.bookValue ?? profile.vehiclePrice;
        const stip = checkStips(
          {
            beacon: profile.beacon,
            tier: tierFor(REF.tiers, profile.beacon).tier,
            knownIssues: profile.knownIssues,
            asOf: AS_OF,
            deal: { financed, ltv: (financed.amount / book) * 100, book, maxLtv },
          },
          program,
          REF.stipRules,
          REF.stipTypes,
          NO_TURNAROUND,
        );
        if (over > 0) {
          expect(result.primary).toBeNull();
          expect(result.avoid).toContain(program.name);
          expect(stip.down_payment_needed).toBe(Math.ceil(over));
          expect(stip.submission_tip).toContain(`over ${program.name}'s ${maxLtv}% maximum`);
        } else {
          expect(result.avoid_details.map((d) => d.rule)).not.toContain("ltv_over_maximum");
          expect(stip.down_payment_needed).toBe(0);
          expect(stip.submission_tip).not.toContain("% maximum");
        }
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Every input field changes the answer, or is documented as informational (docs/domain/lender-routing.md#inputs)

type RouteBody = Record<string, unknown> & { beacon: number; vehicle_price: number };
const routeBodyArb = fc.record({
  beacon: fc.integer({ min: 300, max: 850 }),
  down_payment: fc.integer({ min: 0, max: 8_000 }),
  vehicle_price: fc.integer({ min: 9_000, max: 70_000 }),
  vehicle_type: fc.constantFrom(...VEHICLE_TYPES),
  known_issues: fc.subarray([...KNOWN_ISSUES], { maxLength: 1 }),
  vehicle_year: fc.integer({ min: 2010, max: YEAR }),
  mileage: fc.integer({ min: 0, max: 140_000 }),
  term_months: fc.constantFrom(48, 60, 72, 84),
  monthly_income: fc.integer({ min: 2_000, max: 9_000 }),
});

/** What a changed field turns the request into. `store_id` is informational to the engine: it picks the panel and the history (tested over HTTP). */
const ROUTE_CHANGES: Record<string, (b: RouteBody) => RouteBody> = {
  beacon: (b) => ({ ...b, beacon: b.beacon >= 600 ? b.beacon - 180 : b.beacon + 180 }),
  down_payment: (b) => ({ ...b, down_payment: Number(b.down_payment) + 4_000, vehicle_price: b.vehicle_price + 4_000 }),
  vehicle_price: (b) => ({ ...b, vehicle_price: b.vehicle_price * 1.5 }),
  vehicle_type: (b) => ({ ...b, vehicle_type: b.vehicle_type === "truck" ? "van" : "truck" }),
  known_issues: (b) => ({ ...b, known_issues: (b.known_issues as string[]).length > 0 ? [] : ["bk13"] }),
  term_months: (b) => ({ ...b, term_months: b.term_months === 84 ? 36 : 84 }),
  condition: (b) => ({ ...b, condition: "new" }),
  book_value: (b) => ({ ...b, book_value: b.vehicle_price * 0.7 }),
  monthly_income: (b) => ({ ...b, monthly_income: Number(b.monthly_income) > 4_000 ? 2_000 : 9_000 }),
  vehicle_year: (b) => ({ ...b, vehicle_year: Number(b.vehicle_year) >= 2020 ? 2012 : YEAR - 1 }),
  mileage: (b) => ({ ...b, mileage: Number(b.mileage) > 60_000 ? 20_000 : 130_000 }),
  trade_value: (b) => ({ ...b, trade_value: 6_000 }),
  trade_payoff: (b) => ({ ...b, trade_value: 6_000, trade_payoff: 12_000 }),
  taxes: (b) => ({ ...b, taxes: 4_000 }),
  fees: (b) => ({ ...b, fees: 4_000 }),
  // The first payment further out raises the payment, which the income check reads.
  days_to_first_payment: (b) => ({ ...b, days_to_first_payment: 60 }),
};
const ROUTE_INFORMATIONAL = ["store_id"];

const stipBodyArb = fc.record({
  lender: fc.constantFrom(...PROGRAMS.map((p) => p.name)),
  beacon: fc.integer({ min: 300, max: 850 }),
  known_issues: fc.subarray([...KNOWN_ISSUES], { maxLength: 1 }),
  vehicle_price: fc.integer({ min: 9_000, max: 70_000 }),
  down_payment: fc.integer({ min: 0, max: 3_000 }),
  vehicle_type: fc.constantFrom(...VEHICLE_TYPES),
});
const STIP_CHANGES: Record<string, (b: RouteBody) => RouteBody> = {
  lender: (b) => ({ ...b, lender: b.lender === "Harbor Point Bank" ? "Keys Now Finance" : "Harbor Point Bank" }),
  beacon: ROUTE_CHANGES.beacon,
  known_issues: ROUTE_CHANGES.known_issues,
  income_type: (b) => ({ ...b, income_type: "self_employed" }),
  vehicle_price: ROUTE_CHANGES.vehicle_price,
  down_payment: (b) => ({ ...b, down_payment: Number(b.down_payment) + 1_000 }),
  book_value: (b) => ({ ...b, book_value: b.vehicle_price * 0.7 }),
  vehicle_type: (b) => ({ ...b, book_value: b.vehicle_price * 0.8, vehicle_type: b.vehicle_type === "truck" ? "car" : "truck" }),
  trade_value: ROUTE_CHANGES.trade_value,
  trade_payoff: ROUTE_CHANGES.trade_payoff,
  taxes: ROUTE_CHANGES.taxes,
  fees: ROUTE_CHANGES.fees,
};
const STIP_INFORMATIONAL = ["store_id"];

function fieldsThatMatter(
  arb: fc.Arbitrary<RouteBody>,
  changes: Record<string, (b: RouteBody) => RouteBody>,
  answer: (body: RouteBody) => string | null,
): string[] {
  const bodies = fc.sample(arb, { numRuns: 400, seed: 20261128 });
  return Object.keys(changes).filter((field) =>
    bodies.some((body) => {
      const before = answer(body);
      const after = answer(changes[field](body));
      return before !== null && after !== null && before !== after;
    }),
  );
}

describe("every input field changes the answer or is documented as informational", () => {
  const schemaFields = (schema: { def?: unknown; _zod?: { def: { in?: { shape: object }; shape?: object } } }) => {
    const def = schema._zod!.def;
    return Object.keys(def.shape ?? def.in!.shape).sort();
  };

  it("lender-route", () => {
    expect(schemaFields(LenderRouteRequestSchema as never)).toEqual([...Object.keys(ROUTE_CHANGES), ...ROUTE_INFORMATIONAL].sort());
    const answer = (body: RouteBody) => {
      const parsed = LenderRouteRequestSchema.safeParse(body);
      return parsed.success ? JSON.stringify(route(routeProfile(parsed.data), PROGRAMS)) : null;
    };
    expect(fieldsThatMatter(routeBodyArb as fc.Arbitrary<RouteBody>, ROUTE_CHANGES, answer)).toEqual(Object.keys(ROUTE_CHANGES));
  });

  it("stip-check", () => {
    expect(schemaFields(StipCheckRequestSchema as never)).toEqual([...Object.keys(STIP_CHANGES), ...STIP_INFORMATIONAL].sort());
    const answer = (body: RouteBody) => {
      const parsed = StipCheckRequestSchema.safeParse(body);
      if (!parsed.success) return null;
      const program = PROGRAMS.find((p) => p.name === parsed.data.lender)!;
      return JSON.stringify(checkStips(stipCheckInput(parsed.data, program, REF, AS_OF), program, REF.stipRules, REF.stipTypes, NO_TURNAROUND));
    };
    expect(fieldsThatMatter(stipBodyArb as fc.Arbitrary<RouteBody>, STIP_CHANGES, answer)).toEqual(Object.keys(STIP_CHANGES));
  });
});
