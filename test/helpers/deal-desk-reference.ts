import {
  CREDIT_TIER_ROWS,
  FACTORY_WARRANTY_ROWS,
  FI_PRODUCT_ROWS,
  FI_WORD_TRACK_ROWS,
  FRONT_GROSS_TARGET_ROWS,
  KNOWN_ISSUE_ROWS,
  LENDER_PROGRAM_ROWS,
  LENDER_ROUTING_SETTINGS_ROW,
  LENDER_TERM_LIMIT_ROWS,
  STIP_RULE_ROWS,
  STIP_TYPE_ROWS,
  VEHICLE_TYPE_ADJUSTMENT_ROWS,
} from "../../scripts/deal-desk-reference";
import type { StoreEconomics } from "../../src/engines/appraisal/types";
import { frontGrossTargetsFor } from "../../src/engines/gross";
import type { LenderProgramRow, RoutingReference } from "../../src/engines/lender-routing";

/** The shipped reference rows, shaped as the service hands them to the engines (pure: the Node project's engine tests use it). */
export const ROUTING_REFERENCE: RoutingReference = {
  settings: LENDER_ROUTING_SETTINGS_ROW,
  tiers: [...CREDIT_TIER_ROWS].sort((a, b) => b.scoreMin - a.scoreMin),
  vehicleAdjustments: new Map(VEHICLE_TYPE_ADJUSTMENT_ROWS.map((a) => [a.vehicleType, a])),
  issueRules: new Map(KNOWN_ISSUE_ROWS.map((i) => [i.issue, { ...i, maxTerm: i.maxTerm ?? null }])),
  stipRules: STIP_RULE_ROWS,
  stipTypes: new Map(STIP_TYPE_ROWS.map((s) => [s.stip, s])),
};

/** The shipped programs with their term ladders, as the service hands them to the engine. */
export const PROGRAMS = LENDER_PROGRAM_ROWS.map((p) => ({
  ...p,
  minAmount: p.minAmount ?? 0,
  maxAmount: p.maxAmount ?? null,
  termLimits: LENDER_TERM_LIMIT_ROWS.filter((rung) => rung.programId === p.id),
})) satisfies LenderProgramRow[];
export const program = (name: string) => {
  const found = LENDER_PROGRAMS_BY_NAME.get(name);
  if (!found) throw new Error(`no program ${name}`);
  return found;
};
const LENDER_PROGRAMS_BY_NAME = new Map(PROGRAMS.map((p) => [p.name, p]));

/** Store defaults (the `stores` column defaults; docs/domain/gross.md). */
export const DEFAULT_STORE = {
  packNew: 300,
  packUsed: 500,
  holdingCostPerDay: 35,
  holdingHighValueCost: 30_000,
  holdingHighValueDailyPct: 0.1,
  floorplanAprNew: 7.0,
  floorplanAprUsed: 8.5,
  floorplanAssistanceNewPerDay: 0,
  overheadNewPerDay: 0,
  wholesaleRatioPct: 82,
  auctionFees: 500,
  reconCar: 1200,
  reconTruck: 1400,
  reconSuv: 1300,
  reconVan: 1200,
  agedThresholdDays: 45,
  agedThresholdDaysNew: 90,
  targetFrontGrossUsedPct: 8,
  targetFrontGrossUsedMin: 1200,
};

export const COACH_REFERENCE = {
  tiers: ROUTING_REFERENCE.tiers,
  frontGrossTargets: frontGrossTargetsFor(FRONT_GROSS_TARGET_ROWS, DEFAULT_STORE),
  fiProducts: FI_PRODUCT_ROWS,
  wordTracks: FI_WORD_TRACK_ROWS,
  warrantyTerms: FACTORY_WARRANTY_ROWS,
  // Without a curve no track projects a unit's value; coachReferenceWithCurve() (helpers/deal-desk.ts) adds the shipped one.
  retentionCurve: [] as { ageYears: number; residualPct: number }[],
  // The whole shipped catalogue as the store's panel, as createDeskOrg() gives a store by default.
  programs: PROGRAMS as readonly LenderProgramRow[],
};

/** A store's economics as the trade-appraisal engine reads them, from the shipped defaults above. */
export function appraisalStore(name: string, marketZip: string): StoreEconomics {
  return {
    name,
    marketZip,
    packUsed: DEFAULT_STORE.packUsed,
    holdingCostPerDay: DEFAULT_STORE.holdingCostPerDay,
    holdingHighValueCost: DEFAULT_STORE.holdingHighValueCost,
    holdingHighValueDailyPct: DEFAULT_STORE.holdingHighValueDailyPct,
    targetFrontGrossUsedPct: DEFAULT_STORE.targetFrontGrossUsedPct,
    targetFrontGrossUsedMin: DEFAULT_STORE.targetFrontGrossUsedMin,
  };
}
