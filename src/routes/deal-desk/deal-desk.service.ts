import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { loadConditionGrades } from "../../db/queries/appraisal";
import * as queries from "../../db/queries/deal-desk";
import type { StoreSettingsRow } from "../../db/queries/settings";
import type { FeedReceipts } from "../../db/queries/signals";
import { orgStore } from "../../durable-objects/org-storage-routing";
import type { GradeFactor } from "../../engines/aged-inventory/recommendation";
import * as dealCoach from "../../engines/deal-coach";
import { amountFinanced, type CreditTier, compareText, type KnownIssue, tierFor } from "../../engines/deal-math";
import { dataAsOf, staleWarnings } from "../../engines/freshness";
import * as gross from "../../engines/gross";
import * as lenderRouting from "../../engines/lender-routing";
import * as stips from "../../engines/stips";
import { camelKeys, exactly } from "../../lib/case";
import { DomainError } from "../../lib/domain-error";
import { onSettingsChange } from "../../lib/settings-changes";
import { TtlCache } from "../../lib/ttl-cache";
import {
  type DealCoachRequestSchema,
  financedInputs,
  type GrossCalcRequestSchema,
  type LenderRouteRequestSchema,
  type StipCheckRequestSchema,
} from "./deal-desk.routes";

/**
 * Reference rows change only with a migration or an operator's edit, so each isolate keeps them
 * for 5 minutes. A store's settings, panel and decision counts are kept for 60 seconds: a new
 * decision or a settings change shows within a minute, and a request never reads row by row.
 */
const REFERENCE_TTL_SECONDS = 300;
const STORE_DESK_TTL_SECONDS = 60;

type Reference = Awaited<ReturnType<typeof queries.loadDealDeskReference>>;
type Program = Reference["programs"][number] & Pick<lenderRouting.LenderProgramRow, "termLimits">;

interface DealDeskReference {
  routing: lenderRouting.RoutingReference;
  programs: readonly Program[];
  programsById: ReadonlyMap<string, Program>;
  programsByName: ReadonlyMap<string, Program>;
  fiProducts: Reference["fiProducts"];
  wordTracks: Reference["wordTracks"];
  warrantyTerms: Reference["warrantyTerms"];
  retentionCurve: Reference["retentionCurve"];
  frontGrossTargets: Reference["targets"];
}

interface StoreDesk {
  /** The store's settings, kept in the organization's object, under its directory name. */
  store: StoreSettingsRow;
  panel: readonly Program[];
  calibration: lenderRouting.Calibration;
  turnaround: ReadonlyMap<string, { submissions: number; avgTurnaroundHours: number | null }>;
  /** The store's programs with an open tightening (docs/domain/lender-routing.md#ranking-a-tightened-program). */
  tightenings: ReadonlyMap<string, lenderRouting.ProgramTightening>;
  /** When the store's deals feed last delivered: the calibration's age (docs/ingestion.md#when-a-feed-stops). */
  feeds: FeedReceipts;
}

const referenceCache = new TtlCache<DealDeskReference>({ ttlMs: REFERENCE_TTL_SECONDS * 1000, maxEntries: 1 });
const storeDeskCache = new TtlCache<StoreDesk | null>({ ttlMs: STORE_DESK_TTL_SECONDS * 1000, maxEntries: 2_000 });
/** Each organization's auction condition grades (D1 reference rows), kept as long as a store's desk. */
const gradeCache = new TtlCache<GradeFactor[]>({ ttlMs: STORE_DESK_TTL_SECONDS * 1000, maxEntries: 2_000 });
onSettingsChange((orgId) => storeDeskCache.evictPrefix(`${orgId}\u0000`));

async function loadReference(db: Database): Promise<DealDeskReference> {
  const rows = await queries.loadDealDeskReference(db);
  const ladders = new Map<string, lenderRouting.TermRung[]>();
  for (const rung of rows.termLimits) ladders.set(rung.programId, [...(ladders.get(rung.programId) ?? []), rung]);
  const programs = rows.programs.map((p) => ({ ...p, termLimits: ladders.get(p.id) ?? [] }));
  return {
    routing: {
      settings: rows.routingSettings,
      tiers: rows.tiers,
      vehicleAdjustments: new Map(rows.adjustments.map((a) => [a.vehicleType, a])),
      issueRules: new Map(rows.issues.map((i) => [i.issue, i])),
      stipRules: rows.stipRules,
      stipTypes: new Map(rows.stipTypes.map((s) => [s.stip, s])),
    },
    programs,
    programsById: new Map(programs.map((p) => [p.id, p])),
    programsByName: new Map(programs.map((p) => [p.name.toLowerCase(), p])),
    fiProducts: rows.fiProducts,
    wordTracks: rows.wordTracks,
    warrantyTerms: rows.warrantyTerms,
    retentionCurve: rows.retentionCurve,
    frontGrossTargets: rows.targets,
  };
}

/**
 * A store's desk: its directory row (D1), then in one call to the organization's object its
 * settings, panel, decision counts, open tightenings and feeds' receipts. Null when the store is not
 * the organization's, in the directory or in the object (no settings to price with).
 */
async function loadStoreDesk(
  env: Pick<Env, "ORG_STORE">,
  db: Database,
  reference: DealDeskReference,
  orgId: string,
  storeId: string | undefined,
): Promise<StoreDesk | null> {
  const directory = await queries.findDeskStore(db, orgId, storeId);
  if (!directory) return null;
  const { decisions, episodes, settings, panel, feeds } = await orgStore(env, orgId).lenderHistory(orgId, directory.id);
  if (!settings) return null;
  const store = { ...settings, ...directory };
  const calibration = new Map<string, Partial<Record<CreditTier, lenderRouting.DecisionCounts>>>();
  const turnaround = new Map<string, { submissions: number; turnaroundSum: number }>();
  for (const row of decisions) {
    const bands = calibration.get(row.programId) ?? {};
    bands[row.scoreBand] = { approved: Number(row.approved), countered: Number(row.countered), declined: Number(row.declined) };
    calibration.set(row.programId, bands);
    const timed = turnaround.get(row.programId) ?? { submissions: 0, turnaroundSum: 0 };
    timed.submissions += Number(row.timed);
    timed.turnaroundSum += Number(row.turnaroundSum);
    turnaround.set(row.programId, timed);
  }
  return {
    store,
    panel: panel.flatMap((id) => reference.programsById.get(id) ?? []).sort((a, b) => compareText(a.name, b.name)),
    calibration,
    tightenings: new Map(
      episodes.map((e) => [
        e.programId,
        { before: e.figures.before, after: e.figures.after, summary: e.figures.summary, since: e.openedAt.slice(0, 10) },
      ]),
    ),
    feeds,
    turnaround: new Map(
      [...turnaround].map(([id, t]) => [
        id,
        { submissions: t.submissions, avgTurnaroundHours: t.submissions > 0 ? t.turnaroundSum / t.submissions : null },
      ]),
    ),
  };
}

/** The reference rows and the store's desk, from this isolate's memory when fresh. Another organization's store: 404. */
async function context(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, storeId: string | undefined, nowMs: number) {
  const reference = await referenceCache.get("reference", nowMs, () => loadReference(db));
  const desk = await storeDeskCache.get(`${orgId}\u0000${storeId ?? ""}`, nowMs, () => loadStoreDesk(env, db, reference, orgId, storeId));
  if (!desk) {
    throw new DomainError("not_found", storeId === undefined ? "This organization has no store." : "This organization has no store with that id.");
  }
  return { reference, desk };
}

/** The age of the deals behind the store's calibration and turnaround history, and its warnings. */
function deskDataAsOf(desk: StoreDesk, now: Date) {
  const entries = dataAsOf(desk.feeds.stores, desk.feeds.receipts, ["deals"], now);
  return { data_as_of: entries, data_warnings: staleWarnings(entries) };
}

const uniqueIssues = (issues: readonly KnownIssue[]) => [...new Set(issues)];

/** The request as the engine's profile: every field the schema accepts but `store_id`, which picks the panel and history. */
export function routeProfile(body: z.infer<typeof LenderRouteRequestSchema>): lenderRouting.RouteProfile {
  const { store_id: _storeId, known_issues, ...fields } = body;
  return exactly<lenderRouting.RouteProfile>()({ ...camelKeys(fields), knownIssues: uniqueIssues(known_issues) });
}

export async function routeLender(
  env: Pick<Env, "ORG_STORE">,
  db: Database,
  orgId: string,
  body: z.infer<typeof LenderRouteRequestSchema>,
  now: Date,
) {
  const { reference, desk } = await context(env, db, orgId, body.store_id, now.getTime());
  const result = lenderRouting.routeLender(routeProfile(body), desk.panel, reference.routing, desk.calibration, now, desk.tightenings);
  const panelIds = new Set(desk.panel.map((p) => p.id));
  return {
    ...result,
    store_id: desk.store.id,
    outcome_changes: [...desk.tightenings]
      .filter(([id]) => panelIds.has(id))
      .map(([id, t]) => ({ lender: reference.programsById.get(id)?.name ?? id, lender_id: id, since: t.since, summary: t.summary })),
    ...deskDataAsOf(desk, now),
  };
}

export async function checkStips(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, body: z.infer<typeof StipCheckRequestSchema>, now: Date) {
  const { reference, desk } = await context(env, db, orgId, body.store_id, now.getTime());
  const program = reference.programsByName.get(body.lender.toLowerCase());
  if (!program) {
    const suggestions = stips.closestNames(
      body.lender,
      reference.programs.map((p) => p.name),
    );
    throw new DomainError("invalid", "The request body is invalid.", {
      problems: [
        { path: "lender", code: "unknown_lender", message: `Unknown lender "${body.lender}". Closest program names: ${suggestions.join("; ")}.` },
      ],
      facts: { suggestions },
    });
  }
  const history = desk.turnaround.get(program.id) ?? { submissions: 0, avgTurnaroundHours: null };
  const result = stips.checkStips(
    stipCheckInput(body, program, reference.routing, now),
    program,
    reference.routing.stipRules,
    reference.routing.stipTypes,
    history,
  );
  return { ...result, store_id: desk.store.id, ...deskDataAsOf(desk, now) };
}

/** The request as the engine's input for one program: every field but `lender` (the program) and `store_id` (its turnaround history). */
export function stipCheckInput(
  body: z.infer<typeof StipCheckRequestSchema>,
  program: Pick<lenderRouting.LenderProgramRow, "maxLtv">,
  routing: Pick<lenderRouting.RoutingReference, "tiers" | "vehicleAdjustments">,
  now: Date,
): stips.StipCheckInput {
  const adjustment = body.vehicle_type && routing.vehicleAdjustments.get(body.vehicle_type);
  return {
    beacon: body.beacon,
    tier: tierFor(routing.tiers, body.beacon).tier,
    knownIssues: uniqueIssues(body.known_issues),
    incomeType: body.income_type,
    asOf: now,
    deal: stipDeal(body, lenderRouting.programMaxLtv(program, adjustment)),
  };
}

/**
 * The deal's amount financed and LTV, when the stip-check request gave a price
 * (docs/domain/deal-math.md#amount-financed), with the lender's LTV maximum for the vehicle.
 */
function stipDeal(body: z.infer<typeof StipCheckRequestSchema>, maxLtv: number): stips.StipDeal | undefined {
  if (body.vehicle_price === undefined) return undefined;
  const financed = amountFinanced(financedInputs({ ...body, vehicle_price: body.vehicle_price }));
  const book = body.book_value ?? body.vehicle_price;
  return { financed, ltv: (financed.amount / book) * 100, book, maxLtv };
}

export async function calculateGross(
  env: Pick<Env, "ORG_STORE">,
  db: Database,
  orgId: string,
  body: z.infer<typeof GrossCalcRequestSchema>,
  now: Date,
) {
  const [{ reference, desk }, grades] = await Promise.all([
    context(env, db, orgId, body.store_id, now.getTime()),
    gradeCache.get(orgId, now.getTime(), () => loadConditionGrades(db, orgId)),
  ]);
  const { store_id: _storeId, condition_grade, ...fields } = body;
  const grade = grades.find((row) => row.grade === condition_grade);
  if (!grade) throw new Error(`appraisal_condition_grades has no row for ${condition_grade}`);
  const result = gross.calculateGross(
    exactly<gross.GrossInput>()({ ...camelKeys(fields), grade }),
    desk.store,
    gross.frontGrossTargetsFor(reference.frontGrossTargets, desk.store),
  );
  return { ...result, store_id: desk.store.id };
}

export async function coachDeal(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, body: z.infer<typeof DealCoachRequestSchema>, now: Date) {
  const { reference, desk } = await context(env, db, orgId, body.store_id, now.getTime());
  const { store_id: _storeId, ...fields } = body;
  try {
    const result = dealCoach.coachDeal(
      exactly<dealCoach.CoachInput>()(camelKeys(fields)),
      body.condition === "new" ? desk.store.packNew : desk.store.packUsed,
      {
        tiers: reference.routing.tiers,
        frontGrossTargets: gross.frontGrossTargetsFor(reference.frontGrossTargets, desk.store),
        fiProducts: reference.fiProducts,
        wordTracks: reference.wordTracks,
        warrantyTerms: reference.warrantyTerms,
        retentionCurve: reference.retentionCurve,
        programs: desk.panel,
      },
      now,
    );
    return { ...result, store_id: desk.store.id };
  } catch (error) {
    // docs/domain/deal-math.md#smallest-amount-financed: too little financed for a schedule of cent payments is a cash deal, like nothing financed.
    if (!(error instanceof dealCoach.TooSmallToFinance)) throw error;
    throw new DomainError("invalid", "The request body is invalid.", {
      problems: [{ path: "down_payment", code: "too_small_to_finance", message: error.message }],
    });
  }
}
