/**
 * Lender routing (docs/domain/lender-routing.md, contract in docs/deal-desk.md): knock out the
 * store's panel programs a deal breaks by hard rule, then rank the rest as a desk manager does
 * (docs/domain/lender-routing.md#ranking): calibrated approval in coarse buckets, then the
 * customer's rate, then days to fund, then stip burden; a down-tier placement is never primary
 * while an in-tier program approves. Calibration is Beta-Binomial: the program-fit score is the
 * prior mean (worth PRIOR_WEIGHT submissions), updated by the store's own decisions from that
 * lender in the deal's score band.
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
  type PredictedStip,
  type StipProgram,
  type StipRuleRow,
  type StipTypeRow,
  stipBurdenHours,
  stipPredictor,
} from "../stips";

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
export const PRIOR_WEIGHT = 10;
/** A fitting program below this calibrated likelihood is listed under `avoid` as a poor fit. */
export const POOR_FIT_CONFIDENCE = 0.35;
/** The term priced when the request names none (Experian Q4 2024 average ≈ 68 months, docs/domain/lender-routing.md#terms), capped by the program. */
export const DEFAULT_TERM_MONTHS = 72;

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
  panel_size: number;
}

interface Knockout {
  rule: string;
  /** The group heading in `avoid_reason`. */
  heading: string;
  text: string;
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
  adjustment: VehicleAdjustmentRow | undefined;
  /** Down payment plus positive trade equity, % of the price (docs/domain/lender-routing.md#down-payment). */
  downPct: number;
  /** The known issues' extra down payment, points. */
  extraDownPct: number;
  /** The shortest term the known issues allow. */
  issueTermCap: number;
  /** The tier's APR for the condition and vehicle type, before the program's margin and the issues. */
  baseApr: number;
  currentYear: number;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** Program fit, the prior of approval (docs/domain/lender-routing.md#approval-likelihood): a DEFAULT formula, monotone in the score. */
export function programFit(scoreMargin: number, ltvHeadroomPts: number, ptiHeadroom: number | null, issueCount: number): number {
  const scoreFit = clamp(scoreMargin / 80, 0, 1);
  const ltvFit = clamp(ltvHeadroomPts / 20, 0, 1);
  const ptiFit = ptiHeadroom === null ? 0.5 : clamp(ptiHeadroom / 0.05, 0, 1);
  return roundTo(clamp(0.3 + 0.35 * scoreFit + 0.2 * ltvFit + 0.1 * ptiFit - 0.07 * issueCount, 0.05, 0.95), 4);
}

/** Beta-Binomial posterior mean; a counter is half an approval and half a decline. */
export function calibratedConfidence(fit: number, counts: DecisionCounts): number {
  const alpha = PRIOR_WEIGHT * fit + counts.approved + counts.countered / 2;
  const beta = PRIOR_WEIGHT * (1 - fit) + counts.declined + counts.countered / 2;
  return alpha / (alpha + beta);
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

function evaluate(
  deal: DealFacts,
  program: LenderProgramRow,
  reference: RoutingReference,
  calibration: Calibration,
  stipsFor: (program: LenderProgramRow) => PredictedStip[],
): Evaluated {
  const { profile, tier, financed, ltv, adjustment, downPct, currentYear } = deal;
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
      return out({ rule: `no_${issue}`, heading: `does not take a ${label}`, text: `does not take a ${label}` });
    }
  }
  // Score ceilings apply to clean files: a program that takes the customer's known issue is never
  // knocked out for a high score (docs/domain/lender-routing.md#known-issues).
  if (issues.length === 0 && profile.beacon > program.maxScore) {
    return out({
      rule: "score_above_program",
      heading: `poor fit: ${TIER_LABEL[tier.tier]} paper at a higher-rate lender`,
      text: `score ${profile.beacon} is above its ${program.maxScore} ceiling; better-rate programs fit`,
    });
  }
  const maxLtv = program.maxLtv + (adjustment?.ltvAdd ?? 0);
  if (ltv > maxLtv) {
    return out({
      rule: "ltv_over_maximum",
      heading: `LTV ${roundTo(ltv, 1)}% over the program maximum`,
      text: `LTV ${roundTo(ltv, 1)}% is over its ${maxLtv}% maximum`,
    });
  }
  const requiredDownPct = program.minDownPct + deal.extraDownPct;
  if (downPct + 1e-9 < requiredDownPct) {
    return out({
      rule: "down_payment_short",
      heading: "down payment short of the program's requirement",
      text: `needs ${requiredDownPct}% down (${formatUsd(Math.ceil((profile.vehiclePrice * requiredDownPct) / 100))}); the deal has ${roundTo(downPct, 1)}%`,
    });
  }
  const termCap = Math.min(program.maxTerm, deal.issueTermCap);
  const term = profile.termMonths ?? Math.min(DEFAULT_TERM_MONTHS, termCap);
  if (profile.termMonths !== undefined && profile.termMonths > termCap) {
    return out({
      rule: "term_over_limit",
      heading: `${profile.termMonths}-month term over the program limit`,
      text: `writes at most ${termCap} months on this profile`,
    });
  }
  if (profile.vehicleYear !== undefined && currentYear - profile.vehicleYear > program.vehicleMaxAge) {
    return out({
      rule: "vehicle_too_old",
      heading: "vehicle older than the program allows",
      text: `takes vehicles up to ${program.vehicleMaxAge} years old`,
    });
  }
  if (profile.mileage !== undefined && profile.mileage > program.vehicleMaxMiles) {
    return out({
      rule: "mileage_over_limit",
      heading: "mileage over the program limit",
      text: `takes vehicles up to ${formatCount(program.vehicleMaxMiles)} miles`,
    });
  }

  const issueAdd = issues.reduce((sum, issue) => sum + (program.rateAdd[issue] ?? reference.issueRules.get(issue)?.rateAdd ?? 0), 0);
  const rate = Math.max(0, deal.baseApr + program.rateMargin + issueAdd);
  const low = Math.max(0, rate - tier.aprSpread);
  const payment = contractPayment(financed.amount, rate, term, profile.daysToFirstPayment ?? REGULAR_FIRST_PERIOD_DAYS);
  let ptiHeadroom: number | null = null;
  if (profile.monthlyIncome !== undefined) {
    const pti = payment / profile.monthlyIncome;
    ptiHeadroom = program.maxPti - pti;
    if (pti > program.maxPti) {
      return out({
        rule: "pti_over_cap",
        heading: "payment-to-income over the program cap",
        text: `payment ${formatUsd(Math.round(payment))} is ${roundTo(pti * 100, 1)}% of income, over its ${program.maxPti * 100}% cap`,
      });
    }
  }

  const fit = programFit(profile.beacon - program.minScore, maxLtv - ltv, ptiHeadroom, issues.length);
  const history = calibration.get(program.id)?.[tier.tier] ?? NO_HISTORY;
  const confidence = roundTo(calibratedConfidence(fit, history), 2);
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
      approval_bucket: approvalBucket(confidence, reference.settings),
      down_tier: downTier,
      program_fit: roundTo(fit, 2),
      history,
      term_months: term,
      funding_days: program.fundingDays,
      stip_burden_hours: stipBurdenHours(stipsFor(program)),
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
 * docs/domain/lender-routing.md#ranking: approval bucket, then the customer's expected rate, then
 * faster funding, then fewer stip hours, then name.
 */
function byRank(a: Candidate, b: Candidate): number {
  return (
    BUCKET_ORDER[a.approval_bucket] - BUCKET_ORDER[b.approval_bucket] ||
    a.expected_rate - b.expected_rate ||
    a.funding_days - b.funding_days ||
    a.stip_burden_hours - b.stip_burden_hours ||
    compareText(a.lender, b.lender)
  );
}

/**
 * A down-tier placement is never primary, nor backup ahead of an in-tier program, while an in-tier
 * program approves at the low bucket edge or better (docs/domain/lender-routing.md#down-tier-placement).
 */
function inTierFirst(ranked: readonly Candidate[], settings: RoutingSettings): Candidate[] {
  const approvingInTier = (p: Candidate) => !p.down_tier && p.confidence >= settings.approvalBucketLow;
  return [...ranked.filter(approvingInTier), ...ranked.filter((p) => !approvingInTier(p))];
}

export function routeLender(
  profile: RouteProfile,
  panel: readonly LenderProgramRow[],
  reference: RoutingReference,
  calibration: Calibration,
  asOf: Date,
): RouteResult {
  const tier = tierFor(reference.tiers, profile.beacon);
  const financed = amountFinanced(profile);
  const ltv = (financed.amount / (profile.bookValue ?? profile.vehiclePrice)) * 100;
  const issueRules = profile.knownIssues.map((issue) => reference.issueRules.get(issue));
  const adjustment = reference.vehicleAdjustments.get(profile.vehicleType);
  const deal: DealFacts = {
    profile,
    tier,
    financed,
    ltv,
    adjustment,
    // Positive trade equity is down payment to a lender (docs/domain/lender-routing.md#down-payment).
    downPct: ((profile.downPayment + financed.tradeEquity) / profile.vehiclePrice) * 100,
    extraDownPct: issueRules.reduce((sum, rule) => sum + (rule?.extraDownPct ?? 0), 0),
    issueTermCap: Math.min(...issueRules.map((rule) => rule?.maxTerm ?? Number.POSITIVE_INFINITY)),
    baseApr: tierApr(tier, profile.condition, adjustment),
    currentYear: asOf.getUTCFullYear(),
  };
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
  const evaluated = panel.map((program) => evaluate(deal, program, reference, calibration, stipsFor));

  // Loops rather than flatMap, which allocates an array per program (a tenth of the engine's time).
  const ranked: Candidate[] = [];
  const knockedOut: { lender: string; rule: string; heading: string; reason: string }[] = [];
  for (const e of evaluated) {
    if (e.candidate) ranked.push(e.candidate);
    else if (e.knockout) knockedOut.push({ lender: e.program.name, rule: e.knockout.rule, heading: e.knockout.heading, reason: e.knockout.text });
  }
  ranked.sort(byRank);
  const poorFits = ranked.filter((p) => p.confidence < POOR_FIT_CONFIDENCE);
  const candidates = inTierFirst(
    ranked.filter((p) => p.confidence >= POOR_FIT_CONFIDENCE),
    reference.settings,
  );
  const [primary = null, backup = null] = candidates;

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
    routing_note: routingNote(
      deal,
      panel.length,
      candidates.length,
      primary,
      backup,
      avoided,
      primary?.down_tier ? whyNoInTier(evaluated, candidates, reference.settings) : null,
    ),
    tier: tier.tier,
    ltv: roundTo(ltv, 1),
    amount_financed: financed.amount,
    negative_equity: financed.negativeEquity,
    ltv_excludes: financed.excludes,
    panel_size: panel.length,
  };
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

function routingNote(
  deal: DealFacts,
  panelSize: number,
  fitCount: number,
  primary: Candidate | null,
  backup: Candidate | null,
  avoided: { rule: string; heading: string }[],
  downTierWhy: string | null,
): string {
  const { profile, tier, ltv, financed } = deal;
  const dealText = `${profile.beacon} ${TIER_LABEL[tier.tier]}, LTV ${roundTo(ltv, 1)}%${profile.knownIssues.length ? `, ${profile.knownIssues.join("/")}` : ""}`;
  const basis = `${ltvSentence(ltv, financed)}.`;
  if (!primary) {
    const counts = new Map<string, number>();
    for (const a of avoided) counts.set(a.heading, (counts.get(a.heading) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).slice(0, 3);
    const blockers = top.map(([heading, n]) => `${heading} (${n})`).join("; ");
    const advice = ltv > 100 ? " More cash down or a lower-priced unit brings the LTV inside more programs." : "";
    return `No program on this store's ${panelSize}-lender panel fits ${dealText}. Main blockers: ${blockers}.${advice} Do not shotgun the deal. ${basis}`;
  }
  const parts = [
    `${dealText}: ${fitCount} of ${panelSize} panel programs fit.`,
    `Send to ${primary.lender} first (approval likelihood ${primary.confidence.toFixed(2)}, expected rate ${formatPct(primary.expected_rate)}, ${primary.funding_days} days to fund, ~${primary.stip_burden_hours} h of stips).`,
  ];
  if (downTierWhy !== null) {
    const issues = profile.knownIssues.length > 0 ? ` with ${joinWords(profile.knownIssues)}` : "";
    parts.push(
      `Down-tier placement: no ${TIER_LABEL[tier.tier]} program approves this structure${issues}: ${downTierWhy}. The customer pays a higher rate here than their score would earn.`,
    );
  }
  if (backup) parts.push(`Backup: ${backup.lender} (${backup.confidence.toFixed(2)}, ${formatPct(backup.expected_rate)}).`);
  parts.push("Submit to the top two or three, not the whole panel: shotgunning hurts look-to-book.");
  parts.push(basis);
  return parts.join(" ");
}
