/**
 * True-cost gross (docs/deal-desk.md; rules docs/domain/gross.md): true cost = purchase price +
 * the store's recon allocation for the vehicle type (none on a new unit) + the holding cost for the
 * days on lot (docs/domain/gross.md#holding-cost: all-in for used and CPO, floor-plan interest less
 * assistance plus overhead for new) + pack. The pricing advice is the shared aging policy
 * (docs/domain/gross.md#sunk-cost-is-not-a-price).
 */
import {
  type AgingStage,
  agingSentence,
  decideAging,
  estimateMarketValue,
  FRESH_DAYS,
  type GradeFactor,
  type Owner,
} from "../aged-inventory/recommendation";
import { type Condition, roundCents, roundTo, type VehicleType } from "../deal-math";
import { formatUsd } from "../format";
import { dailyHoldingCost, floorPlanInterest, holdingCostFor, holdingFiguresOf } from "../holding-cost";

export interface GrossStoreSettings {
  packNew: number;
  packUsed: number;
  holdingCostPerDay: number;
  holdingHighValueCost: number;
  holdingHighValueDailyPct: number;
  floorplanAprNew: number;
  floorplanAprUsed: number;
  floorplanAssistanceNewPerDay: number;
  overheadNewPerDay: number;
  wholesaleRatioPct: number;
  auctionFees: number;
  reconCar: number;
  reconTruck: number;
  reconSuv: number;
  reconVan: number;
  agedThresholdDays: number;
  agedThresholdDaysNew: number;
}

export interface FrontGrossTargetRow {
  condition: Condition;
  targetPct: number;
  minAmount: number;
}

/** The used-unit front-gross target as the store sets it: its one owner (docs/settings.md), default docs/domain/gross.md#front-gross-targets. */
export interface UsedFrontGrossSetting {
  targetFrontGrossUsedPct: number;
  targetFrontGrossUsedMin: number;
}

/** The targets an engine applies: the reference rows for new units, the store's setting for used ones. */
export function frontGrossTargetsFor(reference: readonly FrontGrossTargetRow[], store: UsedFrontGrossSetting): FrontGrossTargetRow[] {
  const used: FrontGrossTargetRow = { condition: "used", targetPct: store.targetFrontGrossUsedPct, minAmount: store.targetFrontGrossUsedMin };
  return [...reference.filter((t) => t.condition !== "used"), used];
}

/** The target of a condition; none is a missing reference row, never a guessed figure. */
export function frontGrossTarget(targets: readonly FrontGrossTargetRow[], condition: Condition): FrontGrossTargetRow {
  const target = targets.find((t) => t.condition === condition);
  if (!target) throw new RangeError(`No front-gross target for ${condition} units (reference table front_gross_targets).`);
  return target;
}

export interface GrossInput {
  purchasePrice: number;
  sellingPrice: number;
  vehicleType: VehicleType;
  daysOnLot: number;
  condition: Condition;
  /** Retail market value of the unit; estimated from its cost when absent. */
  marketValue?: number;
  /** How a pre-owned unit would grade at auction and what the grade brings (default: clean); a rough unit brings less. */
  grade?: GradeFactor;
}

export interface GrossResult {
  true_cost: number;
  holding_cost_allocated: number;
  pack: number;
  front_gross: number;
  front_gross_pct: number;
  pricing_recommendation: string;
  aged_flag: boolean;
  breakdown: {
    purchase_price: number;
    recon: number;
    floor_plan_interest: number;
    /** Floor-plan assistance or holdback credited against a new unit's interest (0 for used). */
    floor_plan_assistance: number;
    daily_holding: number;
    pack: number;
  };
  daily_carrying_cost: number;
  target_front_gross: number;
  aged_threshold_days: number;
  market_value: number;
  market_value_source: "request" | "estimate";
  aging_stage: AgingStage;
  owner: Owner;
  /** Expected auction proceeds (used units); null for new units, which are never wholesaled. */
  expected_auction_proceeds: number | null;
}

const RECON: Record<VehicleType, keyof GrossStoreSettings> = { car: "reconCar", truck: "reconTruck", suv: "reconSuv", van: "reconVan" };

export function recon(settings: GrossStoreSettings, vehicleType: VehicleType, condition: Condition | "cpo"): number {
  // New units arrive retail-ready (PDI is the factory's); the standard allocation is a used-unit cost (docs/domain/gross.md#recon-allocation).
  return condition === "new" ? 0 : settings[RECON[vehicleType]];
}

export function calculateGross(input: GrossInput, settings: GrossStoreSettings, targets: readonly FrontGrossTargetRow[]): GrossResult {
  const isNew = input.condition === "new";
  const pack = isNew ? settings.packNew : settings.packUsed;
  const apr = isNew ? settings.floorplanAprNew : settings.floorplanAprUsed;
  const reconAllocation = recon(settings, input.vehicleType, input.condition);
  const figures = holdingFiguresOf(settings);
  const dailyCarry = dailyHoldingCost(input.purchasePrice, figures, input.condition);
  const holding = holdingCostFor(input.purchasePrice, input.daysOnLot, figures, input.condition);
  const interest = floorPlanInterest(input.purchasePrice, apr, input.daysOnLot);
  // Used: the all-in figure holds the interest; new: interest less assistance, plus the store's overhead.
  const overhead = isNew ? roundCents(settings.overheadNewPerDay * input.daysOnLot) : roundCents(holding - interest);
  // The assistance credited: the stated daily figure, up to the interest it offsets.
  const assistance = isNew
    ? roundCents(Math.min(settings.floorplanAssistanceNewPerDay, (input.purchasePrice * apr) / 100 / 365) * input.daysOnLot)
    : 0;
  const trueCost = roundCents(input.purchasePrice + reconAllocation + holding + pack);
  const frontGross = roundCents(input.sellingPrice - trueCost);
  const frontGrossPct = roundTo((frontGross / input.sellingPrice) * 100, 2);
  const marketValue = input.marketValue ?? estimateMarketValue(input.condition, input.purchasePrice + reconAllocation, input.sellingPrice);
  const aging = {
    condition: input.condition,
    grade: input.grade,
    daysOnLot: input.daysOnLot,
    askingPrice: input.sellingPrice,
    marketValue,
    costBasis: input.purchasePrice + reconAllocation,
    projectedFrontGross: roundCents(Math.min(input.sellingPrice, marketValue) - trueCost),
    dailyHolding: dailyCarry,
  };
  const decision = decideAging(aging, settings);
  const target = frontGrossTarget(targets, input.condition);
  const targetGross = roundCents(Math.max((input.sellingPrice * target.targetPct) / 100, target.minAmount));
  const facts = `True cost ${formatUsd(trueCost)}, front gross ${formatUsd(frontGross)} at ${formatUsd(input.sellingPrice)}${
    input.marketValue === undefined ? ` (market estimated at ${formatUsd(marketValue)} from cost; send market_value for a better answer)` : ""
  }.`;

  return {
    true_cost: trueCost,
    holding_cost_allocated: holding,
    pack,
    front_gross: frontGross,
    front_gross_pct: frontGrossPct,
    pricing_recommendation: `${advice(input, aging, decision, { trueCost, frontGross, dailyCarry, targetGross, target }, settings)} ${facts}`,
    aged_flag: input.daysOnLot >= decision.thresholdDays,
    breakdown: {
      purchase_price: input.purchasePrice,
      recon: reconAllocation,
      floor_plan_interest: interest,
      floor_plan_assistance: assistance,
      daily_holding: overhead,
      pack,
    },
    daily_carrying_cost: dailyCarry,
    target_front_gross: targetGross,
    aged_threshold_days: decision.thresholdDays,
    market_value: marketValue,
    market_value_source: input.marketValue === undefined ? "estimate" : "request",
    aging_stage: decision.stage,
    owner: decision.owner,
    expected_auction_proceeds: decision.auctionProceeds,
  };
}

/** The least price that earns the target: P − true cost ≥ max(pct × P, min). */
export function targetPrice(trueCost: number, target: { targetPct: number; minAmount: number }): number {
  return Math.ceil(Math.max(trueCost / (1 - target.targetPct / 100), trueCost + target.minAmount));
}

function advice(
  input: GrossInput,
  aging: Parameters<typeof agingSentence>[0],
  decision: ReturnType<typeof decideAging>,
  f: { trueCost: number; frontGross: number; dailyCarry: number; targetGross: number; target: { targetPct: number; minAmount: number } },
  settings: GrossStoreSettings,
): string {
  const stageSentence = agingSentence(aging, decision, f.dailyCarry, settings);
  if (decision.stage === "wholesale" || decision.stage === "aged" || decision.overpriced) return stageSentence;
  const toAged = decision.thresholdDays - input.daysOnLot;
  const ages = `the unit ages in ${toAged} days at ${formatUsd(f.dailyCarry)} a day`;
  if (f.frontGross >= f.targetGross) {
    const cushion = roundCents(f.frontGross - f.targetGross);
    // Whole days the cushion covers, rounded down: the day it runs out is not a day it is still there.
    const cushionDays = f.dailyCarry > 0 ? Math.floor(cushion / f.dailyCarry) : Number.POSITIVE_INFINITY;
    const eaten =
      cushionDays === Number.POSITIVE_INFINITY
        ? `holding costs nothing a day, so the ${formatUsd(cushion)} cushion stays`
        : `holding cost eats the ${formatUsd(cushion)} cushion ${cushionDays >= 1 ? `in ${cushionDays} days` : "within a day"}`;
    // "Hold at $X or more" only while fresh and priced under market, and only for an X under the asking price.
    const floor = targetPrice(f.trueCost, f.target);
    const hold =
      input.daysOnLot < FRESH_DAYS && input.sellingPrice < aging.marketValue && floor < input.sellingPrice
        ? ` Fresh and priced under market ${formatUsd(aging.marketValue)}: hold at ${formatUsd(floor)} or more in the negotiation, the least that still earns the target.`
        : "";
    return `Healthy: front gross clears the ${formatUsd(f.targetGross)} target. Hold the price; ${eaten} and ${ages}.${hold}`;
  }
  const short = `Front gross is under the ${formatUsd(f.targetGross)} target (${f.target.targetPct}% of price, at least ${formatUsd(f.target.minAmount)})`;
  return `${short}: do not discount it; make the rest on the back end. ${stageSentence}`;
}
