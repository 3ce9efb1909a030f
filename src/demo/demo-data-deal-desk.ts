/**
 * Demo rows of the deal desk: each store's lender panel (42 of the 53 programs, docs/domain/lender-routing.md) and two years of lender decisions derived from the demo deals. Every financed deal
 * was approved (or countered) by the lender that funded it; about half were first sent to one or
 * two other panel lenders, whose answers follow the program fit (the routing engine's prior).
 * A few lenders decline one band far more than their program suggests, so calibration has
 * something to find. Deterministic, like the rest of the demo data, for the same reference rows:
 * the seed passes scripts/deal-desk-reference.ts, the Worker (sandboxes) the rows the migrations
 * shipped to D1, so the Worker bundle does not carry a second copy of the matrix.
 */
import type { InferInsertModel } from "drizzle-orm";
import type { deals, lenderDecisions, storeLenderPanel } from "../db/org-schema";
import { type CreditTier, type TierRow, tierFor } from "../engines/deal-math";
import { programFit } from "../engines/lender-routing";
import { predictStips, type StipProgram, type StipRuleRow, type StipTypeRow } from "../engines/stips";
import { Random } from "./random";

/** Programs each demo store does not route to: the in-house (BHPH) programs and seven more. */
const OFF_PANEL: Record<string, string[]> = {
  sto_summit_north: [
    "Corsa Captive Finance",
    "Bluewater Motor Credit",
    "Cedar Valley Bank",
    "Oak Hollow Bank",
    "Union Rail Credit Union",
    "Signal Auto Finance",
    "Passport Auto Lending",
  ],
  sto_summit_south: [
    "Pinnacle Vehicle Finance",
    "Meridian Motors Acceptance",
    "Beacon Hill Savings Bank",
    "Silver Creek Bank",
    "Canyon State Credit Union",
    "Lodestar Motor Credit",
    "Clear Slate Acceptance",
  ],
  sto_lakeside_main: [
    "Ironwood Automotive Financial",
    "Altamont Motor Credit",
    "Granite Trust Bank",
    "Westgate Bank Auto Lending",
    "Heartland Farmers Credit Union",
    "Turnpike Acceptance",
    "Phoenix Rebuild Credit",
  ],
};

/** Lenders that, at one store, decline a band far more than their program suggests. */
export const DEMO_TOUGH_LENDERS: readonly { storeId: string; lender: string; band: CreditTier; declineRate: number }[] = [
  { storeId: "sto_summit_north", lender: "First Lantern Bank", band: "prime", declineRate: 0.8 },
  { storeId: "sto_summit_south", lender: "Roadrunner Auto Finance", band: "subprime", declineRate: 0.8 },
  { storeId: "sto_lakeside_main", lender: "Mountain Lakes Federal Credit Union", band: "near_prime", declineRate: 0.85 },
];

/**
 * How much of a program's fit turns into approvals per band (DEFAULT): lower bands come with
 * thinner files, higher LTVs and more income questions than the score margin alone shows
 * (market LTVs and PTI caps: docs/domain/deal-math.md), so first-look approvals fall with the band.
 */
const BAND_APPROVAL_FACTOR: Record<CreditTier, number> = { super_prime: 1.1, prime: 1, near_prime: 0.85, subprime: 0.7, deep_subprime: 0.55 };

const PRIOR_ATTEMPTS: readonly (readonly [number, number])[] = [
  [0, 0.5],
  [1, 0.35],
  [2, 0.15],
];

type Program = StipProgram & { id: string; minScore: number; maxScore: number };

/** The reference rows the history is drawn against: the lender matrix, the credit tiers and the stip rules. */
export interface DemoDealDeskReference {
  tiers: readonly TierRow[];
  programs: readonly Program[];
  stipRules: readonly StipRuleRow[];
  stipTypes: readonly StipTypeRow[];
}

type DealRow = InferInsertModel<typeof deals>;
type Decision = InferInsertModel<typeof lenderDecisions>;

export function dealDeskDemoRows(
  reference: DemoDealDeskReference,
  storeRows: readonly { id: string; orgId: string }[],
  dealRows: readonly DealRow[],
) {
  const stipTypes = new Map(reference.stipTypes.map((s) => [s.stip, s]));
  const programsByName = new Map(reference.programs.map((p) => [p.name, p]));
  const panel: InferInsertModel<typeof storeLenderPanel>[] = [];
  const panels = new Map<string, Program[]>();
  for (const store of storeRows) {
    const off = new Set(OFF_PANEL[store.id] ?? []);
    const programs = reference.programs.filter((p) => p.type !== "bhph" && !off.has(p.name));
    panels.set(store.id, programs);
    for (const program of programs) panel.push({ orgId: store.orgId, storeId: store.id, programId: program.id });
  }

  const decisions: Decision[] = [];
  for (const deal of dealRows) {
    // Every financed deal, whatever its status today, so a rerun on a later day adds no rows (ids are per deal).
    if (!deal.lender || deal.beacon == null) continue;
    const storePanel = panels.get(deal.storeId) ?? [];
    const funder = programsByName.get(deal.lender);
    if (!funder) continue;
    const beacon = deal.beacon;
    const band = tierFor(reference.tiers, beacon).tier;
    const random = new Random(`${deal.id}:lender-decisions`);
    let attempt = 0;
    const decide = (program: Program, decision: Decision["decision"]): Decision => {
      const stips = predictStips(
        { tier: band, knownIssues: [], asOf: new Date(deal.submittedOn ?? deal.soldOn) },
        program,
        reference.stipRules,
        stipTypes,
      )
        .filter((s) => s.priority === "required" || random.chance(0.5))
        .map((s) => s.stip);
      return {
        id: `ld_${deal.id.slice("deal_".length)}_${++attempt}`,
        orgId: deal.orgId,
        storeId: deal.storeId,
        programId: program.id,
        dealId: deal.id,
        submittedOn: deal.submittedOn ?? deal.soldOn,
        scoreBand: band,
        decision,
        stipsAsked: decision === "declined" ? [] : stips,
        turnaroundHours: decision === "declined" ? null : Math.round(program.turnaroundHours * random.between(0.6, 1.5) * 10) / 10,
      };
    };

    const eligible = storePanel.filter((p) => p.id !== funder.id && beacon >= p.minScore && beacon <= p.maxScore);
    const tried = new Set<string>();
    const tough = DEMO_TOUGH_LENDERS.find((t) => t.storeId === deal.storeId && t.band === band);
    const toughProgram = tough ? eligible.find((p) => p.name === tough.lender) : undefined;
    if (tough && toughProgram && random.chance(0.3)) {
      tried.add(toughProgram.id);
      const roll = random.next();
      decisions.push(decide(toughProgram, roll < tough.declineRate ? "declined" : roll < tough.declineRate + 0.1 ? "countered" : "approved"));
    }
    // The tough lender's answers in its band come only from the line above, so the demo shows the pattern clearly.
    const regular = eligible.filter((p) => p !== toughProgram);
    const attempts = random.weighted(PRIOR_ATTEMPTS);
    for (let n = 0; n < attempts && regular.length > 0; n++) {
      const program = random.pick(regular);
      if (tried.has(program.id)) continue;
      tried.add(program.id);
      const fit = Math.min(0.97, programFit(beacon - program.minScore, 15, null, 0) * BAND_APPROVAL_FACTOR[band]);
      const roll = random.next();
      decisions.push(decide(program, roll < fit * 0.85 ? "approved" : roll < fit ? "countered" : "declined"));
    }
    decisions.push(decide(funder, random.chance(0.85) ? "approved" : "countered"));
  }
  return { panel, decisions };
}
