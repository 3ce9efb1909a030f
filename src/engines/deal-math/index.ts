/**
 * Shared arithmetic of the deal-desk engines: credit tiers, rates, the amount financed and the
 * amortization formula (docs/domain/deal-math.md).
 */

import type { Condition, CreditTier, KnownIssue, VehicleType } from "./vocabulary";

export type { Condition, CreditTier, KnownIssue, VehicleType } from "./vocabulary";

export interface TierRow {
  tier: CreditTier;
  scoreMin: number;
  scoreMax: number;
  newApr: number;
  usedApr: number;
  aprSpread: number;
  maxLtv: number;
  maxPti: number;
  maxTerm: number;
  standardMarkup: number;
  markupCapShortTerm: number;
  markupCapLongTerm: number;
  backGrossTarget: number;
}

export interface VehicleAdjustmentRow {
  vehicleType: VehicleType;
  ltvAdd: number;
  aprAdd: number;
}

export interface KnownIssueRow {
  issue: KnownIssue;
  label: string;
  extraDownPct: number;
  rateAdd: number;
  maxTerm: number | null;
}

export const TIER_LABEL: Record<CreditTier, string> = {
  super_prime: "super prime",
  prime: "prime",
  near_prime: "near prime",
  subprime: "subprime",
  deep_subprime: "deep subprime",
};

/** The tier whose band holds the score; tiers are the rows of `credit_tiers`. */
export function tierFor(tiers: readonly TierRow[], beacon: number): TierRow {
  const tier = tiers.find((t) => beacon >= t.scoreMin && beacon <= t.scoreMax);
  if (!tier) throw new Error(`no credit tier covers score ${beacon}`);
  return tier;
}

/** The tier's average APR for the condition plus the vehicle-type adjustment (docs/domain/lender-routing.md#rates-by-tier), points. */
export function tierApr(tier: TierRow, condition: Condition, adjustment: VehicleAdjustmentRow | undefined): number {
  return (condition === "new" ? tier.newApr : tier.usedApr) + (adjustment?.aprAdd ?? 0);
}

/** The reserve cap for the term, ≤ 60 months vs longer (docs/domain/deal-math.md#reserve-caps). */
export function markupCap(tier: TierRow, termMonths: number): number {
  return termMonths <= 60 ? tier.markupCapShortTerm : tier.markupCapLongTerm;
}

export const roundCents = (amount: number) => Math.round(amount * 100) / 100;
export const roundTo = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** P = A·r / (1 − (1 + r)^−n), r = APR/12; P = A/n at 0% (docs/domain/deal-math.md#payment). Unrounded. */
export function monthlyPayment(principal: number, aprPct: number, termMonths: number): number {
  const r = aprPct / 100 / 12;
  // A rate too small to move 1 + r is 0% in floating point (and would divide by zero).
  if (1 + r === 1) return principal / termMonths;
  return (principal * r) / (1 - (1 + r) ** -termMonths);
}

/** A regular first period: the first payment a month (30 days, Appendix J (b)(5)(ii)) after the contract date. */
export const REGULAR_FIRST_PERIOD_DAYS = 30;

/**
 * The time from the contract date to the first payment in Regulation Z's terms (12 CFR 1026
 * Appendix J (b)(5)(ii)): whole monthly unit-periods plus a fraction of one, the odd days ÷ 30
 * (docs/domain/deal-math.md#odd-first-period).
 */
export interface FirstPeriod {
  units: number;
  fraction: number;
}

/** The request carries days, not dates: every 30 days is a whole month, the rest is the fraction. */
export function firstPeriodOf(daysToFirstPayment: number): FirstPeriod {
  const units = Math.floor(daysToFirstPayment / REGULAR_FIRST_PERIOD_DAYS);
  return { units, fraction: (daysToFirstPayment - units * REGULAR_FIRST_PERIOD_DAYS) / REGULAR_FIRST_PERIOD_DAYS };
}

/** What a balance grows by over the first period at monthly rate r: (1 + f·r)(1 + r)^t (Appendix J (b)(8)). */
const firstPeriodGrowth = (r: number, first: FirstPeriod) => (1 + first.fraction * r) * (1 + r) ** first.units;

/** (1 + f·r)(1 + r)^(t − 1): what the first period multiplies the regular payment by; exactly 1 at 30 days or 0%. */
function firstPeriodFactor(aprPct: number, daysToFirstPayment: number): number {
  const r = aprPct / 100 / 12;
  if (1 + r === 1) return 1;
  return firstPeriodGrowth(r, firstPeriodOf(daysToFirstPayment)) / (1 + r);
}

/**
 * The level payment when the first one is `daysToFirstPayment` out (docs/domain/deal-math.md#odd-first-period):
 * the regular payment × (1 + f·r)(1 + r)^(t − 1), which is the regular payment itself at 30 days. Unrounded.
 */
export function contractPayment(principal: number, aprPct: number, termMonths: number, daysToFirstPayment: number): number {
  return monthlyPayment(principal, aprPct, termMonths) * firstPeriodFactor(aprPct, daysToFirstPayment);
}

/** The back-solve of `contractPayment`: the principal a payment carries with that first period. */
export function contractPrincipal(payment: number, aprPct: number, termMonths: number, daysToFirstPayment: number): number {
  return principalFor(payment / firstPeriodFactor(aprPct, daysToFirstPayment), aprPct, termMonths);
}

/** A contract's payment schedule: `count − 1` payments of `payment`, then `finalPayment`, which pays the balance off to the cent. */
export interface PaymentSchedule {
  payment: number;
  finalPayment: number;
  count: number;
}

/**
 * The payment rounded to the cent and the last payment that absorbs the rounding, by amortizing the
 * principal at the note rate with the odd first period (docs/domain/deal-math.md#payment-schedule).
 */
export function paymentSchedule(principal: number, aprPct: number, termMonths: number, daysToFirstPayment: number): PaymentSchedule {
  const r = aprPct / 100 / 12;
  const payment = roundCents(contractPayment(principal, aprPct, termMonths, daysToFirstPayment));
  let balance = principal * firstPeriodGrowth(r, firstPeriodOf(daysToFirstPayment));
  for (let k = 1; k < termMonths; k++) balance = (balance - payment) * (1 + r);
  return { payment, finalPayment: roundCents(balance), count: termMonths };
}

/**
 * The smallest principal a schedule of level payments rounded to the cent carries
 * (docs/domain/deal-math.md#smallest-amount-financed). Rounding moves each payment by up to half a
 * cent, and the last payment absorbs those half cents grown at the note rate: it can land up to
 * ½¢ × (S + 1) off the others, S = Σ (1 + r)^k for k < n (n at 0%). So when the exact payment is
 * over ½¢ × (S + 2), every payment is positive and the last within one payment of the others;
 * under it a $1 loan over 24 months pays 23 × $0.05 and a last of −$0.01.
 */
export function smallestSchedulePrincipal(aprPct: number, termMonths: number, daysToFirstPayment: number): number {
  const r = aprPct / 100 / 12;
  const growthSum = 1 + r === 1 ? termMonths : ((1 + r) ** termMonths - 1) / r;
  const bound = 0.005 * (growthSum + 2);
  // The payment is linear in the principal: the principal whose payment is the bound, then the next cent up.
  return Math.floor((bound / contractPayment(1, aprPct, termMonths, daysToFirstPayment)) * 100 + 1) / 100;
}

/**
 * The annual percentage rate by the actuarial method of 12 CFR 1026 Appendix J (b)(8), monthly
 * unit-period, one advance: the rate i at which the payments, the k-th (from 0) at `first.units + k`
 * whole months plus the fraction, are worth the amount financed:
 * A = Σ P_k / ((1 + f·i)(1 + i)^(t + k)). APR = 12·i, percent, unrounded
 * (docs/domain/deal-math.md#apr-regulation-z-appendix-j). 0 when the payments do not exceed the amount.
 */
export function actuarialApr(amountFinanced: number, payments: readonly number[], first: FirstPeriod): number {
  const worth = (i: number) => {
    let sum = 0;
    let discount = firstPeriodGrowth(i, first);
    for (const p of payments) {
      sum += p / discount;
      discount *= 1 + i;
    }
    return sum;
  };
  if (worth(0) <= amountFinanced) return 0;
  // The payments' worth falls as the rate rises: bisect between a rate that leaves them worth more and one that leaves them worth less.
  let low = 0;
  let high = 0.01;
  while (worth(high) > amountFinanced) high *= 2;
  for (let step = 0; step < 100 && high - low > 1e-15; step++) {
    const mid = (low + high) / 2;
    if (worth(mid) > amountFinanced) low = mid;
    else high = mid;
  }
  return ((low + high) / 2) * 12 * 100;
}

/** The back-solve A = P·(1 − (1 + r)^−n) / r (docs/domain/deal-math.md#payment). */
export function principalFor(payment: number, aprPct: number, termMonths: number): number {
  const r = aprPct / 100 / 12;
  if (1 + r === 1) return payment * termMonths;
  return (payment * (1 - (1 + r) ** -termMonths)) / r;
}

/** What the customer brings and owes besides the price; an absent figure is unknown, not zero. */
export interface FinancedInputs {
  vehiclePrice: number;
  downPayment: number;
  tradeValue?: number;
  tradePayoff?: number;
  taxes?: number;
  /** Title, registration and dealer fees. */
  fees?: number;
}

/** The inputs an LTV can leave out, in the words of docs/domain/deal-math.md#amount-financed. */
type FinancedExclusion = "trade" | "trade payoff" | "trade value" | "taxes" | "title and fees";

export interface AmountFinanced {
  amount: number;
  /** Trade value − payoff, when a trade was given. */
  netTrade: number;
  /** Payoff over value, rolled into the loan (0 when none). */
  negativeEquity: number;
  /** Positive trade equity, which counts as down payment. */
  tradeEquity: number;
  excludes: FinancedExclusion[];
}

/**
 * Price − cash down − net trade (negative equity added) + taxes + title and fees
 * (docs/domain/deal-math.md#amount-financed). What was not supplied is listed in `excludes`.
 */
export function amountFinanced(inputs: FinancedInputs): AmountFinanced {
  const excludes: FinancedExclusion[] = [];
  const hasTrade = inputs.tradeValue !== undefined || inputs.tradePayoff !== undefined;
  if (!hasTrade) excludes.push("trade");
  else if (inputs.tradePayoff === undefined) excludes.push("trade payoff");
  else if (inputs.tradeValue === undefined) excludes.push("trade value");
  if (inputs.taxes === undefined) excludes.push("taxes");
  if (inputs.fees === undefined) excludes.push("title and fees");
  const netTrade = (inputs.tradeValue ?? 0) - (inputs.tradePayoff ?? 0);
  const amount = inputs.vehiclePrice - inputs.downPayment - netTrade + (inputs.taxes ?? 0) + (inputs.fees ?? 0);
  return { amount: roundCents(amount), netTrade, negativeEquity: Math.max(0, -netTrade), tradeEquity: Math.max(0, netTrade), excludes };
}

/** "taxes, title and fees" from the list of exclusions. */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

export const formatPct = (value: number) => `${roundTo(value, 2).toFixed(2)}%`;

/** Code-unit order: the same on every runtime and locale, and far cheaper than localeCompare. */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
