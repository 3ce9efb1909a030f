import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import * as queries from "../../db/queries/deal-desk";
import * as dealCoach from "../../engines/deal-coach";
import { amountFinanced, type CreditTier, compareText, type KnownIssue, tierFor } from "../../engines/deal-math";
import * as gross from "../../engines/gross";
import * as lenderRouting from "../../engines/lender-routing";
import * as stips from "../../engines/stips";
import { ApiError } from "../../http/errors";
import { onSettingsChange } from "../../lib/settings-changes";
import { TtlCache } from "../../lib/ttl-cache";
import type { DealCoachRequestSchema, GrossCalcRequestSchema, LenderRouteRequestSchema, StipCheckRequestSchema } from "./deal-desk.routes";

/**
 * Reference rows change only with a migration or an operator's edit, so each isolate keeps them
 * for 5 minutes. A store's settings, panel and decision counts are kept for 60 seconds: a new
 * decision or a settings change shows within a minute, and a request never reads row by row.
 */
export const REFERENCE_TTL_SECONDS = 300;
export const STORE_DESK_TTL_SECONDS = 60;

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
  store: NonNullable<Awaited<ReturnType<typeof queries.findDeskStore>>>;
  panel: readonly Program[];
  calibration: lenderRouting.Calibration;
  turnaround: ReadonlyMap<string, { submissions: number; avgTurnaroundHours: number | null }>;
}

const referenceCache = new TtlCache<DealDeskReference>({ ttlMs: REFERENCE_TTL_SECONDS * 1000, maxEntries: 1 });
const storeDeskCache = new TtlCache<StoreDesk | null>({ ttlMs: STORE_DESK_TTL_SECONDS * 1000, maxEntries: 2_000 });
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

async function loadStoreDesk(db: Database, reference: DealDeskReference, orgId: string, storeId: string | undefined): Promise<StoreDesk | null> {
  const store = await queries.findDeskStore(db, orgId, storeId);
  if (!store) return null;
  const history = await queries.loadStoreLenderHistory(db, orgId, store.id);
  const calibration = new Map<string, Partial<Record<CreditTier, lenderRouting.DecisionCounts>>>();
  const turnaround = new Map<string, { submissions: number; turnaroundSum: number }>();
  for (const row of history.decisions) {
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
    panel: history.panelProgramIds.flatMap((id) => reference.programsById.get(id) ?? []).sort((a, b) => compareText(a.name, b.name)),
    calibration,
    turnaround: new Map(
      [...turnaround].map(([id, t]) => [
        id,
        { submissions: t.submissions, avgTurnaroundHours: t.submissions > 0 ? t.turnaroundSum / t.submissions : null },
      ]),
    ),
  };
}

/** The reference rows and the store's desk, from this isolate's memory when fresh. Another organization's store: 404. */
async function context(db: Database, orgId: string, storeId: string | undefined, nowMs: number) {
  const reference = await referenceCache.get("reference", nowMs, () => loadReference(db));
  const desk = await storeDeskCache.get(`${orgId}\u0000${storeId ?? ""}`, nowMs, () => loadStoreDesk(db, reference, orgId, storeId));
  if (!desk) {
    throw new ApiError("not_found", storeId === undefined ? "This organization has no store." : "This organization has no store with that id.");
  }
  return { reference, desk };
}

const uniqueIssues = (issues: readonly KnownIssue[]) => [...new Set(issues)];

/** The request as the engine's profile: every field the schema accepts but `store_id`, which picks the panel and history. */
export function routeProfile(body: z.infer<typeof LenderRouteRequestSchema>): lenderRouting.RouteProfile {
  return {
    beacon: body.beacon,
    downPayment: body.down_payment,
    vehiclePrice: body.vehicle_price,
    tradeValue: body.trade_value,
    tradePayoff: body.trade_payoff,
    taxes: body.taxes,
    fees: body.fees,
    vehicleType: body.vehicle_type,
    condition: body.condition,
    knownIssues: uniqueIssues(body.known_issues),
    termMonths: body.term_months,
    bookValue: body.book_value,
    monthlyIncome: body.monthly_income,
    vehicleYear: body.vehicle_year,
    mileage: body.mileage,
    daysToFirstPayment: body.days_to_first_payment,
  };
}

export async function routeLender(db: Database, orgId: string, body: z.infer<typeof LenderRouteRequestSchema>, now: Date) {
  const { reference, desk } = await context(db, orgId, body.store_id, now.getTime());
  const result = lenderRouting.routeLender(routeProfile(body), desk.panel, reference.routing, desk.calibration, now);
  return { ...result, store_id: desk.store.id };
}

export async function checkStips(db: Database, orgId: string, body: z.infer<typeof StipCheckRequestSchema>, now: Date) {
  const { reference, desk } = await context(db, orgId, body.store_id, now.getTime());
  const program = reference.programsByName.get(body.lender.toLowerCase());
  if (!program) {
    const suggestions = stips.closestNames(
      body.lender,
      reference.programs.map((p) => p.name),
    );
    throw new ApiError("validation_error", "The request body is invalid.", {
      details: [
        { path: "lender", code: "unknown_lender", message: `Unknown lender "${body.lender}". Closest program names: ${suggestions.join("; ")}.` },
      ],
      body: { suggestions },
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
  return { ...result, store_id: desk.store.id };
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
  const financed = amountFinanced({
    vehiclePrice: body.vehicle_price,
    downPayment: body.down_payment ?? 0,
    tradeValue: body.trade_value,
    tradePayoff: body.trade_payoff,
    taxes: body.taxes,
    fees: body.fees,
  });
  const book = body.book_value ?? body.vehicle_price;
  return { financed, ltv: (financed.amount / book) * 100, book, maxLtv };
}

export async function calculateGross(db: Database, orgId: string, body: z.infer<typeof GrossCalcRequestSchema>, now: Date) {
  const { reference, desk } = await context(db, orgId, body.store_id, now.getTime());
  const result = gross.calculateGross(
    {
      purchasePrice: body.purchase_price,
      sellingPrice: body.selling_price,
      vehicleType: body.vehicle_type,
      daysOnLot: body.days_on_lot,
      condition: body.condition,
      marketValue: body.market_value,
      grade: body.condition_grade,
    },
    desk.store,
    reference.frontGrossTargets,
  );
  return { ...result, store_id: desk.store.id };
}

export async function coachDeal(db: Database, orgId: string, body: z.infer<typeof DealCoachRequestSchema>, now: Date) {
  const { reference, desk } = await context(db, orgId, body.store_id, now.getTime());
  const result = dealCoach.coachDeal(
    {
      beacon: body.beacon,
      vehiclePrice: body.vehicle_price,
      tradeValue: body.trade_value,
      tradePayoff: body.trade_payoff,
      downPayment: body.down_payment,
      desiredPayment: body.desired_payment,
      termMonths: body.term_months,
      condition: body.condition,
      vehicleCost: body.vehicle_cost,
      vehicleYear: body.vehicle_year,
      mileage: body.mileage,
      daysToFirstPayment: body.days_to_first_payment,
      financeChargeFees: body.finance_charge_fees,
      certified: body.certified,
      warrantyMonthsLeft: body.warranty_months_left,
      warrantyMilesLeft: body.warranty_miles_left,
    },
    body.condition === "new" ? desk.store.packNew : desk.store.packUsed,
    {
      tiers: reference.routing.tiers,
      frontGrossTargets: reference.frontGrossTargets,
      fiProducts: reference.fiProducts,
      wordTracks: reference.wordTracks,
      warrantyTerms: reference.warrantyTerms,
      retentionCurve: reference.retentionCurve,
      programs: desk.panel,
    },
    now,
  );
  return { ...result, store_id: desk.store.id };
}
