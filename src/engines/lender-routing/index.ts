/**
 * Lender routing (docs/domain/lender-routing.md, contract in docs/deal-desk.md): knock out the
 * store's panel programs a deal breaks by hard rule, then rank the rest as a desk manager does
 * (docs/domain/lender-routing.md#ranking): calibrated approval in coarse buckets, then the
 * customer's rate, then days to fund, then stip burden; a down-tier placement is never primary
 * while an in-tier program approves. Calibration is Beta-Binomial: the program-fit score is the
 * prior mean (worth PRIOR_WEIGHT submissions), updated by the store's own decisions from that
 * lender in the deal's score band; the ranking reads the posterior's lower bound, so a thin
 * history does not outrank a long one (docs/domain/lender-routing.md#approval-evidence).
 */
import {
  type AmountFinanced,
  amountFinanced,
  type Condition,
  type CreditTier,
  compareText,
  contractPayment,
  type FinancedInputs,
  formatPct,
  joinWords,
  type KnownIssue,
  type KnownIssueRow,
  REGULAR_FIRST_PERIOD_DAYS,
  roundCents,
  roundTo,
  TIER_LABEL,
  type TierRow,
  tierApr,
  tierFor,
  type VehicleAdjustmentRow,
  type VehicleType,
} from "../deal-math";
import type { LenderType } from "../deal-math/vocabulary";
import { formatCount, formatUsd } from "../format";
import {
  LENDER_TYPE_LABEL,
  ltvSentence,
  maxAdvance,
  overAdvance,
  type PredictedStip,
  type StipProgram,
  type StipRuleRow,
  type StipTypeRow,
  stipBurdenHours,
  stipPredictor,
} from "../stips";
import { type OutcomeShift, tighteningFactor } from "./outcome-shift";

export interface LenderProgramRow extends StipProgram {
  id: string;
  minScore: number;
  maxScore: number;
  maxLtv: number;
  maxPti: number;
  maxTerm: number;
  minDownPct: number;
  vehicleMaxAge: number;
  vehicleMaxMiles: number;
  acceptsRepo: boolean;
  acceptsBk7: boolean;
  acceptsBk13: boolean;
  acceptsItin: boolean;
  acceptsThinFile: boolean;
  acceptsChargeOff: boolean;
  rateMargin: number;
  rateAdd: Partial<Record<KnownIssue, number>>;
  fundingDays: number;
  /** Smallest amount financed it writes (docs/domain/lender-routing.md#amount-financed-limits). */
  minAmount: number;
  /** Largest amount financed it writes; null: no stated maximum. */
  maxAmount: number | null;
  /** Its term ladder (docs/domain/lender-routing.md#term-limits); empty: `maxTerm` alone. */
  termLimits: readonly TermRung[];
}

/** One rung of a program's term ladder: up to `maxTerm` months when the deal meets every limit set. */
export interface TermRung {
  maxTerm: number;
  minAmount: number;
  maxVehicleAge: number | null;
  maxMileage: number | null;
}

export interface DecisionCounts {
  approved: number;
  countered: number;
  declined: number;
}

/** A store's decisions per program and score band. */
export type Calibration = ReadonlyMap<string, Partial<Record<CreditTier, DecisionCounts>>>;

/** The ranking figures, rows of `lender_routing_settings` (docs/domain/lender-routing.md#ranking). */
export interface RoutingSettings {
  approvalBucketHigh: number;
  approvalBucketLow: number;
  downTierScoreMargin: number;
  /** z of the lower bound of the approval posterior the ranking reads (docs/domain/lender-routing.md#approval-evidence). */
  approvalEvidenceZ: number;
}

export interface RoutingReference {
  settings: RoutingSettings;
  tiers: readonly TierRow[];
  vehicleAdjustments: ReadonlyMap<VehicleType, VehicleAdjustmentRow>;
  issueRules: ReadonlyMap<KnownIssue, KnownIssueRow>;
  stipRules: readonly StipRuleRow[];
  stipTypes: ReadonlyMap<string, StipTypeRow>;
}

export interface RouteProfile extends FinancedInputs {
  beacon: number;
  vehicleType: VehicleType;
  condition: Condition;
  knownIssues: readonly KnownIssue[];
  termMonths?: number;
  /** Book retail the LTV is measured against; default the vehicle price. */
  bookValue?: number;
  monthlyIncome?: number;
  vehicleYear?: number;
  mileage?: number;
  /** Days from the contract to the first payment (docs/domain/deal-math.md#odd-first-period); default a regular month. */
  daysToFirstPayment?: number;
}

/** How many submissions the program-fit prior is worth against the store's own history. */
const PRIOR_WEIGHT = 10;
/** A fitting program below this calibrated likelihood is listed under `avoid` as a poor fit. */
const POOR_FIT_CONFIDENCE = 0.35;
/** The term priced when the request names none (Experian Q4 2024 average ≈ 68 months, docs/domain/lender-routing.md#terms), capped by the program. */
const DEFAULT_TERM_MONTHS = 72;

const ACCEPTS: Record<KnownIssue, keyof LenderProgramRow> = {
  repo: "acceptsRepo",
  bk7: "acceptsBk7",
  bk13: "acceptsBk13",
  itin: "acceptsItin",
  thin_file: "acceptsThinFile",
  charge_off: "acceptsChargeOff",
};

export type ApprovalBucket = "high" | "medium" | "low";

export interface LenderPick {
  lender: string;
  lender_id: string;
  lender_type: LenderType;
  rate_range: string;
  /** The customer's expected contract rate here (the middle of `rate_range`), the second ranking key. */
  expected_rate: number;
  confidence: number;
  /** The lower bound of the approval posterior: the ranking's evidence, low when the sample is thin. */
  approval_evidence: number;
  approval_bucket: ApprovalBucket;
  /** Prime paper at a lender far below it (docs/domain/lender-routing.md#down-tier-placement). */
  down_tier: boolean;
  program_fit: number;
  history: DecisionCounts;
  term_months: number;
  funding_days: number;
  stip_burden_hours: number;
  reasons: string[];
}

export interface RouteResult {
  primary: LenderPick | null;
  backup: LenderPick | null;
  avoid: string[];
  avoid_reason: string;
  /** Per avoided lender, the first rule it broke (rules in the order of the knock-out checks). */
  avoid_details: { lender: string; rule: string; reason: string }[];
  predicted_stips: string[];
  routing_note: string;
  tier: CreditTier;
  ltv: number;
  amount_financed: number;
  negative_equity: number;
  /** Inputs the request did not supply, so the LTV leaves them out (docs/domain/deal-math.md#amount-financed). */
  ltv_excludes: string[];
  /**
   * When the requested term knocked programs out: the longer terms they write, each with the
   * programs that approve at it (docs/domain/lender-routing.md#term-limits).
   */
  term_options: { term_months: number; lenders: string[] }[];
  panel_size: number;
}

interface Knockout {
  rule: string;
  /** The group heading in `avoid_reason`. */
  heading: string;
  text: string;
  /** For a term knock-out: the longest term the program writes on the deal. */
  termCap?: number;
}

/**
 * A program no rule knocked out: what ranking needs. Its sentences (`rate_range`, `reasons`) are
 * written by `toPick` only for the programs an answer shows: a panel has a dozen candidates and an
 * answer shows two of them, and the poor fits.
 */
interface Candidate extends Omit<LenderPick, "rate_range" | "reasons"> {
  program: LenderProgramRow;
  fit: number;
  maxLtv: number;
  issueAdd: number;
  lowRate: number;
  highRate: number;
  /** Submissions in the store's history behind `confidence`. */
  submissions: number;
  /** Why the term is shorter than the default, when the program's limits cut it; else null. */
  termCut: string | null;
  /** The program's open tightening at the store, when its likelihood was scaled for it. */
  tightening?: string;
}

interface Evaluated {
  program: LenderProgramRow;
  downTier: boolean;
  knockout: Knockout | null;
  /** Only for a program no rule knocked out. */
  candidate: Candidate | null;
}

/** What every program's evaluation shares, computed once per call rather than once per program. */
interface DealFacts {
  profile: RouteProfile;
  tier: TierRow;
  financed: AmountFinanced;
  ltv: number;
  /** The book value the LTV is measured on. */
  book: number;
  adjustment: VehicleAdjustmentRow | undefined;
  /** Down payment plus positive trade equity, % of the price (docs/domain/lender-routing.md#down-payment). */
  downPct: number;
  /** The known issues' extra down payment, points. */
  extraDownPct: number;
  /** The shortest term the known issues allow, and the issue that sets it. */
  issueTermCap: number;
  issueTermWhy: string | null;
  /** Model years old, and odometer: a new unit without them is this year's with no miles; null: unknown. */
  vehicleAge: number | null;
  mileage: number | null;
  /** The tier's APR for the condition and vehicle type, before the program's margin and the issues. */
  baseApr: number;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** The program's LTV maximum for the vehicle: its own plus the vehicle-type add (docs/domain/lender-routing.md#ltv-limits). */
export const programMaxLtv = (program: Pick<LenderProgramRow, "maxLtv">, adjustment: Pick<VehicleAdjustmentRow, "ltvAdd"> | undefined) =>
  program.maxLtv + (adjustment?.ltvAdd ?? 0);

/** A percentage with as many decimals as it takes to read over its cap (an LTV over 125% by cents is not "125.0%"). */
function pctOver(value: number, cap: number): string {
  for (const decimals of [1, 2, 3]) if (roundTo(value, decimals) > cap) return `${roundTo(value, decimals)}`;
  return `just over ${cap}`;
}

/** What a program's term limits read of a deal (the routing's DealFacts, or the coach's pencil). */
export type TermFacts = Pick<DealFacts, "tier" | "vehicleAge" | "mileage" | "issueTermCap" | "issueTermWhy"> & {
  financed: Pick<AmountFinanced, "amount">;
};

/**
 * The vehicle's age in model years and its odometer as the limits read them: a new unit without
 * them is this model year's with delivery miles; a used unit's fact not given is null (unknown).
 */
export function vehicleFacts(condition: Condition, vehicleYear: number | undefined, mileage: number | undefined, asOf: Date) {
  const isNew = condition === "new";
  return {
    vehicleAge: vehicleYear !== undefined ? Math.max(0, asOf.getUTCFullYear() - vehicleYear) : isNew ? 0 : null,
    mileage: mileage ?? (isNew ? 0 : null),
  };
}

/**
 * The longest term the program writes on this deal, and why (docs/domain/lender-routing.md#term-limits):
 * the least of its own maximum, the customer's tier, the known issues' caps and its term ladder.
 */
export function termCap(deal: TermFacts, program: LenderProgramRow): { months: number | null; why: string } {
  const { financed, vehicleAge, mileage, tier } = deal;
  const ladder = ladderTerm(program, financed.amount, vehicleAge, mileage);
  if (ladder === null) return { months: null, why: `its term ladder has no term for ${formatUsd(financed.amount)} on this vehicle` };
  const limits = [
    { months: program.maxTerm, why: `its longest term is ${program.maxTerm} months` },
    { months: tier.maxTerm, why: `${TIER_LABEL[tier.tier]} paper is written to ${tier.maxTerm} months at most` },
    {
      months: ladder,
      why: nextRungNeeds(program, ladder, financed.amount, vehicleAge, mileage) ?? `its ladder stops at ${ladder} months for this vehicle and amount`,
    },
  ];
  if (deal.issueTermWhy !== null) limits.push({ months: deal.issueTermCap, why: deal.issueTermWhy });
  const months = Math.min(...limits.map((l) => l.months));
  return {
    months,
    why: limits
      .filter((l) => l.months === months)
      .map((l) => l.why)
      .join("; "),
  };
}

/** Program fit, the prior of approval (docs/domain/lender-routing.md#approval-likelihood): a DEFAULT formula, monotone in the score. */
export function programFit(scoreMargin: number, ltvHeadroomPts: number, ptiHeadroom: number | null, issueCount: number): number {
  const scoreFit = clamp(scoreMargin / 80, 0, 1);
  const ltvFit = clamp(ltvHeadroomPts / 20, 0, 1);
  const ptiFit = ptiHeadroom === null ? 0.5 : clamp(ptiHeadroom / 0.05, 0, 1);
  return roundTo(clamp(0.3 + 0.35 * scoreFit + 0.2 * ltvFit + 0.1 * ptiFit - 0.07 * issueCount, 0.05, 0.95), 4);
}

/** Beta-Binomial posterior; a counter is half an approval and half a decline. */
function posterior(fit: number, counts: DecisionCounts) {
  const alpha = PRIOR_WEIGHT * fit + counts.approved + counts.countered / 2;
  const beta = PRIOR_WEIGHT * (1 - fit) + counts.declined + counts.countered / 2;
  return { mean: alpha / (alpha + beta), weight: alpha + beta };
}

/** The posterior mean: the approval likelihood the answer states. */
export function calibratedConfidence(fit: number, counts: DecisionCounts): number {
  return posterior(fit, counts).mean;
}

/**
 * The evidence the ranking reads (docs/domain/lender-routing.md#approval-evidence): the posterior
 * mean less z standard deviations of the Beta posterior, sd = √(m(1−m)/(α+β+1)). Sixteen decisions
 * narrow it, one does not: 0.70 on sixteen outranks 0.57 on one.
 */
function approvalEvidence(fit: number, counts: DecisionCounts, z: number): number {
  const { mean, weight } = posterior(fit, counts);
  return Math.max(0, mean - z * Math.sqrt((mean * (1 - mean)) / (weight + 1)));
}

/**
 * The longest term the program's ladder allows on the deal (docs/domain/lender-routing.md#term-limits):
 * the longest rung whose every limit the deal meets; a limit on a fact the request did not give is
 * not met. Null when no rung is met; an empty ladder leaves the program's `maxTerm`.
 */
function ladderTerm(program: Pick<LenderProgramRow, "maxTerm" | "termLimits">, amount: number, age: number | null, mileage: number | null) {
  if (program.termLimits.length === 0) return program.maxTerm;
  let longest: number | null = null;
  for (const rung of program.termLimits) {
    if (amount < rung.minAmount) continue;
    if (rung.maxVehicleAge !== null && (age === null || age > rung.maxVehicleAge)) continue;
    if (rung.maxMileage !== null && (mileage === null || mileage > rung.maxMileage)) continue;
    if (longest === null || rung.maxTerm > longest) longest = rung.maxTerm;
  }
  return longest;
}

/** What the next rung up needs that the deal lacks: "60 months needs 100,000 miles or fewer". */
function nextRungNeeds(program: LenderProgramRow, term: number, amount: number, age: number | null, mileage: number | null): string | null {
  const next = program.termLimits.filter((r) => r.maxTerm > term).sort((a, b) => a.maxTerm - b.maxTerm)[0];
  if (!next) return null;
  const needs: string[] = [];
  if (amount < next.minAmount) needs.push(`${formatUsd(next.minAmount)} or more financed`);
  if (next.maxVehicleAge !== null && (age === null || age > next.maxVehicleAge)) {
    needs.push(age === null ? "the model year (not supplied)" : `a vehicle ${next.maxVehicleAge} model years old or newer`);
  }
  if (next.maxMileage !== null && (mileage === null || mileage > next.maxMileage)) {
    needs.push(mileage === null ? "the mileage (not supplied)" : `${formatCount(next.maxMileage)} miles or fewer`);
  }
  return needs.length === 0 ? null : `${next.maxTerm} months needs ${joinWords(needs)}`;
}

const NO_HISTORY: DecisionCounts = { approved: 0, countered: 0, declined: 0 };

/** The coarse approval bucket: ≥ high edge, ≥ low edge, under it (docs/domain/lender-routing.md#ranking). */
export function approvalBucket(confidence: number, settings: RoutingSettings): ApprovalBucket {
  if (confidence >= settings.approvalBucketHigh) return "high";
  return confidence >= settings.approvalBucketLow ? "medium" : "low";
}

const PRIME_PAPER: ReadonlySet<CreditTier> = new Set(["super_prime", "prime", "near_prime"]);
const HIGHER_COST_LENDERS: ReadonlySet<LenderType> = new Set(["subprime", "bhph"]);

/**
 * A down-tier placement (docs/domain/lender-routing.md#down-tier-placement): the customer's score
 * is at least the margin over the program's ceiling, or prime / near-prime paper at a subprime or
 * buy-here-pay-here lender.
 */
export function isDownTier(
  beacon: number,
  tier: CreditTier,
  program: Pick<LenderProgramRow, "maxScore" | "type">,
  settings: RoutingSettings,
): boolean {
  return beacon >= program.maxScore + settings.downTierScoreMargin || (PRIME_PAPER.has(tier) && HIGHER_COST_LENDERS.has(program.type));
}

/** The program's amount-financed limits (docs/domain/lender-routing.md#amount-financed-limits). */
function amountKnockout(program: LenderProgramRow, amount: number): Knockout | null {
  if (amount < program.minAmount) {
    return {
      rule: "amount_under_minimum",
      heading: "amount financed under the program minimum",
      text: `writes loans from ${formatUsd(program.minAmount)}; this deal finances ${formatUsd(amount)}`,
    };
  }
  if (program.maxAmount !== null && amount > program.maxAmount) {
    return {
      rule: "amount_over_maximum",
      heading: "amount financed over the program maximum",
      text: `writes loans up to ${formatUsd(program.maxAmount)}; this deal finances ${formatUsd(amount)}`,
    };
  }
  return null;
}

/** The program's own vehicle limits; a fact not given is not held against it (docs/domain/lender-routing.md#term-limits). */
function vehicleKnockout(program: LenderProgramRow, vehicleAge: number | null, mileage: number | null): Knockout | null {
  if (vehicleAge !== null && vehicleAge > program.vehicleMaxAge) {
    return {
      rule: "vehicle_too_old",
      heading: "vehicle older than the program allows",
      text: `takes vehicles up to ${program.vehicleMaxAge} years old; this one is ${vehicleAge}`,
    };
  }
  if (mileage !== null && mileage > program.vehicleMaxMiles) {
    return {
      rule: "mileage_over_limit",
      heading: "mileage over the program limit",
      text: `takes vehicles up to ${formatCount(program.vehicleMaxMiles)} miles`,
    };
  }
  return null;
}

/**
 * The longest term a program writes for a clean-file customer on a vehicle and an amount, or why it
 * writes none: its score window, amount limits, vehicle limits and term cap, as the router applies
 * them. The deal coach's pencils read it (docs/domain/deal-coach.md#program-limits).
 */
export function programTerm(program: LenderProgramRow, beacon: number, facts: TermFacts): { months: number | null; why: string; termBound: boolean } {
  const out = (why: string) => ({ months: null, why, termBound: false });
  if (beacon < program.minScore) return out(`score ${beacon} is under its ${program.minScore} minimum`);
  if (beacon > program.maxScore) return out(`score ${beacon} is over its ${program.maxScore} ceiling for a clean file`);
  const knockout = amountKnockout(program, facts.financed.amount) ?? vehicleKnockout(program, facts.vehicleAge, facts.mileage);
  return knockout ? out(knockout.text) : { ...termCap(facts, program), termBound: true };
}

/**
 * The request fields that would open longer terms (docs/domain/lender-routing.md#term-limits): a used
 * unit's model year or mileage not given meets no rung that limits it. Each program is re-read with
 * the missing facts at their best (this year, no miles); a field is named when the longest term
 * rises only with it. Null when nothing is missing or supplying it opens no longer term.
 */
export function unsuppliedVehicleFacts(
  facts: TermFacts,
  programs: readonly LenderProgramRow[],
  termFor: (program: LenderProgramRow, facts: TermFacts) => number | null,
): { fields: string[]; longestNow: number | null; longestWith: number } | null {
  const missing = [facts.vehicleAge === null ? "vehicle_year" : null, facts.mileage === null ? "mileage" : null].filter((f) => f !== null);
  if (missing.length === 0) return null;
  const longest = (f: TermFacts) => Math.max(0, ...programs.map((p) => termFor(p, f) ?? 0));
  const best = (keep: string | null): TermFacts => ({
    ...facts,
    vehicleAge: keep === "vehicle_year" ? facts.vehicleAge : (facts.vehicleAge ?? 0),
    mileage: keep === "mileage" ? facts.mileage : (facts.mileage ?? 0),
  });
  const now = longest(facts);
  const withAll = longest(best(null));
  if (withAll <= now) return null;
  const needed = missing.filter((field) => longest(best(field)) < withAll);
  return { fields: needed.length > 0 ? needed : missing, longestNow: now > 0 ? now : null, longestWith: withAll };
}

/** "Without the vehicle's mileage (not supplied) only terms that do not need it are written: …; send mileage to open terms up to 72 months." */
export function unsuppliedSentence(opened: NonNullable<ReturnType<typeof unsuppliedVehicleFacts>>): string {
  const words = opened.fields.map((f) => (f === "vehicle_year" ? "model year" : "mileage"));
  const now = opened.longestNow === null ? "none on this deal" : `${opened.longestNow} months at most on this deal`;
  return `Without the vehicle's ${joinWords(words)} (not supplied) only terms that do not need ${words.length === 1 ? "it" : "them"} are written, ${now}: send ${joinWords(opened.fields)} to open terms up to ${opened.longestWith} months.`;
}

function evaluate(
  deal: DealFacts,
  program: LenderProgramRow,
  reference: RoutingReference,
  calibration: Calibration,
  stipsFor: (program: LenderProgramRow) => PredictedStip[],
): Evaluated {
  const { profile, tier, financed, ltv, adjustment, downPct } = deal;
  const downTier = isDownTier(profile.beacon, tier.tier, program, reference.settings);
  // The first rule a program breaks is the one reported; the rest are not worth computing.
  const out = (knockout: Knockout): Evaluated => ({ program, downTier, knockout, candidate: null });
  const issues = profile.knownIssues;

  if (profile.beacon < program.minScore) {
    return out({
      rule: "score_below_minimum",
      heading: `score ${profile.beacon} under the program minimum`,
      text: `score ${profile.beacon} is under its ${program.minScore} minimum`,
    });
  }
  for (const issue of issues) {
    if (!program[ACCEPTS[issue]]) {
      const label = reference.issueRules.get(issue)?.label ?? issue;
      const words = `does not take ${/^[aeiou]/i.test(label) ? "an" : "a"} ${label}`;
      return out({ rule: `no_${issue}`, heading: words, text: words });
    }
  }
  // Score ceilings apply to clean files: a program that takes the customer's known issue is never
  // knocked out for a high score (docs/domain/lender-routing.md#known-issues).
  if (issues.length === 0 && profile.beacon > program.maxScore) {
    return out({
      rule: "score_above_program",
      heading: "score over the program's ceiling for a clean file",
      text: `score ${profile.beacon} is over its ${program.maxScore} ceiling for a clean file`,
    });
  }
  const amountOut = amountKnockout(program, financed.amount);
  if (amountOut) return out(amountOut);
  const maxLtv = programMaxLtv(program, adjustment);
  const over = overAdvance(financed.amount, deal.book, maxLtv);
  if (over > 0) {
    return out({
      rule: "ltv_over_maximum",
      heading: `LTV ${pctOver(ltv, maxLtv)}% over the program maximum`,
      text: `LTV ${pctOver(ltv, maxLtv)}% is over its ${maxLtv}% maximum: it advances up to ${formatUsd(maxAdvance(deal.book, maxLtv))}; ${formatUsd(Math.ceil(over))} more cash down brings it inside`,
    });
  }
  const requiredDownPct = program.minDownPct + deal.extraDownPct;
  if (downPct + 1e-9 < requiredDownPct) {
    return out({
      rule: "down_payment_short",
      heading: "down payment short of the program's requirement",
      text: `needs ${requiredDownPct}% down (${formatUsd(Math.ceil((profile.vehiclePrice * requiredDownPct) / 100))}); the deal has ${roundTo(downPct, 1)}% (cash down plus trade equity)`,
    });
  }
  const vehicleOut = vehicleKnockout(program, deal.vehicleAge, deal.mileage);
  if (vehicleOut) return out(vehicleOut);
  const cap = termCap(deal, program);
  if (cap.months === null) {
    return out({ rule: "no_term_fits", heading: "no term the program writes fits this vehicle and amount", text: cap.why });
  }
  const term = profile.termMonths ?? Math.min(DEFAULT_TERM_MONTHS, cap.months);
  if (profile.termMonths !== undefined && profile.termMonths > cap.months) {
    return out({
      rule: "term_over_limit",
      heading: `${profile.termMonths}-month term over the program limit`,
      text: `writes at most ${cap.months} months on this deal (${cap.why})`,
      termCap: cap.months,
    });
  }

  const issueAdd = issues.reduce((sum, issue) => sum + (program.rateAdd[issue] ?? reference.issueRules.get(issue)?.rateAdd ?? 0), 0);
  const rate = Math.max(0, deal.baseApr + program.rateMargin + issueAdd);
  const low = Math.max(0, rate - tier.aprSpread);
  // The payment the contract states, to the cent: PTI at exactly the cap is inside it (docs/domain/lender-routing.md#pti-and-dti).
  const payment = roundCents(contractPayment(financed.amount, rate, term, profile.daysToFirstPayment ?? REGULAR_FIRST_PERIOD_DAYS));
  let ptiHeadroom: number | null = null;
  if (profile.monthlyIncome !== undefined) {
    const pti = payment / profile.monthlyIncome;
    ptiHeadroom = program.maxPti - pti;
    if (pti > program.maxPti) {
      return out({
        rule: "pti_over_cap",
        heading: "payment-to-income over the program cap",
        text: `payment ${formatUsd(payment)} is ${pctOver(pti * 100, program.maxPti * 100)}% of income, over its ${program.maxPti * 100}% cap`,
      });
    }
  }

  const fit = programFit(profile.beacon - program.minScore, maxLtv - ltv, ptiHeadroom, issues.length);
  const history = calibration.get(program.id)?.[tier.tier] ?? NO_HISTORY;
  const confidence = roundTo(calibratedConfidence(fit, history), 2);
  const evidence = roundTo(approvalEvidence(fit, history, reference.settings.approvalEvidenceZ), 2);
  return {
    program,
    downTier,
    knockout: null,
    candidate: {
      program,
      fit,
      maxLtv,
      issueAdd,
      lowRate: low,
      highRate: rate + tier.aprSpread,
      lender: program.name,
      lender_id: program.id,
      lender_type: program.type,
      expected_rate: roundTo(rate, 2),
      confidence,
      approval_evidence: evidence,
      approval_bucket: approvalBucket(evidence, reference.settings),
      down_tier: downTier,
      program_fit: roundTo(fit, 2),
      history,
      term_months: term,
      funding_days: program.fundingDays,
      stip_burden_hours: stipBurdenHours(stipsFor(program)),
      submissions: history.approved + history.countered + history.declined,
      termCut: term < DEFAULT_TERM_MONTHS && profile.termMonths === undefined ? `term ${term} months: ${cap.why}` : null,
    },
  };
}

/** The candidate as the answer shows it, with its rate range and the reasons for its likelihood. */
function toPick(candidate: Candidate, deal: DealFacts): LenderPick {
  const { profile, tier, ltv } = deal;
  const { program, fit, history, issueAdd } = candidate;
  const issues = profile.knownIssues;
  const reasons = [
    `program fit ${fit.toFixed(2)}: score ${profile.beacon} vs minimum ${program.minScore}, LTV ${roundTo(ltv, 1)}% vs ${candidate.maxLtv}% maximum${issues.length ? `, ${issues.length} known issue(s)` : ""}`,
  ];
  const submissions = history.approved + history.countered + history.declined;
  if (submissions > 0) {
    reasons.push(
      `store history in the ${TIER_LABEL[tier.tier]} band: ${history.approved} approved, ${history.countered} countered, ${history.declined} declined of ${submissions}`,
    );
  } else reasons.push(`no store history with this lender in the ${TIER_LABEL[tier.tier]} band: program fit alone`);
  if (issueAdd > 0) reasons.push(`rate includes ${roundTo(issueAdd, 2)} pts for ${issues.join(", ")}`);
  if (candidate.termCut) reasons.push(candidate.termCut);
  if (candidate.tightening) reasons.push(candidate.tightening);
  if (candidate.down_tier) {
    reasons.push(
      `down-tier placement: ${TIER_LABEL[tier.tier]} paper at a ${LENDER_TYPE_LABEL[program.type]} whose programs run to ${program.maxScore}`,
    );
  }
  return {
    lender: candidate.lender,
    lender_id: candidate.lender_id,
    lender_type: candidate.lender_type,
    rate_range: `${formatPct(candidate.lowRate)} - ${formatPct(candidate.highRate)}`,
    expected_rate: candidate.expected_rate,
    confidence: candidate.confidence,
    approval_evidence: candidate.approval_evidence,
    approval_bucket: candidate.approval_bucket,
    down_tier: candidate.down_tier,
    program_fit: candidate.program_fit,
    history: { ...history },
    term_months: candidate.term_months,
    funding_days: candidate.funding_days,
    stip_burden_hours: candidate.stip_burden_hours,
    reasons,
  };
}

const BUCKET_ORDER: Record<ApprovalBucket, number> = { high: 0, medium: 1, low: 2 };

/**
 * docs/domain/lender-routing.md#ranking: the evidence's approval bucket, then the customer's
 * expected rate, then the evidence itself, the likelihood and the sample behind it, then faster
 * funding, then fewer stip hours. The name decides only when every one of those is equal, so the
 * order is the same on every run.
 */
function byRank(a: RankKeys, b: RankKeys): number {
  return (
    BUCKET_ORDER[a.approval_bucket] - BUCKET_ORDER[b.approval_bucket] ||
    a.expected_rate - b.expected_rate ||
    b.approval_evidence - a.approval_evidence ||
    b.confidence - a.confidence ||
    b.submissions - a.submissions ||
    a.funding_days - b.funding_days ||
    a.stip_burden_hours - b.stip_burden_hours ||
    compareText(a.lender, b.lender)
  );
}

type RankKeys = Pick<
  Candidate,
  "approval_bucket" | "expected_rate" | "approval_evidence" | "confidence" | "submissions" | "funding_days" | "stip_burden_hours" | "lender"
>;

/**
 * A down-tier placement is never primary, nor backup ahead of an in-tier program, while an in-tier
 * program approves at the low bucket edge or better (docs/domain/lender-routing.md#down-tier-placement).
 */
function inTierFirst(ranked: readonly Candidate[], settings: RoutingSettings): Candidate[] {
  const approvingInTier = (p: Candidate) => !p.down_tier && p.confidence >= settings.approvalBucketLow;
  return [...ranked.filter(approvingInTier), ...ranked.filter((p) => !approvingInTier(p))];
}

/** A program's open tightening at the store (./outcome-shift.ts), as routing reads it. */
export type ProgramTightening = Pick<OutcomeShift, "before" | "after"> & { summary: string; since: string };

/**
 * The candidate of a program with an open tightening, its likelihood and evidence scaled by the
 * recent approval rate over the baseline's (docs/domain/lender-routing.md#ranking-a-tightened-program).
 */
function withTightening(e: Evaluated, tightening: ProgramTightening | undefined, settings: RoutingSettings): Evaluated {
  if (!tightening || !e.candidate) return e;
  const factor = tighteningFactor(tightening);
  const evidence = roundTo(e.candidate.approval_evidence * factor, 2);
  return {
    ...e,
    candidate: {
      ...e.candidate,
      confidence: roundTo(e.candidate.confidence * factor, 2),
      approval_evidence: evidence,
      approval_bucket: approvalBucket(evidence, settings),
      tightening: `${tightening.summary} (since ${tightening.since}): approval likelihood scaled by ${factor.toFixed(2)}`,
    },
  };
}

/** What every program's evaluation of this deal reads, computed once per deal. */
function dealFactsOf(profile: RouteProfile, reference: RoutingReference, asOf: Date): DealFacts {
  const tier = tierFor(reference.tiers, profile.beacon);
  const financed = amountFinanced(profile);
  const book = profile.bookValue ?? profile.vehiclePrice;
  const ltv = (financed.amount / book) * 100;
  const issueRules = profile.knownIssues.map((issue) => reference.issueRules.get(issue));
  const adjustment = reference.vehicleAdjustments.get(profile.vehicleType);
  const issueTermCap = Math.min(...issueRules.map((rule) => rule?.maxTerm ?? Number.POSITIVE_INFINITY));
  const capping = issueRules.filter((rule) => rule?.maxTerm === issueTermCap).map((rule) => rule?.label);
  return {
    profile,
    tier,
    financed,
    ltv,
    book,
    adjustment,
    // Positive trade equity is down payment to a lender (docs/domain/lender-routing.md#down-payment).
    downPct: ((profile.downPayment + financed.tradeEquity) / profile.vehiclePrice) * 100,
    extraDownPct: issueRules.reduce((sum, rule) => sum + (rule?.extraDownPct ?? 0), 0),
    issueTermCap,
    issueTermWhy: capping.length > 0 ? `a ${joinWords(capping as string[])} caps the term at ${issueTermCap} months` : null,
    ...vehicleFacts(profile.condition, profile.vehicleYear, profile.mileage, asOf),
    baseApr: tierApr(tier, profile.condition, adjustment),
  };
}

export function routeLender(
  profile: RouteProfile,
  panel: readonly LenderProgramRow[],
  reference: RoutingReference,
  calibration: Calibration,
  asOf: Date,
  tightenings: ReadonlyMap<string, ProgramTightening> = new Map(),
): RouteResult {
  const deal = dealFactsOf(profile, reference, asOf);
  const { tier, financed, ltv } = deal;
  // The stips depend on the program's type and base stips only: a handful of distinct sets per panel,
  // found by comparing the rows (a key string joined per program cost more than the search).
  const stipSets: { program: LenderProgramRow; stips: PredictedStip[] }[] = [];
  const sameStipInputs = (a: LenderProgramRow, b: LenderProgramRow) =>
    a.type === b.type && a.baseStips.length === b.baseStips.length && a.baseStips.every((stip, i) => stip === b.baseStips[i]);
  const predict = stipPredictor({ tier: tier.tier, knownIssues: profile.knownIssues, asOf }, reference.stipRules, reference.stipTypes);
  const stipsFor = (program: LenderProgramRow) => {
    const known = stipSets.find((set) => sameStipInputs(set.program, program));
    if (known) return known.stips;
    const stips = predict(program);
    stipSets.push({ program, stips });
    return stips;
  };
  const evaluated = panel.map((program) =>
    withTightening(evaluate(deal, program, reference, calibration, stipsFor), tightenings.get(program.id), reference.settings),
  );

  // Loops rather than flatMap, which allocates an array per program (a tenth of the engine's time).
  const ranked: Candidate[] = [];
  const knockedOut: { lender: string; rule: string; heading: string; reason: string }[] = [];
  for (const e of evaluated) if (e.candidate) ranked.push(e.candidate);
  ranked.sort(byRank);
  const poorFits = ranked.filter((p) => p.confidence < POOR_FIT_CONFIDENCE);
  const candidates = inTierFirst(
    ranked.filter((p) => p.confidence >= POOR_FIT_CONFIDENCE),
    reference.settings,
  );
  const [primary = null, backup = null] = candidates;
  // A reason must be true for this deal: "better-rate programs fit" only when one that fits quotes less.
  const lowestRate = Math.min(...candidates.map((c) => c.expected_rate));
  for (const { program, knockout } of evaluated) {
    if (!knockout) continue;
    const betterFits = knockout.rule === "score_above_program" && lowestRate < deal.baseApr + program.rateMargin;
    const reason = betterFits ? `${knockout.text}; better-rate programs fit` : knockout.text;
    knockedOut.push({ lender: program.name, rule: knockout.rule, heading: knockout.heading, reason });
  }
  // A shorter term is offered at a down-tier program only when no in-tier program is the pick (steering, docs/domain/lender-routing.md#down-tier-placement).
  const termOptions = shorterTerms(evaluated, deal, primary !== null && !primary.down_tier, (program, termMonths) =>
    withTightening(
      evaluate({ ...deal, profile: { ...profile, termMonths } }, program, reference, calibration, stipsFor),
      tightenings.get(program.id),
      reference.settings,
    ),
  );
  // Every fitting program the store has seen tighten is named, whether or not it is the pick.
  const tightened = ranked.flatMap((c) => (c.tightening ? [`${c.tightening[0].toUpperCase()}${c.tightening.slice(1)}.`] : []));

  const avoided = [
    ...knockedOut.sort((a, b) => compareText(a.lender, b.lender)),
    ...poorFits.map((p) => ({
      lender: p.lender,
      rule: "low_approval_likelihood",
      heading: `approval likelihood under ${POOR_FIT_CONFIDENCE}`,
      reason: `calibrated approval likelihood ${p.confidence.toFixed(2)}; ${toPick(p, deal).reasons.join("; ")}`,
    })),
  ];
  // Grouped by rule, whose heading is the same for every program it knocks out in one call (and a
  // rule is a constant string: no heading built per program is hashed as a key).
  const groups = new Map<string, { heading: string; lenders: string[] }>();
  for (const a of avoided) {
    const group = groups.get(a.rule);
    if (group) group.lenders.push(a.lender);
    else groups.set(a.rule, { heading: a.heading, lenders: [a.lender] });
  }
  const avoidReason = [...groups.values()].map(({ heading, lenders }) => `${heading}: ${lenders.join(", ")}`).join("; ");

  const predicted = primary ? stipsFor(primary.program).map((s) => s.stip) : [];

  return {
    primary: primary && toPick(primary, deal),
    backup: backup && toPick(backup, deal),
    avoid: avoided.map((a) => a.lender),
    avoid_reason: avoidReason,
    avoid_details: avoided.map(({ lender, rule, reason }) => ({ lender, rule, reason })),
    predicted_stips: predicted,
    routing_note: [
      routingNote(
        deal,
        evaluated,
        candidates.length,
        primary,
        backup,
        avoided,
        termOptions,
        primary?.down_tier ? whyNoInTier(evaluated, candidates, reference.settings) : null,
        unsupplied(evaluated, deal),
        // The program alone with more cash down: fits when no rule knocks it out and it approves at or over the poor-fit line.
        (program, more) => {
          const e = withTightening(
            evaluate(
              dealFactsOf({ ...profile, downPayment: profile.downPayment + more }, reference, asOf),
              program,
              reference,
              calibration,
              stipsFor,
            ),
            tightenings.get(program.id),
            reference.settings,
          );
          return e.candidate !== null && e.candidate.confidence >= POOR_FIT_CONFIDENCE;
        },
      ),
      ...tightened,
    ].join(" "),
    tier: tier.tier,
    ltv: roundTo(ltv, 1),
    amount_financed: financed.amount,
    negative_equity: financed.negativeEquity,
    ltv_excludes: financed.excludes,
    term_options: termOptions.map(({ term, picks }) => ({ term_months: term, lenders: picks.map((p) => p.lender) })),
    panel_size: panel.length,
  };
}

/**
 * The programs the requested term alone knocked out, re-run at the longest term each writes: those
 * that then fit with approval at or over the poor-fit line, by term, longest first, ranked
 * (docs/domain/lender-routing.md#term-limits). The re-run checks everything the term changes: the
 * payment, so the payment-to-income cap.
 */
function shorterTerms(
  evaluated: readonly Evaluated[],
  deal: DealFacts,
  inTierPick: boolean,
  atTerm: (program: LenderProgramRow, termMonths: number) => Evaluated,
): { term: number; picks: Candidate[] }[] {
  const byTerm = new Map<number, Candidate[]>();
  for (const e of evaluated) {
    const cap = e.knockout?.termCap;
    if (cap === undefined || deal.profile.termMonths === undefined || (inTierPick && e.downTier)) continue;
    const rerun = atTerm(e.program, cap).candidate;
    if (rerun && rerun.confidence >= POOR_FIT_CONFIDENCE) byTerm.set(cap, [...(byTerm.get(cap) ?? []), rerun]);
  }
  return [...byTerm].sort((a, b) => b[0] - a[0]).map(([term, picks]) => ({ term, picks: picks.sort(byRank) }));
}

/** The sentence naming the vehicle facts that would open longer terms at the programs the term alone limits; null when none would. */
function unsupplied(evaluated: readonly Evaluated[], deal: DealFacts): string | null {
  const termBound = evaluated.filter((e) => e.knockout === null || e.knockout.rule === "term_over_limit" || e.knockout.rule === "no_term_fits");
  const opened = unsuppliedVehicleFacts(
    deal,
    termBound.map((e) => e.program),
    (program, facts) => termCap(facts, program).months,
  );
  return opened && unsuppliedSentence(opened);
}

/**
 * Why no in-tier program is primary: what knocked the in-tier programs out, most common first,
 * and how many fit with approval under the low bucket edge.
 */
function whyNoInTier(evaluated: readonly Evaluated[], candidates: readonly Candidate[], settings: RoutingSettings): string {
  const inTier = evaluated.filter((e) => !e.downTier);
  if (inTier.length === 0) return "the panel has no in-tier program for this score";
  const counts = new Map<string, number>();
  for (const e of inTier) if (e.knockout) counts.set(e.knockout.heading, (counts.get(e.knockout.heading) ?? 0) + 1);
  const weak = candidates.filter((p) => !p.down_tier).length + inTier.filter((e) => e.candidate && !candidates.includes(e.candidate)).length;
  if (weak > 0) counts.set(`approval likelihood under ${settings.approvalBucketLow}`, weak);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
    .map(([heading, n]) => `${heading} (${n})`)
    .join("; ");
}

const PLURAL: Record<LenderType, string> = {
  captive: "captives",
  bank: "banks",
  credit_union: "credit unions",
  subprime: "subprime finance companies",
  specialty: "specialty lenders",
  bhph: "buy-here-pay-here lenders",
};

/** "2 credit unions write it (Riverbend Community Credit Union, Union Rail Credit Union)". */
function whoWrites(picks: readonly Candidate[]): string {
  const types = new Set(picks.map((p) => p.lender_type));
  const one = picks.length === 1;
  const kind = types.size === 1 ? (one ? LENDER_TYPE_LABEL[picks[0].lender_type] : PLURAL[picks[0].lender_type]) : one ? "program" : "programs";
  const names = picks.slice(0, 3).map((p) => p.lender);
  const more = picks.length > 3 ? `, and ${picks.length - 3} more` : "";
  return `${picks.length} ${kind} ${one ? "writes" : "write"} it (${names.join(", ")}${more})`;
}

/** The knock-outs more cash down clears: the LTV maximum, the down-payment requirement, the maximum amount financed. */
const CASH_RULES: ReadonlySet<string> = new Set(["ltv_over_maximum", "down_payment_short", "amount_over_maximum"]);

/**
 * The cash down that makes one more program fit (docs/domain/lender-routing.md#routing-notes): for
 * each program out on a rule cash clears, the cash that clears all three of them at once (every dollar
 * down lowers the amount and the LTV and raises the down payment), kept only when the program then
 * fits the deal whole (a car too old for it stays out whatever the cash); an in-tier program ahead of
 * a down-tier one (offering cash to reach a higher-cost lender would be steering), then the least cash.
 */
function nearestCashFix(
  evaluated: readonly Evaluated[],
  deal: DealFacts,
  fitsWith: (program: LenderProgramRow, more: number) => boolean,
  inTierOnly: boolean,
): string[] {
  const { profile, financed } = deal;
  const fixes = evaluated.flatMap((e) => {
    if (!e.knockout || !CASH_RULES.has(e.knockout.rule)) return [];
    const maxLtv = programMaxLtv(e.program, deal.adjustment);
    const downPct = e.program.minDownPct + deal.extraDownPct;
    const needs = {
      ltv: Math.ceil(overAdvance(financed.amount, deal.book, maxLtv)),
      down: Math.ceil((profile.vehiclePrice * downPct) / 100 - profile.downPayment - financed.tradeEquity),
      amount: e.program.maxAmount === null ? 0 : Math.ceil(financed.amount - e.program.maxAmount),
    };
    return !inTierOnly || !e.downTier ? [{ e, maxLtv, downPct, needs, more: Math.max(needs.ltv, needs.down, needs.amount) }] : [];
  });
  // Run again only until one fits: the best by that order is the one said.
  const best = fixes
    .sort((a, b) => Number(a.e.downTier) - Number(b.e.downTier) || a.more - b.more || compareText(a.e.program.name, b.e.program.name))
    .find((fix) => fitsWith(fix.e.program, fix.more));
  if (!best) return [];
  const { e, maxLtv, downPct, needs, more } = best;
  const name = e.program.name;
  const clears = [
    needs.ltv > 0 ? `brings the LTV inside ${name}'s ${maxLtv}% maximum` : null,
    needs.amount > 0 ? `brings the amount financed to ${needs.ltv > 0 ? "its" : `${name}'s`} ${formatUsd(e.program.maxAmount ?? 0)} maximum` : null,
    needs.down > 0 ? `meets ${needs.ltv > 0 || needs.amount > 0 ? "its" : `${name}'s`} ${downPct}% down-payment requirement` : null,
  ].filter((c) => c !== null);
  return [`${formatUsd(more)} more cash down ${joinWords(clears)}.`];
}

function routingNote(
  deal: DealFacts,
  evaluated: readonly Evaluated[],
  fitCount: number,
  primary: Candidate | null,
  backup: Candidate | null,
  avoided: { rule: string; heading: string }[],
  termOptions: readonly { term: number; picks: Candidate[] }[],
  downTierWhy: string | null,
  unsuppliedFacts: string | null,
  fitsWith: (program: LenderProgramRow, more: number) => boolean,
): string {
  const { profile, tier, ltv, financed } = deal;
  const panelSize = evaluated.length;
  const dealText = `${profile.beacon} ${TIER_LABEL[tier.tier]}, LTV ${roundTo(ltv, 1)}%${profile.knownIssues.length ? `, ${profile.knownIssues.join("/")}` : ""}`;
  const basis = `${ltvSentence(ltv, financed)}.`;
  if (panelSize === 0) {
    return `This store's lender panel is empty: there is no program to send ${dealText} to. Add programs to the store's panel, then route it. ${basis}`;
  }
  const termOut = avoided.filter((a) => a.rule === "term_over_limit").length;
  const shorter =
    termOut > 0 && termOptions.length > 0
      ? `At ${profile.termMonths} months ${termOut} ${termOut === 1 ? "program is" : "programs are"} out on the term; shorter terms open some: ${termOptions.map(({ term, picks }) => `at ${term} months ${whoWrites(picks)}`).join("; ")}.`
      : null;
  const cashFixes = primary === null || downTierWhy !== null ? nearestCashFix(evaluated, deal, fitsWith, primary !== null) : [];
  if (!primary) {
    const counts = new Map<string, number>();
    for (const a of avoided) counts.set(a.heading, (counts.get(a.heading) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).slice(0, 3);
    const blockers = top.map(([heading, n]) => `${heading} (${n})`).join("; ");
    const advice = [shorter, unsuppliedFacts, ...cashFixes]
      .filter((line) => line !== null)
      .map((line) => ` ${line}`)
      .join("");
    return `No program on this store's ${panelSize}-lender panel fits ${dealText}. Main blockers: ${blockers}.${advice} Do not shotgun the deal. ${basis}`;
  }
  const parts = [
    `${dealText}: ${fitCount} of ${panelSize} panel programs fit.`,
    `Send to ${primary.lender} first (approval likelihood ${primary.confidence.toFixed(2)}, expected rate ${formatPct(primary.expected_rate)}, ${primary.funding_days} days to fund, ~${primary.stip_burden_hours} h of stips).`,
  ];
  if (primary.termCut) parts.push(`${primary.termCut[0].toUpperCase()}${primary.termCut.slice(1)}.`);
  if (unsuppliedFacts) parts.push(unsuppliedFacts);
  if (downTierWhy !== null) {
    const issues = profile.knownIssues.length > 0 ? ` with ${joinWords(profile.knownIssues)}` : "";
    parts.push(
      `Down-tier placement: no ${TIER_LABEL[tier.tier]} program approves this structure${issues}: ${downTierWhy}. The customer pays a higher rate here than their score would earn.`,
    );
    parts.push(...cashFixes);
  }
  if (backup) parts.push(`Backup: ${backup.lender} (${backup.confidence.toFixed(2)}, ${formatPct(backup.expected_rate)}).`);
  if (shorter) parts.push(shorter);
  parts.push("Submit to the top two or three, not the whole panel: shotgunning hurts look-to-book.");
  parts.push(basis);
  return parts.join(" ");
}
