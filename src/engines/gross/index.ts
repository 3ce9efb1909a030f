/**
 * True-cost gross (SPEC §2.7; DOMAIN §3): true cost = purchase price + the store's recon
 * allocation for the vehicle type + holding cost for the days on lot (floor-plan interest at the
 * store's APR plus its daily holding cost) + pack.
 */
import { type Condition, formatUsd, roundCents, roundTo, type VehicleType } from "../deal-math";

export interface GrossStoreSettings {
  packNew: number;
  packUsed: number;
  holdingCostPerDay: number;
  floorplanAprNew: number;
  floorplanAprUsed: number;
  reconCar: number;
  reconTruck: number;
  reconSuv: number;
  reconVan: number;
  agedThresholdDays: number;
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
}

/** DOMAIN §3.6: a wholesale candidate at 60 days, or underwater past the aged threshold. */
export const WHOLESALE_DAYS = 60;

const RECON: Record<VehicleType, keyof GrossStoreSettings> = { car: "reconCar", truck: "reconTruck", suv: "reconSuv", van: "reconVan" };

export function recon(settings: GrossStoreSettings, vehicleType: VehicleType, condition: Condition): number {
  // New units arrive retail-ready (PDI is the factory's); the §3.5 allocation is a used-unit cost.
  return condition === "new" ? 0 : settings[RECON[vehicleType]];
}

export function calculateGross(input: GrossInput, settings: GrossStoreSettings, targets: readonly FrontGrossTargetRow[]): GrossResult {
  const pack = input.condition === "new" ? settings.packNew : settings.packUsed;
  const apr = input.condition === "new" ? settings.floorplanAprNew : settings.floorplanAprUsed;
  const reconAllocation = recon(settings, input.vehicleType, input.condition);
  // DOMAIN §3.3: daily floor-plan interest = cost × APR ÷ 365.
  const dailyInterest = (input.purchasePrice * apr) / 100 / 365;
  const floorPlanInterest = roundCents(dailyInterest * input.daysOnLot);
  const dailyHolding = roundCents(settings.holdingCostPerDay * input.daysOnLot);
  const holding = roundCents(floorPlanInterest + dailyHolding);
  const trueCost = roundCents(input.purchasePrice + reconAllocation + holding + pack);
  const frontGross = roundCents(input.sellingPrice - trueCost);
  const frontGrossPct = roundTo((frontGross / input.sellingPrice) * 100, 2);
  const agedFlag = input.daysOnLot >= settings.agedThresholdDays;
  const dailyCarry = roundCents(dailyInterest + settings.holdingCostPerDay);
  const target = targets.find((t) => t.condition === input.condition) ?? { targetPct: 8, minAmount: 1200 };
  const targetGross = roundCents(Math.max((input.sellingPrice * target.targetPct) / 100, target.minAmount));

  return {
    true_cost: trueCost,
    holding_cost_allocated: holding,
    pack,
    front_gross: frontGross,
    front_gross_pct: frontGrossPct,
    pricing_recommendation: recommendation(input, settings, { trueCost, frontGross, dailyCarry, targetGross, agedFlag, target }),
    aged_flag: agedFlag,
    breakdown: {
      purchase_price: input.purchasePrice,
      recon: reconAllocation,
      floor_plan_interest: floorPlanInterest,
      daily_holding: dailyHolding,
      pack,
    },
    daily_carrying_cost: dailyCarry,
    target_front_gross: targetGross,
    aged_threshold_days: settings.agedThresholdDays,
  };
}

function recommendation(
  input: GrossInput,
  settings: GrossStoreSettings,
  f: {
    trueCost: number;
    frontGross: number;
    dailyCarry: number;
    targetGross: number;
    agedFlag: boolean;
    target: { targetPct: number; minAmount: number };
  },
): string {
  const carry = `Each more day costs ${formatUsd(f.dailyCarry)} (floor plan plus holding).`;
  // The price that earns the target gross: P − cost ≥ max(pct·P, min).
  const targetPrice = Math.ceil(Math.max(f.trueCost / (1 - f.target.targetPct / 100), f.trueCost + f.target.minAmount));
  if (input.daysOnLot >= WHOLESALE_DAYS || (f.agedFlag && f.frontGross < 0)) {
    return `Wholesale candidate: ${input.daysOnLot} days on lot (aged at ${settings.agedThresholdDays}) with front gross ${formatUsd(f.frontGross)}. Retail it this week at ${formatUsd(Math.ceil(f.trueCost))} or more (true cost) or send it to auction; ${carry}`;
  }
  if (f.frontGross < 0) {
    return `Selling ${formatUsd(f.frontGross * -1)} under true cost ${formatUsd(f.trueCost)}. Do not go below ${formatUsd(Math.ceil(f.trueCost))}; ${formatUsd(targetPrice)} earns the ${formatUsd(f.targetGross)} target gross. ${carry}`;
  }
  if (f.agedFlag) {
    return `Aged: ${input.daysOnLot} days (threshold ${settings.agedThresholdDays}). Front gross ${formatUsd(f.frontGross)} is still positive; price to move now (floor ${formatUsd(Math.ceil(f.trueCost))}) before holding cost takes the rest: at ${formatUsd(f.dailyCarry)} a day it is gone in ${Math.floor(f.frontGross / f.dailyCarry)} days.`;
  }
  if (f.frontGross < f.targetGross) {
    return `Front gross ${formatUsd(f.frontGross)} is under the ${formatUsd(f.targetGross)} target (${f.target.targetPct}% of price, at least ${formatUsd(f.target.minAmount)}). Hold at ${formatUsd(targetPrice)} or more, or make it up on the back end. ${carry}`;
  }
  const daysLeft = Math.floor((f.frontGross - f.targetGross) / f.dailyCarry);
  const toAged = settings.agedThresholdDays - input.daysOnLot;
  return `Healthy: front gross ${formatUsd(f.frontGross)} clears the ${formatUsd(f.targetGross)} target. Hold the price; holding cost eats the ${formatUsd(roundCents(f.frontGross - f.targetGross))} cushion in ${daysLeft} days and the unit ages in ${toAged} days. ${carry}`;
}
