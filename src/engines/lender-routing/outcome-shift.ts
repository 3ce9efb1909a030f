/**
 * A lender tightening seen in the store's own decisions
 * (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions): per store and
 * program, the recent window's approval rate against the program's own baseline, tested with a
 * one-sided Fisher exact test, which is exact at any sample size, so 3 of 4 then 1 of 3 is not
 * evidence and 39 of 50 then 7 of 17 is. Counter-offers, stips asked, stip turnaround and days to
 * fund are reported beside it as the data allows; only the approval rate decides.
 */
import { daysBefore, isoDay } from "../dates";

export type OutcomeDecisionKind = "approved" | "countered" | "declined";

/** One submission as the detector reads it: a `lender_decisions` row, with its deal's funding when known. */
export interface OutcomeDecision {
  storeId: string;
  programId: string;
  /** YYYY-MM-DD. */
  submittedOn: string;
  decision: OutcomeDecisionKind;
  stipsAsked: number;
  /** Submission to stips cleared; null when declined or not yet cleared. */
  turnaroundHours: number | null;
  /** Submission to funding of the deal, days; null when not funded or not linked to a deal. */
  fundingDays: number | null;
}

/** The row of `lender_outcome_settings`. */
export interface OutcomeSettings {
  recentDays: number;
  baselineDays: number;
  alpha: number;
  recoveryP: number;
  minRecentDecisions: number;
}

/** A window's outcomes; the averages are null when no decision in it carries the figure. */
export interface WindowFigures {
  /** First and last day of the window, inclusive. */
  from: string;
  to: string;
  decisions: number;
  approved: number;
  approval_rate: number | null;
  counter_rate: number | null;
  avg_stips_asked: number | null;
  avg_turnaround_hours: number | null;
  avg_funding_days: number | null;
}

export interface OutcomeShift {
  store_id: string;
  program_id: string;
  before: WindowFigures;
  after: WindowFigures;
  /** One-sided Fisher exact p: the chance of an approval count this low or lower in the recent window if nothing changed. */
  p_value: number;
}

/** An open episode: its program and the baseline it opened against (a recovery is judged against the same baseline). */
export interface OpenEpisode {
  id: string;
  storeId: string;
  programId: string;
  before: Pick<WindowFigures, "decisions" | "approved" | "approval_rate">;
}

export interface Recovery {
  episode: OpenEpisode;
  after: WindowFigures;
  p_value: number;
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1] + Math.log(i));
  return logFactorials[n];
}
const logChoose = (n: number, k: number) => logFactorial(n) - logFactorial(k) - logFactorial(n - k);

/**
 * P(X ≤ recentApproved) for X hypergeometric: the recent window's approvals when the windows'
 * approvals together are fixed (the one-sided Fisher exact test of a 2×2 table). 1 when either
 * window is empty: no evidence.
 */
export function fisherLowerTail(recentApproved: number, recentTotal: number, baseApproved: number, baseTotal: number): number {
  if (recentTotal === 0 || baseTotal === 0) return 1;
  const total = recentTotal + baseTotal;
  const approved = recentApproved + baseApproved;
  const low = Math.max(0, recentTotal - (total - approved));
  const denominator = logChoose(total, recentTotal);
  let p = 0;
  for (let x = low; x <= recentApproved; x++) p += Math.exp(logChoose(approved, x) + logChoose(total - approved, recentTotal - x) - denominator);
  return Math.min(1, p);
}

const mean = (values: number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);
const round = (value: number | null, places: number) => (value === null ? null : Number(value.toFixed(places)));

/** The figures of the decisions submitted from `from` to `to`, inclusive. */
function windowFigures(decisions: readonly OutcomeDecision[], from: string, to: string): WindowFigures {
  const inWindow = decisions.filter((d) => d.submittedOn >= from && d.submittedOn <= to);
  const approved = inWindow.filter((d) => d.decision === "approved").length;
  const n = inWindow.length;
  return {
    from,
    to,
    decisions: n,
    approved,
    approval_rate: n === 0 ? null : round(approved / n, 4),
    counter_rate: n === 0 ? null : round(inWindow.filter((d) => d.decision === "countered").length / n, 4),
    avg_stips_asked: round(mean(inWindow.map((d) => d.stipsAsked)), 2),
    avg_turnaround_hours: round(mean(inWindow.flatMap((d) => (d.turnaroundHours === null ? [] : [d.turnaroundHours]))), 1),
    avg_funding_days: round(mean(inWindow.flatMap((d) => (d.fundingDays === null ? [] : [d.fundingDays]))), 1),
  };
}

/** The recent window (the last `recentDays` days, today included) and the baseline (the `baselineDays` before it). */
export function outcomeWindows(settings: Pick<OutcomeSettings, "recentDays" | "baselineDays">, now: Date) {
  return {
    recent: { from: isoDay(daysBefore(now, settings.recentDays - 1)), to: isoDay(now) },
    baseline: { from: isoDay(daysBefore(now, settings.recentDays + settings.baselineDays - 1)), to: isoDay(daysBefore(now, settings.recentDays)) },
  };
}

/**
 * The programs whose recent approval rate fell below their baseline beyond chance (p ≤ alpha) and
 * have no open episode, and the open episodes that recovered: the recent window against the
 * episode's own baseline gives p over `recoveryP` (a hysteresis: a p near alpha neither opens nor
 * closes twice). Fewer than `minRecentDecisions` recent decisions decide neither way.
 */
export function detectOutcomeShifts(
  decisions: readonly OutcomeDecision[],
  openEpisodes: readonly OpenEpisode[],
  settings: OutcomeSettings,
  now: Date,
): { opened: OutcomeShift[]; recovered: Recovery[] } {
  const { recent, baseline } = outcomeWindows(settings, now);
  const byProgram = new Map<string, OutcomeDecision[]>();
  for (const d of decisions) {
    const key = `${d.storeId}\u0000${d.programId}`;
    const list = byProgram.get(key);
    if (list) list.push(d);
    else byProgram.set(key, [d]);
  }
  const open = new Map(openEpisodes.map((e) => [`${e.storeId}\u0000${e.programId}`, e]));
  const opened: OutcomeShift[] = [];
  const recovered: Recovery[] = [];
  for (const [key, list] of [...byProgram].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const after = windowFigures(list, recent.from, recent.to);
    if (after.decisions < settings.minRecentDecisions) continue;
    const episode = open.get(key);
    if (episode) {
      const p = fisherLowerTail(after.approved, after.decisions, episode.before.approved, episode.before.decisions);
      if (p > settings.recoveryP) recovered.push({ episode, after, p_value: round(p, 6) ?? 1 });
      continue;
    }
    const before = windowFigures(list, baseline.from, baseline.to);
    const p = fisherLowerTail(after.approved, after.decisions, before.approved, before.decisions);
    if (p <= settings.alpha) opened.push({ store_id: list[0].storeId, program_id: list[0].programId, before, after, p_value: round(p, 6) ?? 0 });
  }
  return { opened, recovered };
}

const pct = (rate: number | null) => `${Math.round((rate ?? 0) * 100)}%`;

/** "Approvals at X fell from 78% to 41% over the last 30 days, 17 decisions (60 in the 180 days before)". */
export function tighteningSentence(
  lender: string,
  shift: Pick<OutcomeShift, "before" | "after">,
  settings: Pick<OutcomeSettings, "recentDays">,
): string {
  const { before, after } = shift;
  const also: string[] = [];
  if (before.counter_rate !== null && after.counter_rate !== null && after.counter_rate > before.counter_rate) {
    also.push(`counter-offers ${pct(before.counter_rate)} → ${pct(after.counter_rate)}`);
  }
  if (before.avg_stips_asked !== null && after.avg_stips_asked !== null && after.avg_stips_asked > before.avg_stips_asked) {
    also.push(`stips asked ${before.avg_stips_asked} → ${after.avg_stips_asked} a deal`);
  }
  if (before.avg_funding_days !== null && after.avg_funding_days !== null && after.avg_funding_days > before.avg_funding_days) {
    also.push(`days to fund ${before.avg_funding_days} → ${after.avg_funding_days}`);
  }
  return `Approvals at ${lender} fell from ${pct(before.approval_rate)} to ${pct(after.approval_rate)} over the last ${settings.recentDays} days, ${after.decisions} decisions (against ${before.decisions} before)${also.length > 0 ? `; ${also.join(", ")}` : ""}`;
}

/**
 * What the tightening does to the program's approval likelihood in lender routing: scaled by the
 * recent approval rate over the baseline's (docs/domain/lender-routing.md#ranking-a-tightened-program),
 * since the store's history behind the calibration is mostly from before the change.
 */
export function tighteningFactor(shift: Pick<OutcomeShift, "before" | "after">): number {
  const before = shift.before.approval_rate ?? 0;
  const after = shift.after.approval_rate ?? 0;
  return before > 0 ? Math.min(1, after / before) : 1;
}
