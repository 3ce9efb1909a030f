/**
 * Stip prediction (docs/domain/stips.md): which documents a lender will ask for on a profile, from
 * the editable trigger matrix (`stip_rules`), the program's base stips and the document rules.
 */
import { type AmountFinanced, type CreditTier, compareText, joinWords, type KnownIssue, roundTo, TIER_LABEL } from "../deal-math";
import type { IncomeType, LenderType } from "../deal-math/vocabulary";
import { formatUsd } from "../format";

type StipPriority = "required" | "likely";

export interface StipTypeRow {
  stip: string;
  rule: string;
  turnaroundHours: number;
}

export interface StipRuleRow {
  triggerKind: "tier" | "income_type" | "issue" | "lender_type";
  triggerValue: string;
  lenderType: LenderType | null;
  stip: string;
  priority: StipPriority;
  replaces: string | null;
  /** The rule applies only from this day of the year (MM-DD) to `activeUntil`, inclusive; null: all year. */
  activeFrom: string | null;
  activeUntil: string | null;
}

export interface StipProgram {
  name: string;
  type: LenderType;
  baseStips: string[];
  turnaroundHours: number;
}

export interface StipProfile {
  tier: CreditTier;
  knownIssues: readonly KnownIssue[];
  incomeType?: IncomeType;
  /** The day the deal is submitted: seasonal rules (the W-2 in tax season) depend on it. */
  asOf: Date;
}

export interface PredictedStip {
  stip: string;
  priority: StipPriority;
  /** What asked for it: "program", "tier:subprime", "issue:bk13", … */
  reasons: string[];
  turnaround_hours: number;
}

/** A store's submissions to one lender that came back with a turnaround. */
export interface LenderTurnaroundHistory {
  submissions: number;
  avgTurnaroundHours: number | null;
}

/** Fewer timed submissions than this and the program's default turnaround is quoted instead (docs/domain/stips.md#turnaround). */
export const MIN_TURNAROUND_HISTORY = 3;

export const LENDER_TYPE_LABEL: Record<LenderType, string> = {
  captive: "captive",
  bank: "bank",
  credit_union: "credit union",
  subprime: "subprime finance company",
  specialty: "specialty lender",
  bhph: "buy-here-pay-here",
};

const rank = (p: StipPriority) => (p === "required" ? 0 : 1);
const stronger = (a: StipPriority, b: StipPriority): StipPriority => (rank(a) <= rank(b) ? a : b);

/** MM-DD of the day in UTC, the form of `active_from` / `active_until`. */
const monthDay = (day: Date) => day.toISOString().slice(5, 10);

/** Whether a seasonal rule's window holds the day (a window may wrap the new year: from > until). */
export const inSeason = (rule: Pick<StipRuleRow, "activeFrom" | "activeUntil">, day: Date) => inSeasonOn(rule, monthDay(day));

/** `inSeason` for a day already in MM-DD: formatting the day once per prediction, not once per rule. */
function inSeasonOn(rule: Pick<StipRuleRow, "activeFrom" | "activeUntil">, today: string): boolean {
  if (rule.activeFrom === null || rule.activeUntil === null) return true;
  return rule.activeFrom <= rule.activeUntil
    ? today >= rule.activeFrom && today <= rule.activeUntil
    : today >= rule.activeFrom || today <= rule.activeUntil;
}

/** Whether the rule's trigger holds for the profile; a lender-type trigger is decided per program (`firesFor`). */
function firesForProfile(rule: StipRuleRow, profile: StipProfile): boolean {
  switch (rule.triggerKind) {
    case "tier":
      return rule.triggerValue === profile.tier;
    case "income_type":
      return rule.triggerValue === profile.incomeType;
    case "issue":
      return profile.knownIssues.includes(rule.triggerValue as KnownIssue);
    case "lender_type":
      return true;
  }
}

const firesFor = (rule: StipRuleRow, program: StipProgram) =>
  (rule.lenderType === null || rule.lenderType === program.type) && (rule.triggerKind !== "lender_type" || rule.triggerValue === program.type);

/** What asked for the stip, as `reasons` names it ("tier:subprime", "issue:bk13"), with the season of a seasonal rule. */
function reasonOf(rule: StipRuleRow): string {
  const trigger = `${rule.triggerKind === "lender_type" ? "lender_type" : rule.triggerKind.replace("_type", "")}:${rule.triggerValue}`;
  return rule.activeFrom !== null ? `${trigger} (season ${rule.activeFrom} to ${rule.activeUntil})` : trigger;
}

/** Required before likely, then the slowest to produce first (what to chase today), then by name. */
export function predictStips(
  profile: StipProfile,
  program: StipProgram,
  rules: readonly StipRuleRow[],
  stipTypes: ReadonlyMap<string, StipTypeRow>,
): PredictedStip[] {
  return stipPredictor(profile, rules, stipTypes)(program);
}

/**
 * `predictStips` for one profile and many programs (lender routing's panel): the rules the day and
 * the profile leave standing, and their reasons, are found once; per program only its lender type is.
 */
export function stipPredictor(
  profile: StipProfile,
  rules: readonly StipRuleRow[],
  stipTypes: ReadonlyMap<string, StipTypeRow>,
): (program: StipProgram) => PredictedStip[] {
  const today = monthDay(profile.asOf);
  const standing = rules
    .filter((rule) => inSeasonOn(rule, today) && firesForProfile(rule, profile))
    .map((rule) => ({ rule, reason: reasonOf(rule) }));
  return (program) => predictWith(program, standing, stipTypes);
}

function predictWith(
  program: StipProgram,
  standing: readonly { rule: StipRuleRow; reason: string }[],
  stipTypes: ReadonlyMap<string, StipTypeRow>,
): PredictedStip[] {
  const found = new Map<string, { priority: StipPriority; reasons: string[] }>();
  const add = (stip: string, priority: StipPriority, reason: string) => {
    const entry = found.get(stip);
    if (!entry) found.set(stip, { priority, reasons: [reason] });
    else {
      entry.priority = stronger(entry.priority, priority);
      if (!entry.reasons.includes(reason)) entry.reasons.push(reason);
    }
  };
  for (const stip of program.baseStips) add(stip, "required", "program");
  const replacements: StipRuleRow[] = [];
  for (const { rule, reason } of standing) {
    if (!firesFor(rule, program)) continue;
    add(rule.stip, rule.priority, reason);
    if (rule.replaces) replacements.push(rule);
  }
  // A specific document (a pay stub) stands in for the generic one (proof of income) and inherits its priority.
  for (const rule of replacements) {
    const generic = found.get(rule.replaces!);
    const specific = found.get(rule.stip);
    if (!generic || !specific) continue;
    specific.priority = stronger(specific.priority, generic.priority);
    specific.reasons.push(...generic.reasons.filter((r) => !specific.reasons.includes(r)));
    found.delete(rule.replaces!);
  }
  return [...found.entries()]
    .map(([stip, { priority, reasons }]) => ({ stip, priority, reasons, turnaround_hours: stipTypes.get(stip)?.turnaroundHours ?? 24 }))
    .sort((a, b) => rank(a.priority) - rank(b.priority) || b.turnaround_hours - a.turnaround_hours || compareText(a.stip, b.stip));
}

/** Customer-side hours to gather every required stip, one after another: the routing tiebreak. */
export function stipBurdenHours(stips: readonly PredictedStip[]): number {
  return stips.filter((s) => s.priority === "required").reduce((sum, s) => sum + s.turnaround_hours, 0);
}

/** A deal as stip-check sees it, when the request gave the price. */
export interface StipDeal {
  financed: AmountFinanced;
  ltv: number;
  /** The book value the LTV is measured on. */
  book: number;
  /** The program's LTV maximum for this vehicle (its own plus the vehicle-type add). */
  maxLtv: number;
}

export interface StipCheckInput extends StipProfile {
  beacon: number;
  deal?: StipDeal;
}

/**
 * The most a program advances on a book value: `maxLtv`% of it, to the cent
 * (docs/domain/lender-routing.md#ltv-limits).
 */
export const maxAdvance = (book: number, maxLtv: number) => Math.round(maxLtv * book) / 100;

/**
 * Dollars financed over the program's maximum advance: 0 at or under it. The rule is "LTV over the
 * maximum is out", decided to the cent so an LTV exactly at the maximum is inside
 * (docs/domain/lender-routing.md#ltv-limits); every dollar of it is a dollar more cash down needed.
 */
export const overAdvance = (financed: number, book: number, maxLtv: number) => Math.max(0, roundTo(financed - maxAdvance(book, maxLtv), 2));

export interface StipCheckResult {
  lender: string;
  lender_type: LenderType;
  required_stips: { stip: string; priority: StipPriority; reason: string; turnaround_hours: number }[];
  submission_tip: string;
  avg_turnaround_hours: number;
  turnaround_source: "store_history" | "program_default";
  amount_financed: number | null;
  ltv: number | null;
  ltv_excludes: string[];
  /** With `vehicle_price`: the program's LTV maximum for this vehicle; else null. */
  max_ltv: number | null;
  /** Cash down needed to bring the LTV to the program's maximum; 0 inside it, null without a price. */
  down_payment_needed: number | null;
}

const ISSUE_TEXT: Record<KnownIssue, string> = {
  repo: "a repo",
  bk7: "a Chapter 7",
  bk13: "an open Chapter 13",
  itin: "an ITIN",
  thin_file: "a thin file",
  charge_off: "a charge-off",
};

export function checkStips(
  input: StipCheckInput,
  program: StipProgram,
  rules: readonly StipRuleRow[],
  stipTypes: ReadonlyMap<string, StipTypeRow>,
  history: LenderTurnaroundHistory,
): StipCheckResult {
  const stips = predictStips(input, program, rules, stipTypes);
  const required = stips.filter((s) => s.priority === "required");
  const slowest = required[0];
  const facts = [`${input.beacon} (${TIER_LABEL[input.tier]})`, ...input.knownIssues.map((i) => ISSUE_TEXT[i])];
  if (input.incomeType) facts.push(`${input.incomeType.replace("_", "-")} income`);
  const tip = [
    `${program.name} (${LENDER_TYPE_LABEL[program.type]}) on ${facts.join(", ")}: have all ${required.length} required stips in the jacket before you submit.`,
  ];
  // No stip clears an over-advance: it is said first, with the cash down that fixes it.
  const over = input.deal ? overAdvance(input.deal.financed.amount, input.deal.book, input.deal.maxLtv) : 0;
  if (input.deal) tip.push(`${ltvSentence(input.deal.ltv, input.deal.financed)}.`);
  if (over > 0) tip.push(ltvOverSentence(program.name, input.deal!.maxLtv, over));
  if (slowest)
    tip.push(
      `Start with the ${slowest.stip.toLowerCase()}, the slowest to get (about ${slowest.turnaround_hours} h): ${stipTypes.get(slowest.stip)?.rule ?? "original document"}.`,
    );
  const proof = required.find((s) => ["Pay stub", "Proof of income", "Bank statements", "Award letter"].includes(s.stip) && s !== slowest);
  if (proof) tip.push(`${proof.stip}: ${stipTypes.get(proof.stip)?.rule}.`);
  if (input.knownIssues.includes("bk13") && slowest?.stip !== "Trustee permission letter") {
    tip.push("Chapter 13: no funding without the trustee's written permission to incur the debt.");
  }
  const likely = stips.filter((s) => s.priority === "likely").map((s) => s.stip.toLowerCase());
  if (likely.length > 0) tip.push(`Have ${likely.join(", ")} ready in case the callback asks.`);
  tip.push("A stip you cannot produce: get it waived before sending, or don't send the package.");

  const useHistory = history.avgTurnaroundHours !== null && history.submissions >= MIN_TURNAROUND_HISTORY;
  return {
    lender: program.name,
    lender_type: program.type,
    required_stips: stips.map((s) => ({ stip: s.stip, priority: s.priority, reason: s.reasons.join(", "), turnaround_hours: s.turnaround_hours })),
    submission_tip: tip.join(" "),
    avg_turnaround_hours: roundTo(useHistory ? history.avgTurnaroundHours! : program.turnaroundHours, 1),
    turnaround_source: useHistory ? "store_history" : "program_default",
    amount_financed: input.deal ? input.deal.financed.amount : null,
    ltv: input.deal ? roundTo(input.deal.ltv, 1) : null,
    ltv_excludes: input.deal ? input.deal.financed.excludes : [],
    max_ltv: input.deal ? input.deal.maxLtv : null,
    down_payment_needed: input.deal ? Math.ceil(over) : null,
  };
}

/** "Over Harbor Point Bank's 120% LTV maximum: $1,600 more cash down (or a lower price) brings it to 120%; it will not fund as written." */
function ltvOverSentence(lender: string, maxLtv: number, over: number): string {
  return `The LTV is over ${lender}'s ${maxLtv}% maximum: ${formatUsd(Math.ceil(over))} more cash down (or that much off the amount financed) brings it to ${maxLtv}%; as written it will not fund.`;
}

/**
 * "LTV 116.9% on $24,900 financed (incl. $6,000 negative equity); excludes taxes and title and
 * fees (not supplied)": the words of docs/domain/deal-math.md#amount-financed.
 */
export function ltvSentence(ltv: number, financed: AmountFinanced): string {
  const equity = financed.negativeEquity > 0 ? ` (incl. ${formatUsd(financed.negativeEquity)} negative equity)` : "";
  const excluded = financed.excludes.length > 0 ? `; excludes ${joinWords(financed.excludes)} (not supplied)` : "";
  return `LTV ${roundTo(ltv, 1)}% on ${formatUsd(financed.amount)} financed${equity}${excluded}`;
}

/** Levenshtein distance, case-insensitive: how far a typed lender name is from a program's. */
function nameDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[t.length];
}

/** The names nearest to what was typed: containing matches first, then by edit distance. */
export function closestNames(typed: string, names: readonly string[], count = 3): string[] {
  const needle = typed.trim().toLowerCase();
  return names
    .map((name) => ({ name, contains: needle.length >= 3 && name.toLowerCase().includes(needle) ? 0 : 1, distance: nameDistance(needle, name) }))
    .sort((a, b) => a.contains - b.contains || a.distance - b.distance || compareText(a.name, b.name))
    .slice(0, count)
    .map((m) => m.name);
}
