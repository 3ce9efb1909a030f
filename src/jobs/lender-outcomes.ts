import { type Database, getDb } from "../db/client";
import { retryingStaleReads } from "../db/guarded";
import { readOrgStorage } from "../db/queries/org-storage";
import { listOrganizationIds } from "../db/queries/reports";
import {
  closeEpisode,
  insertEpisode,
  listOpenEpisodes,
  listOutcomeDecisions,
  listProgramNames,
  loadOutcomeSettings,
  readFundedOn,
  unlessEpisodesOpen,
} from "../db/queries/signals";
import { onOrgStorage, orgStore } from "../durable-objects/org-storage-routing";
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
 * `lender-outcome-shifts` message per organization on the jobs queue (src/jobs/consumer.ts).
 */
export async function checkLenderOutcomes(env: Env, now: Date): Promise<void> {
  const orgIds = await listOrganizationIds(getDb(env.DB));
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
 * One organization: every store's programs tested against their own baseline
 * (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions). An episode
 * opens with its event in one batch, and the unique open-episode index makes a second opening
 * (a duplicated message) fail its batch, so no change is raised twice; a recovery closes it
 * with its own event, only while the episode is still open as read (else it reads again).
 */
export async function checkOrganizationLenderOutcomes(env: Env, orgId: string, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const settings = await loadOutcomeSettings(db);
  if (!settings) {
    logEvent("error", { event: "lender_outcome_settings_missing" });
    return;
  }
  await retryingStaleReads(() => raiseOutcomeShifts(env, db, orgId, settings, now));
}

/**
 * The funding days of an organization whose deals are not (only) in D1: read in its object, one
 * call per run (docs/scaling.md#every-reader-of-the-deals-group-and-where-it-reads-issue-39-fourth-step); undefined for one in D1, whose
 * decisions join its deals there. The flag is read at the primary, as the move flips it.
 */
async function fundedOnElsewhere(env: Env, db: Database, orgId: string) {
  const place = (await readOrgStorage(db, orgId)) ?? "d1";
  if (place === "d1") return undefined;
  return (dealIds: string[]) =>
    onOrgStorage(env, orgId, place, "read", {
      inD1: () => readFundedOn(db, orgId, dealIds),
      inObject: () => orgStore(env, orgId).fundedOn(orgId, dealIds),
    });
}

async function raiseOutcomeShifts(env: Env, db: Database, orgId: string, settings: OutcomeSettings, now: Date): Promise<void> {
  const { baseline } = outcomeWindows(settings, now);
  const [decisions, open, names] = await Promise.all([
    listOutcomeDecisions(db, orgId, baseline.from, await fundedOnElsewhere(env, db, orgId)),
    listOpenEpisodes(db, orgId),
    listProgramNames(db),
  ]);
  const { opened, recovered } = detectOutcomeShifts(
    decisions,
    open.map((e) => ({ id: e.id, storeId: e.storeId, programId: e.programId, before: e.figures.before })),
    settings,
    now,
  );
  if (opened.length === 0 && recovered.length === 0) return;
  const at = now.toISOString();
  const statements = [];
  const events: DomainEvent[] = [];
  for (const shift of opened) {
    const episode = {
      id: newId("loe"),
      storeId: shift.store_id,
      programId: shift.program_id,
      lender: names.get(shift.program_id) ?? shift.program_id,
    };
    const data = ownOutcomesData("tightening", episode, shift.before, shift.after, shift.p_value, settings);
    statements.push(
      insertEpisode(db, { id: episode.id, orgId, storeId: episode.storeId, programId: episode.programId, openedAt: at, figures: data }),
    );
    events.push({ event: "lender.environment_change", orgId, storeId: episode.storeId, data });
  }
  if (recovered.length > 0)
    statements.push(
      unlessEpisodesOpen(
        db,
        orgId,
        recovered.map((r) => r.episode.id),
      ),
    );
  for (const { episode, after, p_value } of recovered) {
    const lender = open.find((e) => e.id === episode.id)?.lender ?? episode.programId;
    statements.push(closeEpisode(db, orgId, episode.id, at));
    events.push({
      event: "lender.environment_change",
      orgId,
      storeId: episode.storeId,
      data: ownOutcomesData("recovered", { ...episode, lender }, episode.before, after, p_value, settings),
    });
  }
  await commitWithEvents(env, db, statements, events, now);
  logEvent("info", { event: "lender_outcome_shifts", org_id: orgId, opened: opened.length, recovered: recovered.length });
}
