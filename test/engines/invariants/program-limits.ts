/**
 * A program's funding limits stated from its rows (docs/domain/lender-routing.md#term-limits,
 * #amount-financed-limits), independently of the engines: the routing and the coach invariants
 * hold every quoted or routed term to them.
 */
import { type Condition, type KnownIssue, type TierRow, tierFor } from "../../../src/engines/deal-math";
import type { LenderProgramRow } from "../../../src/engines/lender-routing";
import { ROUTING_REFERENCE } from "../../helpers/deal-desk-reference";

export interface LimitDeal {
  beacon: number;
  amount: number;
  condition: Condition;
  vehicleYear?: number;
  mileage?: number;
  knownIssues: readonly KnownIssue[];
}

/** Age in model years and odometer: a new unit without them is this year's with no miles; a used unit's fact not given is unknown. */
export function vehicleFactsOf(deal: Pick<LimitDeal, "condition" | "vehicleYear" | "mileage">, year: number) {
  const isNew = deal.condition === "new";
  return {
    age: deal.vehicleYear !== undefined ? Math.max(0, year - deal.vehicleYear) : isNew ? 0 : null,
    miles: deal.mileage ?? (isNew ? 0 : null),
  };
}

/** The longest term the rows allow this program on this deal (its maximum, the tier's, each issue's, its ladder); -1 when none. */
export function longestAllowed(
  deal: LimitDeal,
  program: LenderProgramRow,
  year: number,
  tiers: readonly TierRow[] = ROUTING_REFERENCE.tiers,
): number {
  const { age, miles } = vehicleFactsOf(deal, year);
  const met = program.termLimits.filter(
    (r) =>
      deal.amount >= r.minAmount &&
      (r.maxVehicleAge === null || (age !== null && age <= r.maxVehicleAge)) &&
      (r.maxMileage === null || (miles !== null && miles <= r.maxMileage)),
  );
  const ladder = program.termLimits.length === 0 ? program.maxTerm : Math.max(-1, ...met.map((r) => r.maxTerm));
  const issueCaps = deal.knownIssues.map((issue) => ROUTING_REFERENCE.issueRules.get(issue)?.maxTerm ?? Number.POSITIVE_INFINITY);
  return Math.min(program.maxTerm, tierFor(tiers, deal.beacon).maxTerm, ladder, ...issueCaps);
}

/** Every limit but the score: the amount within the program's, the vehicle within its age and mileage, the term within the longest allowed. */
export function withinLimits(deal: LimitDeal, program: LenderProgramRow, term: number, year: number): boolean {
  const { age, miles } = vehicleFactsOf(deal, year);
  return (
    term <= longestAllowed(deal, program, year) &&
    deal.amount >= program.minAmount &&
    (program.maxAmount === null || deal.amount <= program.maxAmount) &&
    (age === null || age <= program.vehicleMaxAge) &&
    (miles === null || miles <= program.vehicleMaxMiles)
  );
}
