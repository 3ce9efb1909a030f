/**
 * True-cost gross (docs/deal-desk.md; rules docs/domain/gross.md): true cost = purchase price +
 * the store's recon allocation for the vehicle type + the all-in holding cost for the days on lot
 * (docs/domain/gross.md#holding-cost, floor-plan interest included) + pack. The pricing advice is
 * the shared aging policy (docs/domain/gross.md#sunk-cost-is-not-a-price).
 */
import {
  type AgingStage,
  agingSentence,
  decideAging,
  estimateMarketValue,
  FRESH_DAYS,
  listPriceAtOrBelow,
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

export interface GrossInput {
  purchasePrice: number;
  sellingPrice: number;
  vehicleType: VehicleType;
  daysOnLot: number;
  condition: Condition;
  /** Retail market value of the unit; estimated from its cost when absent. */
  marketValue?: number;
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
  const pack = input.condition === "new" ? settings.packNew : settings.packUsed;
  const apr = input.condition === "new" ? settings.floorplanAprNew : settings.floorplanAprUsed;
  const reconAllocation = recon(settings, input.vehicleType, input.condition);
  const figures = holdingFiguresOf(settings);
  // The all-in daily figure already holds the floor-plan interest; the breakdown shows its share.
  const dailyCarry = dailyHoldingCost(input.purchasePrice, figures);
  const holding = holdingCostFor(input.purchasePrice, input.daysOnLot, figures);
  const interest = floorPlanInterest(input.purchasePrice, apr, input.daysOnLot);
  const trueCost = roundCents(input.purchasePrice + reconAllocation + holding + pack);
  const frontGross = roundCents(input.sellingPrice - trueCost);
  const frontGrossPct = roundTo((frontGross / input.sellingPrice) * 100, 2);
  const marketValue =
    input.marketValue ?? estimateMarketValue(input.condition, input.purchasePrice + reconAllocation, input.sellingPrice, input.daysOnLot);
  const aging = {
    condition: input.condition,
    daysOnLot: input.daysOnLot,
    askingPrice: input.sellingPrice,
    marketValue,
    costBasis: input.purchasePrice + reconAllocation,
    projectedFrontGross: roundCents(Math.min(input.sellingPrice, marketValue) - trueCost),
  };
  const decision = decideAging(aging, settings);
  const target = targets.find((t) => t.condition === input.condition) ?? { targetPct: 8, minAmount: 1200 };
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
    pricing_recommendation: `${advice(input, aging, decision, { trueCost, frontGross, dailyCarry, targetGross, target })} ${facts}`,
    aged_flag: input.daysOnLot >= decision.thresholdDays,
    breakdown: {
      purchase_price: input.purchasePrice,
      recon: reconAllocation,
      floor_plan_interest: interest,
      daily_holding: roundCents(holding - interest),
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

function advice(
  input: GrossInput,
  aging: Parameters<typeof agingSentence>[0],
  decision: ReturnType<typeof decideAging>,
  f: { trueCost: number; frontGross: number; dailyCarry: number; targetGross: number; target: { targetPct: number; minAmount: number } },
): string {
  const stageSentence = agingSentence(aging, decision, f.dailyCarry);
  if (decision.stage === "wholesale" || decision.stage === "aged" || decision.overpriced) return stageSentence;
  const toAged = decision.thresholdDays - input.daysOnLot;
  if (f.frontGross >= f.targetGross) {
    const cushion = roundCents(f.frontGross - f.targetGross);
    const cushionDays = Math.floor(cushion / f.dailyCarry);
    const eaten = cushionDays >= 1 ? `in ${cushionDays} days` : "within a day";
    return `Healthy: front gross clears the ${formatUsd(f.targetGross)} target. Hold the price; holding cost eats the ${formatUsd(cushion)} cushion ${eaten} and the unit ages in ${toAged} days at ${formatUsd(f.dailyCarry)} a day.`;
  }
  const short = `Front gross is under the ${formatUsd(f.targetGross)} target (${f.target.targetPct}% of price, at least ${formatUsd(f.target.minAmount)})`;
  // "Hold at $X or more" only while the unit is fresh and priced under market (docs/domain/gross.md#sunk-cost-is-not-a-price).
  if (input.daysOnLot < FRESH_DAYS && input.sellingPrice < aging.marketValue) {
    // The price that earns the target gross (P − cost ≥ max(pct·P, min)), capped at the market.
    const targetPrice = Math.ceil(Math.max(f.trueCost / (1 - f.target.targetPct / 100), f.trueCost + f.target.minAmount));
    const hold = Math.max(input.sellingPrice, Math.min(targetPrice, listPriceAtOrBelow(aging.marketValue)));
    return `${short}. Fresh and priced under market ${formatUsd(aging.marketValue)}: hold at ${formatUsd(hold)} or more, or make the rest on the back end; it ages in ${toAged} days at ${formatUsd(f.dailyCarry)} a day.`;
  }
  return `${short}; make the rest on the back end. ${stageSentence}`;
}
