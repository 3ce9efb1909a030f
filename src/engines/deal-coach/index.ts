/**
 * Deal coaching (SPEC §2.10; DOMAIN §3.2, §4, §5): a first pencil that reaches the customer's
 * payment when it can (longer term, then no markup, then price down to a zero-gross floor) and
 * says what it would take when it cannot; F&I products with penetration and word tracks; funding risk.
 */
import {
  type Condition,
  compareText,
  formatPct,
  formatUsd,
  markupCap,
  monthlyPayment,
  principalFor,
  roundCents,
  roundTo,
  TIER_LABEL,
  type TierRow,
  tierApr,
  tierFor,
} from "../deal-math";
import type { FrontGrossTargetRow } from "../gross";

export interface FiProductRow {
  product: string;
  label: string;
  penetrationNew: number;
  penetrationUsed: number;
  penetrationHighLtv: number | null;
  financedOnly: boolean;
  typicalProfit: number;
  objection: string;
  wordTrack: string;
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
}

export interface CoachReference {
  tiers: readonly TierRow[];
  frontGrossTargets: readonly FrontGrossTargetRow[];
  fiProducts: readonly FiProductRow[];
}

export interface CoachResult {
  recommended_pencil: {
    selling_price: number;
    rate: number;
    buy_rate: number;
    term: number;
    payment: number;
    amount_financed: number;
    front_gross: number;
    back_gross_target: number;
  };
  trade_equity: number;
  ltv: number;
  tier: string;
  desired_payment_met: boolean | null;
  fi_products: { product: string; label: string; penetration_rate: number; typical_profit: number; objection: string }[];
  funding_risk: "low" | "medium" | "high";
  risk_reasons: string[];
  notes: string;
}

/** Terms a desk quotes (the request's allowed values, SPEC §4.3). */
export const STANDARD_TERMS = [24, 36, 48, 60, 72, 84] as const;
/** Without a desired payment or term the pencil uses the longest standard term up to this (avg ≈ 68 months, DOMAIN §1.2). */
export const DEFAULT_COACH_TERM = 72;
/** GAP sells more above this LTV (DOMAIN §5). */
export const HIGH_LTV_PCT = 110;

interface Pencil {
  sellingPrice: number;
  rate: number;
  term: number;
  amountFinanced: number;
  payment: number;
}

export function coachDeal(input: CoachInput, pack: number, reference: CoachReference): CoachResult {
  const tier = tierFor(reference.tiers, input.beacon);
  const buyRate = roundTo(tierApr(tier, input.condition, undefined), 2);
  const equity = roundCents(input.tradeValue - input.tradePayoff);
  const target = reference.frontGrossTargets.find((t) => t.condition === input.condition) ?? { targetPct: 8, minAmount: 1200 };
  const targetGross = Math.max((input.vehiclePrice * target.targetPct) / 100, target.minAmount);
  // Front gross = price − cost − pack (§3.1). Without a cost, the asking price is assumed to carry the target gross.
  const costBasis = input.vehicleCost !== undefined ? input.vehicleCost + pack : input.vehiclePrice - targetGross;
  const financed = (price: number) => roundCents(price - input.downPayment - equity);
  const rateFor = (term: number, withMarkup: boolean) =>
    roundTo(buyRate + (withMarkup ? Math.min(tier.standardMarkup, markupCap(tier, term)) : 0), 2);
  const pencil = (price: number, term: number, withMarkup: boolean): Pencil => {
    const amountFinanced = financed(price);
    const rate = rateFor(term, withMarkup);
    return {
      sellingPrice: price,
      rate,
      term,
      amountFinanced,
      payment: amountFinanced > 0 ? roundCents(monthlyPayment(amountFinanced, rate, term)) : 0,
    };
  };

  const terms = input.termMonths !== undefined ? [input.termMonths] : STANDARD_TERMS.filter((t) => t <= tier.maxTerm);
  const longest = terms[terms.length - 1];
  const steps: string[] = [];
  let chosen: Pencil;
  let met: boolean | null = null;
  let shortfall = "";

  if (input.desiredPayment === undefined) {
    const term = input.termMonths ?? Math.max(...terms.filter((t) => t <= DEFAULT_COACH_TERM));
    chosen = pencil(input.vehiclePrice, term, true);
  } else {
    const desired = input.desiredPayment;
    const atAsking = terms.map((t) => pencil(input.vehiclePrice, t, true)).find((p) => p.payment <= desired);
    if (atAsking) {
      chosen = atAsking;
      steps.push(`${formatUsd(desired)} is reached at the asking price over ${atAsking.term} months with the standard markup.`);
    } else if (pencil(input.vehiclePrice, longest, false).payment <= desired) {
      chosen = pencil(input.vehiclePrice, longest, false);
      steps.push(`${formatUsd(desired)} needs ${longest} months at the buy rate: no rate markup on this deal.`);
    } else {
      const maxFinanced = principalFor(desired, rateFor(longest, false), longest);
      const priceForPayment = Math.floor(maxFinanced + input.downPayment + equity);
      const floor = Math.ceil(costBasis);
      if (priceForPayment >= floor) {
        chosen = pencil(priceForPayment, longest, false);
        steps.push(
          `${formatUsd(desired)} needs ${longest} months at the buy rate and a price of ${formatUsd(priceForPayment)} (${formatUsd(input.vehiclePrice - priceForPayment)} off asking).`,
        );
      } else {
        chosen = pencil(Math.min(input.vehiclePrice, floor), longest, false);
        const extraDown = Math.ceil(chosen.amountFinanced - maxFinanced);
        shortfall = `${formatUsd(desired)} is out of reach: the best pencil (${formatUsd(chosen.sellingPrice)}, zero front gross, ${longest} months at the buy rate) pays ${formatUsd(chosen.payment)}. It would take ${formatUsd(extraDown)} more cash down or trade equity, a payment of ${formatUsd(chosen.payment)}, or a unit priced about ${formatUsd(Math.max(0, chosen.sellingPrice - extraDown))}.`;
      }
    }
    met = chosen.payment <= desired;
  }

  const ltv = roundTo((chosen.amountFinanced / input.vehiclePrice) * 100, 1);
  const frontGross = roundCents(chosen.sellingPrice - costBasis);

  const risks: { level: "medium" | "high"; reason: string }[] = [];
  if (ltv > tier.maxLtv)
    risks.push({ level: "high", reason: `LTV ${ltv}% is over the ${tier.maxLtv}% advance typical for ${TIER_LABEL[tier.tier]}` });
  else if (ltv > tier.maxLtv - 10) risks.push({ level: "medium", reason: `LTV ${ltv}% is within 10 points of the ${tier.maxLtv}% tier advance` });
  if (tier.tier === "deep_subprime")
    risks.push({ level: "high", reason: `deep subprime (${input.beacon}): specialty lenders, heavy stips, ~10 days to fund` });
  else if (tier.tier === "subprime")
    risks.push({ level: "medium", reason: `subprime (${input.beacon}): expect income, residence and reference stips` });
  if (equity < 0) risks.push({ level: "medium", reason: `${formatUsd(-equity)} negative equity rolled into the loan` });
  if (chosen.term > tier.maxTerm)
    risks.push({ level: "high", reason: `${chosen.term} months is over the ${tier.maxTerm}-month maximum for ${TIER_LABEL[tier.tier]}` });
  else if (chosen.term > 72)
    risks.push({ level: "medium", reason: `${chosen.term}-month term: lenders want newer, low-mile units and larger loans` });
  if (met === false) risks.push({ level: "medium", reason: "the customer's payment is not met; expect a re-desk" });
  const fundingRisk = risks.some((r) => r.level === "high") ? "high" : risks.length > 0 ? "medium" : "low";

  const financedDeal = chosen.amountFinanced > 0;
  const fiProducts = reference.fiProducts
    .filter((p) => financedDeal || !p.financedOnly)
    .map((p) => ({
      product: p.product,
      label: p.label,
      penetration_rate:
        p.penetrationHighLtv !== null && ltv > HIGH_LTV_PCT ? p.penetrationHighLtv : input.condition === "new" ? p.penetrationNew : p.penetrationUsed,
      typical_profit: p.typicalProfit,
      objection: `"${p.objection}" ${p.wordTrack}`,
    }))
    .sort((a, b) => b.penetration_rate - a.penetration_rate || compareText(a.product, b.product));

  const notes = [
    equity < 0
      ? `Trade is ${formatUsd(-equity)} upside down (value ${formatUsd(input.tradeValue)}, payoff ${formatUsd(input.tradePayoff)}); the negative equity is rolled into the amount financed.`
      : input.tradeValue > 0
        ? `Trade equity ${formatUsd(equity)} goes toward the deal.`
        : "",
    `Amount financed ${formatUsd(chosen.amountFinanced)} = price ${formatUsd(chosen.sellingPrice)} − down ${formatUsd(input.downPayment)} ${equity >= 0 ? "− trade equity" : "+ negative equity"} ${formatUsd(Math.abs(equity))} (before tax, title and fees).`,
    `${TIER_LABEL[tier.tier]} buy rate ${formatPct(buyRate)}; contract rate ${formatPct(chosen.rate)} over ${chosen.term} months.`,
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
      amount_financed: chosen.amountFinanced,
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
