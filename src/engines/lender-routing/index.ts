/**
 * Lender routing (SPEC §2.5, §4.3; PRODUCT §3.1): knock out the store's panel programs a deal
 * breaks by hard rule, then rank the rest by calibrated approval likelihood, expected stip
 * burden and days to fund. Calibration is Beta-Binomial: the program-fit score is the prior
 * mean (worth PRIOR_WEIGHT submissions), updated by the store's own decisions from that lender
 * in the deal's score band.
 */
import {
  type Condition,
  type CreditTier,
  compareText,
  formatPct,
  formatUsd,
  type KnownIssue,
  type KnownIssueRow,
  monthlyPayment,
  roundTo,
  TIER_LABEL,
  type TierRow,
  tierApr,
  tierFor,
  type VehicleAdjustmentRow,
  type VehicleType,
} from "../deal-math";
import { type LenderType, type PredictedStip, predictStips, type StipProgram, type StipRuleRow, type StipTypeRow, stipBurdenHours } from "../stips";

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

export interface RoutingReference {
  tiers: readonly TierRow[];
  vehicleAdjustments: ReadonlyMap<VehicleType, VehicleAdjustmentRow>;
  issueRules: ReadonlyMap<KnownIssue, KnownIssueRow>;
  stipRules: readonly StipRuleRow[];
  stipTypes: ReadonlyMap<string, StipTypeRow>;
}

export interface RouteProfile {
  beacon: number;
  downPayment: number;
  vehiclePrice: number;
  vehicleType: VehicleType;
  condition: Condition;
  knownIssues: readonly KnownIssue[];
  termMonths?: number;
  /** Book retail the LTV is measured against; default the vehicle price. */
  bookValue?: number;
  monthlyIncome?: number;
  vehicleYear?: number;
  mileage?: number;
}

/** How many submissions the program-fit prior is worth against the store's own history. */
export const PRIOR_WEIGHT = 10;
/** A fitting program below this calibrated likelihood is listed under `avoid` as a poor fit. */
export const POOR_FIT_CONFIDENCE = 0.35;
/** The term priced when the request names none (Experian Q4 2024 average ≈ 68 months, §1.2), capped by the program. */
export const DEFAULT_TERM_MONTHS = 72;

const ACCEPTS: Record<KnownIssue, keyof LenderProgramRow> = {
  repo: "acceptsRepo",
  bk7: "acceptsBk7",
  bk13: "acceptsBk13",
  itin: "acceptsItin",
  thin_file: "acceptsThinFile",
  charge_off: "acceptsChargeOff",
};

export interface LenderPick {
  lender: string;
  lender_id: string;
  lender_type: LenderType;
  rate_range: string;
  confidence: number;
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
  panel_size: number;
}

interface Knockout {
  rule: string;
  /** The group heading in `avoid_reason`. */
  heading: string;
  text: string;
}

interface Evaluated {
  program: LenderProgramRow;
  knockout: Knockout | null;
  /** Only for a program no rule knocked out. */
  pick: LenderPick | null;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** DOMAIN §10.3 "Confidence = f(score margin, LTV/PTI headroom, issue count)": a DEFAULT formula, monotone in the score. */
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

function evaluate(
  profile: RouteProfile,
  program: LenderProgramRow,
  tier: TierRow,
  ltv: number,
  reference: RoutingReference,
  calibration: Calibration,
  currentYear: number,
  stipsFor: (program: LenderProgramRow) => PredictedStip[],
): Evaluated {
  // The first rule a program breaks is the one reported; the rest are not worth computing.
  const out = (knockout: Knockout): Evaluated => ({ program, knockout, pick: null });
  const issues = profile.knownIssues;
  const adjustment = reference.vehicleAdjustments.get(profile.vehicleType);

  if (profile.beacon < program.minScore) {
    return out({
      rule: "score_below_minimum",
      heading: `score ${profile.beacon} under the program minimum`,
      text: `score ${profile.beacon} is under its ${program.minScore} minimum`,
    });
  }
  if (profile.beacon > program.maxScore) {
    return out({
      rule: "score_above_program",
      heading: `poor fit: ${TIER_LABEL[tier.tier]} paper at a higher-rate lender`,
      text: `score ${profile.beacon} is above its ${program.maxScore} ceiling; better-rate programs fit`,
    });
  }
  for (const issue of issues) {
    if (!program[ACCEPTS[issue]]) {
      const label = reference.issueRules.get(issue)?.label ?? issue;
      return out({ rule: `no_${issue}`, heading: `does not take a ${label}`, text: `does not take a ${label}` });
    }
  }
  const maxLtv = program.maxLtv + (adjustment?.ltvAdd ?? 0);
  if (ltv > maxLtv) {
    return out({
      rule: "ltv_over_maximum",
      heading: `LTV ${roundTo(ltv, 1)}% over the program maximum`,
      text: `LTV ${roundTo(ltv, 1)}% is over its ${maxLtv}% maximum`,
    });
  }
  const extraDown = issues.reduce((sum, issue) => sum + (reference.issueRules.get(issue)?.extraDownPct ?? 0), 0);
  const requiredDownPct = program.minDownPct + extraDown;
  const downPct = (profile.downPayment / profile.vehiclePrice) * 100;
  if (downPct + 1e-9 < requiredDownPct) {
    return out({
      rule: "down_payment_short",
      heading: "down payment short of the program's requirement",
      text: `needs ${requiredDownPct}% down (${formatUsd(Math.ceil((profile.vehiclePrice * requiredDownPct) / 100))}); the deal has ${roundTo(downPct, 1)}%`,
    });
  }
  const issueTermCaps = issues.map((issue) => reference.issueRules.get(issue)?.maxTerm ?? Number.POSITIVE_INFINITY);
  const termCap = Math.min(program.maxTerm, ...issueTermCaps);
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
      text: `takes vehicles up to ${program.vehicleMaxMiles.toLocaleString("en-US")} miles`,
    });
  }

  const issueAdd = issues.reduce((sum, issue) => sum + (program.rateAdd[issue] ?? reference.issueRules.get(issue)?.rateAdd ?? 0), 0);
  const rate = Math.max(0, tierApr(tier, profile.condition, adjustment) + program.rateMargin + issueAdd);
  const low = Math.max(0, rate - tier.aprSpread);
  const payment = monthlyPayment(profile.vehiclePrice - profile.downPayment, rate, term);
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
  const stips = stipsFor(program);
  const reasons = [
    `program fit ${fit.toFixed(2)}: score ${profile.beacon} vs minimum ${program.minScore}, LTV ${roundTo(ltv, 1)}% vs ${maxLtv}% maximum${issues.length ? `, ${issues.length} known issue(s)` : ""}`,
  ];
  const submissions = history.approved + history.countered + history.declined;
  if (submissions > 0) {
    reasons.push(
      `store history in the ${TIER_LABEL[tier.tier]} band: ${history.approved} approved, ${history.countered} countered, ${history.declined} declined of ${submissions}`,
    );
  } else reasons.push(`no store history with this lender in the ${TIER_LABEL[tier.tier]} band: program fit alone`);
  if (issueAdd > 0) reasons.push(`rate includes ${roundTo(issueAdd, 2)} pts for ${issues.join(", ")}`);

  return {
    program,
    knockout: null,
    pick: {
      lender: program.name,
      lender_id: program.id,
      lender_type: program.type,
      rate_range: `${formatPct(low)} - ${formatPct(rate + tier.aprSpread)}`,
      confidence,
      program_fit: roundTo(fit, 2),
      history: { ...history },
      term_months: term,
      funding_days: program.fundingDays,
      stip_burden_hours: stipBurdenHours(stips),
      reasons,
    },
  };
}

/** Likelihood first (to the cent of a point, so near-ties fall to the next keys), then fewer stip hours, faster funding, name. */
function byRank(a: LenderPick, b: LenderPick): number {
  return (
    b.confidence - a.confidence || a.stip_burden_hours - b.stip_burden_hours || a.funding_days - b.funding_days || compareText(a.lender, b.lender)
  );
}

export function routeDeal(
  profile: RouteProfile,
  panel: readonly LenderProgramRow[],
  reference: RoutingReference,
  calibration: Calibration,
  currentYear: number,
): RouteResult {
  const tier = tierFor(reference.tiers, profile.beacon);
  const ltv = ((profile.vehiclePrice - profile.downPayment) / (profile.bookValue ?? profile.vehiclePrice)) * 100;
  // The stips depend on the program's type and base stips only: a handful of distinct sets per panel.
  const stipSets = new Map<string, PredictedStip[]>();
  const stipsFor = (program: LenderProgramRow) => {
    const key = `${program.type}|${program.baseStips.join("|")}`;
    let stips = stipSets.get(key);
    if (!stips) {
      stips = predictStips({ tier: tier.tier, knownIssues: profile.knownIssues }, program, reference.stipRules, reference.stipTypes);
      stipSets.set(key, stips);
    }
    return stips;
  };
  const evaluated = panel.map((program) => evaluate(profile, program, tier, ltv, reference, calibration, currentYear, stipsFor));

  const ranked = evaluated.flatMap((e) => (e.pick ? [e.pick] : [])).sort(byRank);
  const poorFits = ranked.filter((p) => p.confidence < POOR_FIT_CONFIDENCE);
  const candidates = ranked.filter((p) => p.confidence >= POOR_FIT_CONFIDENCE);
  const [primary = null, backup = null] = candidates;

  const avoided = [
    ...evaluated
      .flatMap((e) => (e.knockout ? [{ lender: e.program.name, rule: e.knockout.rule, heading: e.knockout.heading, reason: e.knockout.text }] : []))
      .sort((a, b) => compareText(a.lender, b.lender)),
    ...poorFits.map((p) => ({
      lender: p.lender,
      rule: "low_approval_likelihood",
      heading: `approval likelihood under ${POOR_FIT_CONFIDENCE}`,
      reason: `calibrated approval likelihood ${p.confidence.toFixed(2)}; ${p.reasons.join("; ")}`,
    })),
  ];
  const groups = new Map<string, string[]>();
  for (const a of avoided) groups.set(a.heading, [...(groups.get(a.heading) ?? []), a.lender]);
  const avoidReason = [...groups.entries()].map(([heading, lenders]) => `${heading}: ${lenders.join(", ")}`).join("; ");

  const primaryProgram = primary ? panel.find((p) => p.id === primary.lender_id)! : null;
  const predicted = primaryProgram ? stipsFor(primaryProgram).map((s) => s.stip) : [];

  return {
    primary,
    backup,
    avoid: avoided.map((a) => a.lender),
    avoid_reason: avoidReason,
    avoid_details: avoided.map(({ lender, rule, reason }) => ({ lender, rule, reason })),
    predicted_stips: predicted,
    routing_note: routingNote(profile, tier, ltv, panel.length, candidates.length, primary, backup, avoided),
    tier: tier.tier,
    ltv: roundTo(ltv, 1),
    panel_size: panel.length,
  };
}

function routingNote(
  profile: RouteProfile,
  tier: TierRow,
  ltv: number,
  panelSize: number,
  fitCount: number,
  primary: LenderPick | null,
  backup: LenderPick | null,
  avoided: { rule: string; heading: string }[],
): string {
  const deal = `${profile.beacon} ${TIER_LABEL[tier.tier]}, LTV ${roundTo(ltv, 1)}%${profile.knownIssues.length ? `, ${profile.knownIssues.join("/")}` : ""}`;
  if (!primary) {
    const counts = new Map<string, number>();
    for (const a of avoided) counts.set(a.heading, (counts.get(a.heading) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).slice(0, 3);
    const blockers = top.map(([heading, n]) => `${heading} (${n})`).join("; ");
    const advice = ltv > 100 ? " More cash down or a lower-priced unit brings the LTV inside more programs." : "";
    return `No program on this store's ${panelSize}-lender panel fits ${deal}. Main blockers: ${blockers}.${advice} Do not shotgun the deal.`;
  }
  const parts = [
    `${deal}: ${fitCount} of ${panelSize} panel programs fit.`,
    `Send to ${primary.lender} first (approval likelihood ${primary.confidence.toFixed(2)}, ${primary.funding_days} days to fund, ~${primary.stip_burden_hours} h of stips).`,
  ];
  if (backup) parts.push(`Backup: ${backup.lender} (${backup.confidence.toFixed(2)}).`);
  parts.push("Submit to the top two or three, not the whole panel: shotgunning hurts look-to-book.");
  return parts.join(" ");
}
