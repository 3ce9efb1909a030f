/**
 * Deal coaching (docs/deal-desk.md#post-apiv1deal-coach; rules: docs/domain/deal-coach.md): a first
 * pencil that reaches the customer's payment when it can (longer term, then no markup, then price
 * down to a zero-gross floor) and says what it would take when it cannot; F&I products with
 * penetration and word tracks that state facts of this deal or none; funding risk.
 */

import { residualPct } from "../appraisal/valuation";
import {
  actuarialApr,
  type Condition,
  compareText,
  contractPrincipal,
  amountFinanced as dealAmountFinanced,
  firstPeriodOf,
  formatPct,
  joinWords,
  markupCap,
  paymentSchedule,
  REGULAR_FIRST_PERIOD_DAYS,
  roundCents,
  roundTo,
  smallestSchedulePrincipal,
  TIER_LABEL,
  type TierRow,
  tierApr,
  tierFor,
} from "../deal-math";
import { formatCount, formatUsd, formatUsdCents } from "../format";
import { type FrontGrossTargetRow, frontGrossTarget } from "../gross";
import {
  type LenderProgramRow,
  programTerm,
  type TermFacts,
  termCap,
  unsuppliedSentence,
  unsuppliedVehicleFacts,
  vehicleFacts,
} from "../lender-routing";

interface FiProductRow {
  product: string;
  label: string;
  penetrationNew: number;
  penetrationUsed: number;
  penetrationHighLtv: number | null;
  /** LTV (percent) above which `penetrationHighLtv` applies. */
  highLtvPct: number | null;
  financedOnly: boolean;
  typicalProfit: number;
  objection: string;
}

/** The fact of the deal a word track states (docs/domain/deal-coach.md#word-track-truth-rule). */
type WordTrackClaim =
  | "owes_more_than_worth"
  | "negative_equity_rolled"
  | "balance_ahead_of_value"
  | "coverage_ends_soon"
  | "coverage_ends_later"
  | "coverage_ended"
  | "coverage_remaining"
  | "no_deal_fact";

interface WordTrackRow {
  id: string;
  product: string;
  claim: WordTrackClaim;
  rank: number;
  /** Text with `{name}` placeholders the coach fills with figures of the deal. */
  template: string;
}

interface WarrantyTermRow {
  coverage: string;
  label: string;
  months: number;
  miles: number;
  endsSoonMonths: number;
  endsSoonMiles: number;
}

export interface CoachInput {
  beacon: number;
  vehiclePrice: number;
  tradeValue: number;
  tradePayoff: number;
  downPayment: number;
  desiredPayment?: number;
  termMonths?: number;
  condition: Condition;
  /** Dealer cost of the unit; without it the asking price is taken to carry the target front gross. */
  vehicleCost?: number;
  /** Model year and odometer: without them (on a used unit) no track claims when factory coverage ends. */
  vehicleYear?: number;
  mileage?: number;
  /** Days from the contract to the first payment; default a regular month (docs/domain/deal-math.md#odd-first-period). */
  daysToFirstPayment?: number;
  /** Fees financed that are finance charges (12 CFR 1026.4), e.g. a lender's acquisition fee: on the note, not in the amount financed. */
  financeChargeFees?: number;
  /** A certified pre-owned unit: it carries a CPO warranty, so no track says its coverage is over. */
  certified?: boolean;
  /** The unit's remaining factory or CPO warranty, as its warranty record states it; both or neither. */
  warrantyMonthsLeft?: number;
  warrantyMilesLeft?: number;
}

export interface CoachReference {
  tiers: readonly TierRow[];
  frontGrossTargets: readonly FrontGrossTargetRow[];
  fiProducts: readonly FiProductRow[];
  wordTracks: readonly WordTrackRow[];
  warrantyTerms: readonly WarrantyTermRow[];
  /** Residual % of the new price by age (the appraisal curve), to project a unit's value a year out. */
  retentionCurve: { ageYears: number; residualPct: number }[];
  /** The store's lender panel: a pencil's term is one a program writes for this customer, vehicle and amount (docs/domain/deal-coach.md#program-limits). */
  programs: readonly LenderProgramRow[];
}

export interface CoachResult {
  recommended_pencil: {
    selling_price: number;
    rate: number;
    buy_rate: number;
    term: number;
    payment: number;
    final_payment: number;
    days_to_first_payment: number;
    apr: number;
    amount_financed: number;
    principal: number;
    finance_charge: number;
    total_of_payments: number;
    front_gross: number;
    back_gross_target: number;
  };
  trade_equity: number;
  ltv: number;
  tier: string;
  desired_payment_met: boolean | null;
  fi_products: {
    product: string;
    label: string;
    penetration_rate: number;
    typical_profit: number;
    objection: string;
    word_track: string | null;
    word_track_claim: WordTrackClaim | null;
  }[];
  funding_risk: "low" | "medium" | "high";
  risk_reasons: string[];
  notes: string;
}

/** Terms a desk quotes (the request's allowed values, docs/deal-desk.md). */
export const STANDARD_TERMS = [24, 36, 48, 60, 72, 84] as const;
/** An APR disclosed within 1/8 of a point of Appendix J's is accurate (12 CFR 1026.22(a)(2), docs/domain/deal-math.md#apr-regulation-z-appendix-j). */
const APR_TOLERANCE_POINTS = 0.125;
/** Without a desired payment or term the pencil uses the longest standard term up to this (docs/domain/deal-coach.md#coaching-structure). */
const DEFAULT_COACH_TERM = 72;

type FinancedInput = Pick<CoachInput, "vehiclePrice" | "downPayment" | "tradeValue" | "tradePayoff">;

/** Amount financed at `price` (docs/domain/deal-math.md#amount-financed); the coach takes no taxes or fees. */
const amountFinanced = (input: FinancedInput, price = input.vehiclePrice) =>
  dealAmountFinanced({ vehiclePrice: price, downPayment: input.downPayment, tradeValue: input.tradeValue, tradePayoff: input.tradePayoff }).amount;

/**
 * docs/domain/deal-coach.md#nothing-financed: when cash down and trade equity cover the price there
 * is no loan, so no rate, term or payment to quote. The sentence says why; null when a loan remains.
 */
export function nothingFinancedReason(input: FinancedInput): string | null {
  const financed = amountFinanced(input);
  if (financed > 0) return null;
  const equity = roundCents(input.tradeValue - input.tradePayoff);
  const trade = equity === 0 ? "" : ` ${equity > 0 ? "−" : "+"} ${equity > 0 ? "trade equity" : "negative equity"} ${formatUsd(Math.abs(equity))}`;
  return `Nothing is financed: amount financed = price ${formatUsd(input.vehiclePrice)} − cash down ${formatUsd(input.downPayment)}${trade} = ${formatUsd(financed)}. This is a cash deal${financed < 0 ? ` with ${formatUsd(-financed)} due back to the customer` : ""}; there is no rate, term or payment to quote.`;
}

/**
 * docs/domain/deal-math.md#smallest-amount-financed: a loan so small that level payments rounded to
 * the cent cannot carry it (a $1 loan over 24 months: 23 × $0.05 and a last of −$0.01) is not a
 * contract. The route answers it 422 on `down_payment`.
 */
export class TooSmallToFinance extends RangeError {}

function tooSmallToScheduleReason(pencil: Pencil, days: number): string | null {
  const smallest = smallestSchedulePrincipal(pencil.rate, pencil.term, days);
  if (pencil.principal >= smallest) return null;
  return `Too little is financed to write a loan: ${formatUsdCents(pencil.principal)} over ${pencil.term} months at ${formatPct(pencil.rate)} is ${pencil.term} payments of about ${formatUsdCents(pencil.payment)}, and rounding them to the cent could move the last one by more than a whole payment. From ${formatUsdCents(smallest)} financed at this rate and term every payment is positive and the last is within one payment of the others. Desk it as a cash deal.`;
}

interface Pencil {
  sellingPrice: number;
  rate: number;
  term: number;
  amountFinanced: number;
  /** Amount financed plus the finance-charge fees: what the note carries and the customer owes. */
  principal: number;
  payment: number;
  finalPayment: number;
}

export function coachDeal(input: CoachInput, pack: number, reference: CoachReference, now: Date): CoachResult {
  const nothingFinanced = nothingFinancedReason(input);
  // The route answers 422 first; an engine caller that skips it gets no rate quoted either.
  if (nothingFinanced !== null) throw new RangeError(nothingFinanced);
  const tier = tierFor(reference.tiers, input.beacon);
  const buyRate = roundTo(tierApr(tier, input.condition, undefined), 2);
  const equity = roundCents(input.tradeValue - input.tradePayoff);
  const target = frontGrossTarget(reference.frontGrossTargets, input.condition);
  const targetGross = Math.max((input.vehiclePrice * target.targetPct) / 100, target.minAmount);
  // Front gross = price − cost − pack (docs/domain/deal-coach.md#coaching-structure). Without a cost, the asking price is assumed to carry the target gross.
  const costBasis = input.vehicleCost !== undefined ? input.vehicleCost + pack : input.vehiclePrice - targetGross;
  const rateFor = (term: number, withMarkup: boolean) =>
    roundTo(buyRate + (withMarkup ? Math.min(tier.standardMarkup, markupCap(tier, term)) : 0), 2);
  const days = input.daysToFirstPayment ?? REGULAR_FIRST_PERIOD_DAYS;
  const fees = input.financeChargeFees ?? 0;
  // docs/domain/deal-coach.md#program-limits: a quoted term is one the tier allows and a program on the panel writes for this vehicle and amount.
  const limits = panelLimits(input, tier, reference.programs, now);
  const asking = limits.at(amountFinanced(input));
  // No lender on the panel writes it: no lender pays a dealer reserve, so no markup is penciled.
  const lenderWrites = asking.unwritten === null;
  const pencil = (price: number, term: number, withMarkup: boolean): Pencil => {
    const financed = amountFinanced(input, price);
    const principal = roundCents(financed + fees);
    const rate = rateFor(term, withMarkup && lenderWrites);
    const schedule = paymentSchedule(principal, rate, term, days);
    return { sellingPrice: price, rate, term, amountFinanced: financed, principal, payment: schedule.payment, finalPayment: schedule.finalPayment };
  };
  const terms = input.termMonths === undefined ? asking.terms : [Math.min(input.termMonths, asking.longest)];
  const longest = terms[terms.length - 1];
  const steps: string[] = [...unwrittenNotes(asking), ...requestedTermNotes(input, tier, asking), ...asking.notes];
  let chosen: Pencil;
  let met: boolean | null = null;
  let shortfall = "";

  if (input.desiredPayment === undefined) {
    const term = input.termMonths === undefined ? Math.max(...terms.filter((t) => t <= DEFAULT_COACH_TERM)) : longest;
    chosen = pencil(input.vehiclePrice, term, true);
  } else {
    const desired = input.desiredPayment;
    const atAsking = terms.map((t) => pencil(input.vehiclePrice, t, true)).find((p) => p.payment <= desired);
    if (atAsking) {
      chosen = atAsking;
      steps.push(
        `${formatUsd(desired)} is reached at the asking price over ${atAsking.term} months ${atAsking.rate > buyRate ? "with the standard markup" : lenderWrites ? "at the buy rate (no markup on this tier)" : "at the buy rate"}.`,
      );
    } else if (pencil(input.vehiclePrice, longest, false).payment <= desired) {
      chosen = pencil(input.vehiclePrice, longest, false);
      steps.push(`${formatUsd(desired)} needs ${longest} months at the buy rate: no rate markup on this deal.`);
    } else {
      const financedAt = (term: number) => contractPrincipal(desired, rateFor(term, false), term, days) - fees;
      const priceAt = (term: number) => Math.floor(financedAt(term) + input.downPayment + equity);
      // docs/domain/deal-coach.md#gross-floor: price gives ground only down to the store's front-gross floor, never above asking.
      const floorPrice = Math.min(input.vehiclePrice, Math.ceil(costBasis + target.minAmount));
      const floorText = `the ${formatUsd(target.minAmount)} front-gross floor`;
      // Less financed (a price cut or more cash down) can fall under a longer rung's minimum amount: the term must still be written on it.
      const written = (term: number, financed: number) => !lenderWrites || limits.writes(financed, term);
      const reached = [...terms]
        .reverse()
        .map((term) => ({ term, price: priceAt(term) }))
        .find(({ term, price }) => price >= floorPrice && written(term, amountFinanced(input, price)));
      if (reached) {
        chosen = pencil(reached.price, reached.term, false);
        steps.push(
          `${formatUsd(desired)} needs ${reached.term} months at the buy rate and a price of ${formatUsd(reached.price)} (${formatUsd(input.vehiclePrice - reached.price)} off asking, not under ${floorText}).`,
        );
      } else {
        // Out of reach: the first pencil holds the price and leads with structure (term, rate, down), not the whole front gross.
        chosen = pencil(input.vehiclePrice, longest, false);
        const fix = [...terms].reverse().find((term) => written(term, financedAt(term))) ?? terms[0];
        const maxFinanced = financedAt(fix);
        const extraDown = Math.ceil(chosen.amountFinanced - maxFinanced);
        const give = roundCents(input.vehiclePrice - floorPrice);
        const priceGround =
          give > 0
            ? `Price can give at most ${formatUsd(give)}, down to ${formatUsd(floorPrice)} at ${floorText}, and that still needs ${formatUsd(Math.ceil(amountFinanced(input, floorPrice) - maxFinanced))} more down.`
            : `The asking price has no room above ${floorText}.`;
        const atFix =
          fix === longest
            ? ""
            : ` (at ${fix} months: what ${formatUsd(desired)} finances over ${longest} months, ${formatUsd(Math.floor(financedAt(longest)))}, is under what the panel's programs write at ${longest} months)`;
        shortfall = `${formatUsd(desired)} is out of reach on this unit: the pencil holds the asking price at ${longest} months and the buy rate, ${formatUsd(chosen.payment)} a month. It would take ${formatUsd(extraDown)} more cash down or trade equity, a payment of ${formatUsd(chosen.payment)}, or a unit priced about ${formatUsd(Math.max(0, priceAt(fix)))}${atFix}. ${priceGround}`;
      }
    }
    met = chosen.payment <= desired;
  }
  const tooSmall = tooSmallToScheduleReason(chosen, days);
  if (tooSmall !== null) throw new TooSmallToFinance(tooSmall);

  const ltv = roundTo((chosen.principal / input.vehiclePrice) * 100, 1);
  const frontGross = roundCents(chosen.sellingPrice - costBasis);

  const risks: { level: "medium" | "high"; reason: string }[] = [];
  if (ltv > tier.maxLtv)
    risks.push({ level: "high", reason: `LTV ${ltv}% is over the ${tier.maxLtv}% advance typical for ${TIER_LABEL[tier.tier]}` });
  else if (ltv > tier.maxLtv - 10)
    risks.push({ level: "medium", reason: `LTV ${ltv}% is less than 10 points under the ${tier.maxLtv}% tier advance` });
  if (tier.tier === "deep_subprime")
    risks.push({ level: "high", reason: `deep subprime (${input.beacon}): specialty lenders, heavy stips, ~10 days to fund` });
  else if (tier.tier === "subprime")
    risks.push({ level: "medium", reason: `subprime (${input.beacon}): expect income, residence and reference stips` });
  if (equity < 0) risks.push({ level: "medium", reason: `${formatUsd(-equity)} negative equity rolled into the loan` });
  if (chosen.term > 72) risks.push({ level: "medium", reason: `${chosen.term}-month term: lenders want newer, low-mile units and larger loans` });
  if (met === false) risks.push({ level: "medium", reason: "the customer's payment is not met; expect a re-desk" });
  if (asking.unwritten !== null) risks.push({ level: "high", reason: asking.unwritten });
  const fundingRisk = risks.some((r) => r.level === "high") ? "high" : risks.length > 0 ? "medium" : "low";

  // docs/domain/deal-math.md#apr-regulation-z-appendix-j: the APR of the schedule on the amount financed (the fees are finance charges).
  const payments = [...Array<number>(chosen.term - 1).fill(chosen.payment), chosen.finalPayment];
  const first = firstPeriodOf(days);
  const computedApr = actuarialApr(chosen.amountFinanced, payments, first);
  // Without finance-charge fees only the cent rounding of the payments moves the APR off the note rate (a small loan's by 0.01); the note rate is an accurate disclosure within Regulation Z's 1/8-point tolerance.
  const apr = fees === 0 && Math.abs(computedApr - chosen.rate) <= APR_TOLERANCE_POINTS ? chosen.rate : roundTo(computedApr, 2);
  const totalOfPayments = roundCents(payments.reduce((sum, p) => sum + p, 0));
  const disclosure =
    days === REGULAR_FIRST_PERIOD_DAYS && fees === 0
      ? ""
      : `First payment ${plural(days, "day")} out (${joinWords([first.units > 0 ? plural(first.units, "month") : "", first.fraction > 0 ? plural(Math.round(first.fraction * REGULAR_FIRST_PERIOD_DAYS), "day") : ""].filter(Boolean))} in Regulation Z's 30-day months): ${chosen.term - 1} payments of ${formatUsd(chosen.payment)} and a last of ${formatUsd(chosen.finalPayment)}. APR ${formatPct(apr)} (12 CFR 1026 Appendix J, actuarial) on amount financed ${formatUsd(chosen.amountFinanced)}${fees > 0 ? `; the ${formatUsd(fees)} of finance-charge fees on the ${formatUsd(chosen.principal)} note put it over the ${formatPct(chosen.rate)} note rate` : ""}.`;

  const facts = dealFacts(input, chosen, equity, reference, now);
  const fiProducts = reference.fiProducts
    .filter((p) => !p.financedOnly || chosen.amountFinanced > 0)
    .map((p) => {
      const track = wordTrackFor(p, reference.wordTracks, facts);
      return {
        product: p.product,
        label: p.label,
        penetration_rate:
          p.penetrationHighLtv !== null && p.highLtvPct !== null && ltv > p.highLtvPct
            ? p.penetrationHighLtv
            : input.condition === "new"
              ? p.penetrationNew
              : p.penetrationUsed,
        typical_profit: p.typicalProfit,
        objection: `"${p.objection}" ${track.text ?? track.whyNone}`,
        word_track: track.text,
        word_track_claim: track.claim,
      };
    })
    .sort((a, b) => b.penetration_rate - a.penetration_rate || compareText(a.product, b.product));

  const notes = [
    equity < 0
      ? `Trade is ${formatUsd(-equity)} upside down (value ${formatUsd(input.tradeValue)}, payoff ${formatUsd(input.tradePayoff)}); the negative equity is rolled into the amount financed.`
      : input.tradeValue > 0
        ? `Trade equity ${formatUsd(equity)} goes toward the deal.`
        : "",
    `Amount financed ${formatUsd(chosen.amountFinanced)} = price ${formatUsd(chosen.sellingPrice)} − cash down ${formatUsd(input.downPayment)} ${equity >= 0 ? "− trade equity" : "+ negative equity"} ${formatUsd(Math.abs(equity))} (before tax, title and fees).`,
    `${TIER_LABEL[tier.tier]} buy rate ${formatPct(buyRate)}; contract rate ${formatPct(chosen.rate)} over ${chosen.term} months.`,
    disclosure,
    ...steps,
    shortfall,
    input.vehicleCost === undefined ? `Front gross assumes the asking price carries the ${target.targetPct}% target (no vehicle_cost given).` : "",
    `Back-gross target ${formatUsd(tier.backGrossTarget)}: present every product on a menu, never packed into the payment quote.`,
    `Funding risk ${fundingRisk}${risks.length ? `: ${risks.map((r) => r.reason).join("; ")}` : ": clean file inside the tier's advance"}.`,
  ].filter(Boolean);

  return {
    recommended_pencil: {
      selling_price: roundCents(chosen.sellingPrice),
      rate: chosen.rate,
      buy_rate: buyRate,
      term: chosen.term,
      payment: chosen.payment,
      final_payment: chosen.finalPayment,
      days_to_first_payment: days,
      apr,
      amount_financed: chosen.amountFinanced,
      principal: chosen.principal,
      finance_charge: roundCents(totalOfPayments - chosen.amountFinanced),
      total_of_payments: totalOfPayments,
      front_gross: frontGross,
      back_gross_target: tier.backGrossTarget,
    },
    trade_equity: equity,
    ltv,
    tier: tier.tier,
    desired_payment_met: met,
    fi_products: fiProducts,
    funding_risk: fundingRisk,
    risk_reasons: risks.map((r) => r.reason),
    notes: notes.join(" "),
  };
}

// ---------------------------------------------------------------------------------------------
// Program limits: docs/domain/deal-coach.md#program-limits

interface TermsAt {
  /** The standard terms penciled at this amount, shortest first. */
  terms: number[];
  longest: number;
  /** The panel's programs with the longest term each writes here (null: none, with why). */
  programs: { program: LenderProgramRow; months: number | null; why: string; termBound: boolean }[];
  /** When no program on the panel writes the deal at any term: why, for the funding risk. */
  unwritten: string | null;
  /** The vehicle facts a longer term needs, when the request left them out. */
  notes: string[];
}

/** The panel's term limits for this customer and vehicle, read at an amount financed. */
function panelLimits(input: CoachInput, tier: TierRow, programs: readonly LenderProgramRow[], now: Date) {
  const vehicle = vehicleFacts(input.condition, input.vehicleYear, input.mileage, now);
  const tierTerms = STANDARD_TERMS.filter((t) => t <= tier.maxTerm);
  const factsAt = (amount: number): TermFacts => ({
    tier,
    ...vehicle,
    financed: { amount },
    issueTermCap: Number.POSITIVE_INFINITY,
    issueTermWhy: null,
  });
  const at = (amount: number): TermsAt => {
    const facts = factsAt(amount);
    const rows = programs.map((program) => ({ program, ...programTerm(program, input.beacon, facts) }));
    const written = tierTerms.filter((t) => rows.some((r) => r.months !== null && r.months >= t));
    const eligible = rows.filter((r) => r.termBound).map((r) => r.program);
    const opened = unsuppliedVehicleFacts(facts, eligible, (program, f) => termCap(f, program).months);
    const notes = opened ? [unsuppliedSentence(opened)] : [];
    if (written.length > 0) return { terms: written, longest: written[written.length - 1], programs: rows, unwritten: null, notes };
    // No program writes it: only the tier's shortest term is penciled (docs/domain/deal-coach.md#program-limits), and the funding risk says no lender on the panel takes the deal.
    const why =
      programs.length === 0
        ? "this store's lender panel is empty: no program's limits were checked"
        : `no program on this store's ${formatCount(programs.length)}-lender panel writes this deal (${joinWords(groupedWhy(rows))})`;
    const shortest = tierTerms.slice(0, 1);
    return { terms: shortest, longest: shortest[0], programs: rows, unwritten: why, notes };
  };
  const writes = (amount: number, term: number) => {
    const limits = at(amount);
    return limits.unwritten === null && limits.terms.includes(term);
  };
  return { at, writes };
}

/** docs/domain/deal-coach.md#program-limits: what a pencil no program on the panel writes is, and what to do with the deal. */
function unwrittenNotes(asking: TermsAt): string[] {
  if (asking.unwritten === null) return [];
  return [
    `${asking.unwritten[0].toUpperCase()}${asking.unwritten.slice(1)}. Desk it as cash or outside financing: the pencil shows the buy rate (without a lender there is no dealer reserve) over ${asking.longest} months, the shortest term, not a term a lender writes.`,
  ];
}

/** Each reason once, with how many programs give it, most common first. */
function groupedWhy(rows: readonly { why: string }[]): string[] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.why, (counts.get(r.why) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
    .slice(0, 2)
    .map(([why, n]) => (n === 1 ? why : `${why} (${n})`));
}

const whoWrites = (rows: readonly { program: LenderProgramRow }[]) => {
  const names = rows.slice(0, 3).map((r) => r.program.name);
  return `${plural(rows.length, "program")} ${rows.length === 1 ? "writes" : "write"} it (${names.join(", ")}${rows.length > 3 ? `, and ${rows.length - 3} more` : ""})`;
};

/**
 * What the requested term means on this panel: over the tier's maximum or every program's limit,
 * the term penciled instead and who writes it; inside them, the programs it knocks out and the term
 * at which they would write the deal.
 */
function requestedTermNotes(input: CoachInput, tier: TierRow, asking: TermsAt): string[] {
  const requested = input.termMonths;
  if (requested === undefined) return [];
  const writers = (t: number) => asking.programs.filter((r) => r.months !== null && r.months >= t);
  if (asking.unwritten !== null) {
    return requested > asking.longest
      ? [`${requested} months requested: no program on this store's panel writes this deal at any term: penciled at ${asking.longest} months.`]
      : [];
  }
  if (requested > tier.maxTerm && asking.longest === STANDARD_TERMS.filter((t) => t <= tier.maxTerm).at(-1)) {
    return [
      `${requested} months requested is over the ${tier.maxTerm}-month maximum for ${TIER_LABEL[tier.tier]} (${input.beacon}): penciled at ${asking.longest} months.`,
    ];
  }
  if (requested > asking.longest) {
    const over = requested > tier.maxTerm ? ` is over the ${tier.maxTerm}-month maximum for ${TIER_LABEL[tier.tier]} (${input.beacon}), and` : ":";
    const limits = asking.programs.filter((r) => r.months !== null && r.months < requested);
    return [
      `${requested} months requested${over} no program on this store's panel writes it on this deal (${joinWords(groupedWhy(limits))}); at ${asking.longest} months ${whoWrites(writers(asking.longest))}: penciled at ${asking.longest} months.`,
    ];
  }
  const out = asking.programs.filter((r) => r.months !== null && r.months < requested);
  if (out.length === 0) return [];
  const at = Math.max(...out.map((r) => r.months ?? 0).filter((m) => STANDARD_TERMS.some((t) => t <= m)));
  const opens = STANDARD_TERMS.filter((t) => t <= at).at(-1) ?? at;
  return [
    `At ${requested} months ${whoWrites(writers(requested))}; ${plural(out.length, "more program")} write${out.length === 1 ? "s" : ""} this deal at shorter terms, ${out.filter((r) => (r.months ?? 0) >= opens).length} of them at ${opens} months (${joinWords(groupedWhy(out))}).`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Word tracks: docs/domain/deal-coach.md#word-track-truth-rule

type Coverage =
  | { status: "unknown"; why: string }
  | { status: "remaining"; label: string; monthsLeft: number; milesLeft: number }
  | { status: "ends_soon" | "ends_later"; term: WarrantyTermRow; monthsLeft: number; milesLeft: number }
  | { status: "ended"; last: WarrantyTermRow; endedAt: string };

interface DealFacts {
  /** What the customer owes on the pencil (its principal) and the pencil's price: never the asking price. */
  owed: number;
  sellingPrice: number;
  ltv: number;
  equity: number;
  coverage: Coverage;
  coverageTerms: string;
  term: number;
  /** A year into the loan: what is still owed and the unit's average value; null without the unit's age. */
  yearOut: { balance: number; value: number } | null;
}

const plural = (n: number, unit: string) => `${formatCount(n)} ${unit}${n === 1 ? "" : "s"}`;
const termText = (t: WarrantyTermRow) =>
  `${t.months % 12 === 0 ? plural(t.months / 12, "year") : plural(t.months, "month")}/${plural(t.miles, "mile")}`;

/**
 * docs/domain/deal-coach.md#factory-warranty-coverage: where the unit stands against each factory
 * term, shortest first; a new unit without an odometer is at 0 miles. A term is over
 * when either its months or its miles are used up, so a known figure past a limit settles "ended"
 * alone, while "ends soon" and "ends later" need both figures.
 */
function factoryCoverage(
  terms: readonly WarrantyTermRow[],
  condition: Condition,
  ageMonths: number | undefined,
  mileage: number | undefined,
): Coverage {
  const miles = mileage ?? (condition === "new" ? 0 : undefined);
  const ordered = [...terms].sort((a, b) => a.months - b.months || a.miles - b.miles);
  for (const term of ordered) {
    const endedByTime = ageMonths !== undefined && ageMonths >= term.months;
    const endedByMiles = miles !== undefined && miles >= term.miles;
    if (endedByTime || endedByMiles) continue;
    if (ageMonths === undefined || miles === undefined) {
      return { status: "unknown", why: "without the vehicle's model year and mileage no track says when factory coverage ends" };
    }
    const monthsLeft = term.months - ageMonths;
    const milesLeft = term.miles - miles;
    const soon = monthsLeft <= term.endsSoonMonths || milesLeft <= term.endsSoonMiles;
    return { status: soon ? "ends_soon" : "ends_later", term, monthsLeft, milesLeft };
  }
  const last = ordered[ordered.length - 1];
  if (last === undefined) return { status: "unknown", why: "no factory warranty terms are configured" };
  const endedAt =
    miles !== undefined && miles >= last.miles ? `At ${plural(miles, "mile")}` : `At ${plural(Math.floor((ageMonths ?? 0) / 12), "year")} old`;
  return { status: "ended", last, endedAt };
}

/**
 * Months since the unit's factory coverage began: a new unit's starts at delivery whatever its model
 * year; a used unit's is counted from January of its model year (the in-service date is not on the
 * request). Undefined for a used unit without a year.
 */
function unitAgeMonths(condition: Condition, vehicleYear: number | undefined, now: Date): number | undefined {
  if (condition === "new") return 0;
  return vehicleYear === undefined ? undefined : Math.max(0, (now.getUTCFullYear() - vehicleYear) * 12 + now.getUTCMonth());
}

/**
 * docs/domain/deal-coach.md#balance-a-year-out: the balance after 12 payments at the contract rate,
 * and the price carried a year down the average depreciation curve from the unit's age.
 */
function yearOut(pencil: Pencil, price: number, ageMonths: number | undefined, curve: CoachReference["retentionCurve"]) {
  if (ageMonths === undefined || pencil.term <= 12 || curve.length === 0) return null;
  const r = pencil.rate / 100 / 12;
  const growth = (1 + r) ** 12;
  const balance = 1 + r === 1 ? pencil.amountFinanced - 12 * pencil.payment : pencil.amountFinanced * growth - (pencil.payment * (growth - 1)) / r;
  const age = ageMonths / 12;
  const value = (price * residualPct(curve, age + 1, 0)) / residualPct(curve, age, 0);
  return { balance: roundCents(balance), value: roundCents(value) };
}

/**
 * docs/domain/deal-coach.md#certified-and-remaining-warranty: the warranty the request states
 * decides; a certified unit without it gets no coverage claim; else the factory terms by age and miles.
 */
function unitCoverage(input: CoachInput, terms: readonly WarrantyTermRow[], ageMonths: number | undefined): Coverage {
  const label = input.certified ? "certified pre-owned warranty" : "warranty";
  if (input.warrantyMonthsLeft !== undefined && input.warrantyMilesLeft !== undefined) {
    if (input.warrantyMonthsLeft > 0 && input.warrantyMilesLeft > 0) {
      return { status: "remaining", label, monthsLeft: input.warrantyMonthsLeft, milesLeft: input.warrantyMilesLeft };
    }
    // Nothing left on the record: "past its factory coverage" only when the factory terms agree (never on a CPO unit, whose own warranty ended).
    const factory = input.certified ? null : factoryCoverage(terms, input.condition, ageMonths, input.mileage);
    return factory?.status === "ended"
      ? factory
      : { status: "unknown", why: "the stated warranty has no coverage left, and which coverage ended is not on the request" };
  }
  if (input.certified) {
    return {
      status: "unknown",
      why: "a certified unit carries a CPO warranty; without warranty_months_left and warranty_miles_left no track says when its coverage ends",
    };
  }
  return factoryCoverage(terms, input.condition, ageMonths, input.mileage);
}

function dealFacts(input: CoachInput, pencil: Pencil, equity: number, reference: CoachReference, now: Date): DealFacts {
  const terms = reference.warrantyTerms;
  const ageMonths = unitAgeMonths(input.condition, input.vehicleYear, now);
  return {
    owed: pencil.principal,
    sellingPrice: pencil.sellingPrice,
    ltv: roundTo((pencil.principal / pencil.sellingPrice) * 100, 1),
    equity,
    term: pencil.term,
    yearOut: yearOut(pencil, pencil.sellingPrice, ageMonths, reference.retentionCurve),
    coverage: unitCoverage(input, terms, ageMonths),
    coverageTerms: [...terms]
      .sort((a, b) => a.months - b.months)
      .map((t) => `${termText(t)} ${t.label}`)
      .join(", "),
  };
}

/** Whether the deal bears out the claim, with the figures its template may name; else why not. */
function checkClaim(claim: WordTrackClaim, facts: DealFacts): { values: Record<string, string> } | { whyNot: string } {
  const { coverage } = facts;
  switch (claim) {
    case "owes_more_than_worth":
      return facts.owed > facts.sellingPrice
        ? {
            values: {
              amount_financed: formatUsd(facts.owed),
              vehicle_price: formatUsd(facts.sellingPrice),
              amount_over_value: formatUsd(facts.owed - facts.sellingPrice),
              ltv: `${facts.ltv}%`,
            },
          }
        : { whyNot: `LTV ${facts.ltv}% is not over 100%` };
    case "balance_ahead_of_value": {
      const { yearOut: year } = facts;
      if (year === null) return { whyNot: "without the unit's age (or on a loan of 12 months or less) no track projects its value" };
      return year.balance > year.value
        ? {
            values: {
              term: String(facts.term),
              balance_after_year: formatUsd(Math.round(year.balance)),
              value_after_year: formatUsd(Math.round(year.value)),
            },
          }
        : {
            whyNot: `a year in, the balance (${formatUsd(Math.round(year.balance))}) is not above the car's average value (${formatUsd(Math.round(year.value))})`,
          };
    }
    case "negative_equity_rolled":
      return facts.equity < 0 ? { values: { negative_equity: formatUsd(-facts.equity) } } : { whyNot: "the trade carries no negative equity" };
    case "coverage_remaining":
      return coverage.status === "remaining"
        ? { values: { coverage: coverage.label, coverage_left: `${plural(coverage.monthsLeft, "month")} or ${plural(coverage.milesLeft, "mile")}` } }
        : { whyNot: coverage.status === "unknown" ? coverage.why : "the request states no remaining warranty" };
    case "coverage_ends_soon":
    case "coverage_ends_later":
      if (coverage.status === "unknown") return { whyNot: coverage.why };
      if (coverage.status === "remaining") return { whyNot: "the remaining warranty the request states decides, not the factory terms" };
      if (coverage.status !== (claim === "coverage_ends_soon" ? "ends_soon" : "ends_later")) {
        return {
          whyNot: `factory coverage ${coverage.status === "ended" ? "has ended" : coverage.status === "ends_soon" ? "ends soon" : "does not end soon"}`,
        };
      }
      return {
        values: {
          coverage: coverage.term.label,
          coverage_term: termText(coverage.term),
          coverage_left: `${plural(coverage.monthsLeft, "month")} or ${plural(coverage.milesLeft, "mile")}`,
        },
      };
    case "coverage_ended":
      return coverage.status === "ended"
        ? { values: { coverage_ended_at: coverage.endedAt, coverage_terms: facts.coverageTerms } }
        : { whyNot: coverage.status === "unknown" ? coverage.why : "the unit's coverage has not ended" };
    case "no_deal_fact":
      return { values: {} };
    default:
      // A row edited to a claim the coach cannot check is never sent.
      return { whyNot: `the coach cannot check claim "${claim satisfies never}"` };
  }
}

/** Fills `{name}` placeholders; null when the template names a figure the deal does not supply. */
function render(template: string, values: Record<string, string>): string | null {
  let complete = true;
  const text = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) complete = false;
    return value ?? "";
  });
  return complete ? text : null;
}

/** The product's first track (by rank) that is true for the deal; none when no track is (a template that cannot be true is not sent). */
function wordTrackFor(
  product: FiProductRow,
  tracks: readonly WordTrackRow[],
  facts: DealFacts,
): { text: string | null; claim: WordTrackClaim | null; whyNone: string } {
  const whyNot: string[] = [];
  const candidates = tracks.filter((t) => t.product === product.product).sort((a, b) => a.rank - b.rank || compareText(a.id, b.id));
  for (const track of candidates) {
    const check = checkClaim(track.claim, facts);
    if ("whyNot" in check) {
      if (!whyNot.includes(check.whyNot)) whyNot.push(check.whyNot);
      continue;
    }
    const text = render(track.template, check.values);
    if (text !== null) return { text, claim: track.claim, whyNone: "" };
    whyNot.push(`track ${track.id} names a figure this deal does not have`);
  }
  return {
    text: null,
    claim: null,
    whyNone: `No word track: none is true for this deal (${whyNot.length > 0 ? whyNot.join("; ") : "no track is configured"}).`,
  };
}
