import { getDb } from "../db/client";
import { listProgramNames, loadOutcomeSettings, type NewEpisode, type OutcomeStore } from "../db/queries/signals";
import {
  detectOutcomeShifts,
  type OutcomeSettings,
  outcomeWindows,
  tighteningSentence,
  type WindowFigures,
} from "../engines/lender-routing/outcome-shift";
import type { DomainEvent } from "../events/emit";
import { newId } from "../lib/ids";
import { logEvent } from "../lib/log";

/** The `lender.environment_change` payload of an episode's opening or recovery (docs/webhooks.md#events). */
function ownOutcomesData(
  trend: "tightening" | "recovered",
  episode: { id: string; storeId: string; programId: string; lender: string },
  before: WindowFigures | { decisions: number; approved: number; approval_rate: number | null },
  after: WindowFigures,
  pValue: number,
  settings: OutcomeSettings,
) {
  const pct = (rate: number | null) => `${Math.round((rate ?? 0) * 100)}%`;
  const summary =
    trend === "tightening"
      ? tighteningSentence(episode.lender, { before: before as WindowFigures, after }, settings)
      : `Approvals at ${episode.lender} recovered: ${pct(after.approval_rate)} over the last ${settings.recentDays} days, ${after.decisions} decisions, against ${pct(before.approval_rate)} before the tightening`;
  return {
    source: "own_outcomes",
    trend,
    store_id: episode.storeId,
    program_id: episode.programId,
    lender: episode.lender,
    episode_id: episode.id,
    window_days: settings.recentDays,
    baseline_days: settings.baselineDays,
    before,
    after,
    test: "fisher_exact_one_sided",
    p_value: pValue,
    alpha: settings.alpha,
    summary,
  };
}

/** What a run opens and closes, and the events it raises; undefined when nothing changed. */
function planOutcomeShifts(
  orgId: string,
  read: Awaited<ReturnType<OutcomeStore["read"]>>,
  names: ReadonlyMap<string, string>,
  settings: OutcomeSettings,
  now: Date,
) {
  const { decisions, open } = read;
  const { opened, recovered } = detectOutcomeShifts(
    decisions,
    open.map((e) => ({ id: e.id, storeId: e.storeId, programId: e.programId, before: e.figures.before })),
    settings,
    now,
  );
  if (opened.length === 0 && recovered.length === 0) return undefined;
  const at = now.toISOString();
  const episodes: NewEpisode[] = [];
  const events: DomainEvent[] = [];
  for (const shift of opened) {
    const episode = {
      id: newId("loe"),
      storeId: shift.store_id,
      programId: shift.program_id,
      lender: names.get(shift.program_id) ?? shift.program_id,
    };
    const data = ownOutcomesData("tightening", episode, shift.before, shift.after, shift.p_value, settings);
    episodes.push({ id: episode.id, orgId, storeId: episode.storeId, programId: episode.programId, openedAt: at, figures: data });
    events.push({ event: "lender.environment_change", orgId, storeId: episode.storeId, data });
  }
  for (const { episode, after, p_value } of recovered) {
    const lender = open.find((e) => e.id === episode.id)?.lender ?? episode.programId;
    events.push({
      event: "lender.environment_change",
      orgId,
      storeId: episode.storeId,
      data: ownOutcomesData("recovered", { ...episode, lender }, episode.before, after, p_value, settings),
    });
  }
  return { opened: episodes, closed: recovered.map((r) => r.episode.id), events, at };
}

/**
 * The organization's programs tested against their own baseline
 * (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions), run in its object
 * on its 05:00 alarm, after the market refresh and before the 06:00 briefings, which name what it
 * finds (src/jobs/org-nightly.ts): the decisions, their deals' funding days and the open
 * episodes read in the object (`local`), the program names and the settings from D1's reference
 * rows. An episode opens with its event and a recovery closes it with its own, in one transaction
 * of the object, the events in its outbox, which the alarm relays to D1's right after the run
 * (docs/scaling.md#an-object-write-and-its-events). The alarm runs one at a time, so the unique
 * open-episode index is the only guard needed.
 */
export async function raiseOutcomeShiftsOf(env: Env, orgId: string, local: OutcomeStore, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const [settings, names] = await Promise.all([loadOutcomeSettings(db), listProgramNames(db)]);
  if (!settings) {
    logEvent("error", { event: "lender_outcome_settings_missing" });
    return;
  }
  const plan = planOutcomeShifts(orgId, await local.read(outcomeWindows(settings, now).baseline.from), names, settings, now);
  if (!plan) return;
  local.write(plan.opened, plan.closed, plan.at, plan.events);
  logEvent("info", { event: "lender_outcome_shifts", org_id: orgId, opened: plan.opened.length, recovered: plan.closed.length });
}
