import type { Statement } from "../db/batch";
import { type Database, getDb } from "../db/client";
import { retryingStaleReads } from "../db/guarded";
import { readOrgStorage, unlessStorageInD1 } from "../db/queries/org-storage";
import { listOrganizationIds } from "../db/queries/reports";
import {
  closeEpisode,
  insertEpisode,
  listOpenEpisodes,
  listOutcomeDecisions,
  listProgramNames,
  loadOutcomeSettings,
  type NewEpisode,
  type OutcomeStore,
  unlessEpisodesOpen,
} from "../db/queries/signals";
import {
  detectOutcomeShifts,
  type OutcomeSettings,
  outcomeWindows,
  tighteningSentence,
  type WindowFigures,
} from "../engines/lender-routing/outcome-shift";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { newId } from "../lib/ids";
import { logEvent } from "../lib/log";
import { enqueueJobs } from "./queue";

/**
 * 05:00 UTC, after the market refresh (so the 06:00 briefings name what it finds): one
 * `lender-outcome-shifts` message per organization in D1 on the jobs queue (src/jobs/consumer.ts).
 */
export async function checkLenderOutcomes(env: Env, now: Date): Promise<void> {
  const orgIds = await listOrganizationIds(getDb(env.DB), "d1");
  await enqueueJobs(
    env,
    orgIds.map((orgId) => ({ job: "lender-outcome-shifts", orgId, scheduledTime: now.getTime() })),
  );
  logEvent("info", { event: "lender_outcome_checks_enqueued", organizations: orgIds.length });
}

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

/**
 * One organization whose decisions are in D1: every store's programs tested against their own
 * baseline (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions). An
 * episode opens with its event in one batch, and the unique open-episode index makes a second
 * opening (a duplicated message) fail its batch, so no change is raised twice; a recovery closes
 * it with its own event, only while the episode is still open as read (else it reads again). An
 * organization in its object (docs/scaling.md#jobs-where-the-data-is) is skipped: its object's
 * alarm runs the same test on the decisions it holds (`raiseOutcomeShiftsOf`).
 */
export async function checkOrganizationLenderOutcomes(env: Env, orgId: string, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const storage = await readOrgStorage(db, orgId);
  if (storage !== undefined && storage !== "d1") {
    logEvent("info", { event: "lender_outcome_shifts_skipped", org_id: orgId, storage });
    return;
  }
  const settings = await loadOutcomeSettings(db);
  if (!settings) {
    logEvent("error", { event: "lender_outcome_settings_missing" });
    return;
  }
  await retryingStaleReads(() => raiseOutcomeShifts(env, db, orgId, settings, now));
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

async function raiseOutcomeShifts(env: Env, db: Database, orgId: string, settings: OutcomeSettings, now: Date): Promise<void> {
  const { baseline } = outcomeWindows(settings, now);
  const [decisions, open, names] = await Promise.all([
    listOutcomeDecisions(db, orgId, baseline.from),
    listOpenEpisodes(db, orgId),
    listProgramNames(db),
  ]);
  const plan = planOutcomeShifts(orgId, { decisions, open }, names, settings, now);
  if (!plan) return;
  // Fenced: a move that began since the flag was read has copied the episodes, and its object runs the next test.
  const statements: Statement[] = [unlessStorageInD1(db, orgId), ...plan.opened.map((episode) => insertEpisode(db, episode))];
  if (plan.closed.length > 0)
    statements.push(unlessEpisodesOpen(db, orgId, plan.closed), ...plan.closed.map((id) => closeEpisode(db, orgId, id, plan.at)));
  await commitWithEvents(env, db, statements, plan.events, now);
  logEvent("info", { event: "lender_outcome_shifts", org_id: orgId, opened: plan.opened.length, recovered: plan.closed.length });
}

/**
 * The same test for an organization whose decisions are in its object, run there on its alarm at
 * the cron's time (src/jobs/org-nightly.ts): the decisions, their deals' funding days and the open
 * episodes read in the object (`local`), the program names and the settings from D1's reference
 * rows. The episodes and their events are written in one transaction of the object, the events in
 * its outbox, which the alarm relays to D1's right after the run (docs/scaling.md#an-object-write-and-its-events).
 * The alarm runs one at a time, so the unique open-episode index is the only guard needed.
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
