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
export type FinancedExclusion = "trade" | "trade payoff" | "trade value" | "taxes" | "title and fees";

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
