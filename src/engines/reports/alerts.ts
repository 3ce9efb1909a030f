/**
 * Inventory alerts (docs/reports.md): which units need a decision today, what to do about each
 * and who decides. Thresholds and sentences: docs/domain/reports.md#aged-alert-thresholds; the
 * store's own settings (aged thresholds, holding cost, floor-plan APR, recon, pack) come in with its row.
 */
import {
  type Action,
  agingSentence,
  decideAging,
  estimateMarketValue as estimateFromCost,
  NEW_UNIT_ACTIONS,
  type Owner,
} from "../aged-inventory/recommendation";
import { daysSince } from "../dates";
import type { UnitCondition, VehicleType } from "../deal-math/vocabulary";
import { formatWholeUsd } from "../format";
import { type GrossStoreSettings, recon } from "../gross";
import { dailyHoldingCost, floorPlanInterest, holdingCostFor, holdingFiguresOf } from "../holding-cost";

export const ALERT_TYPES = ["wholesale_candidate", "equity_below_floorplan", "aged_and_overpriced", "aged", "overpriced"] as const;
type AlertType = (typeof ALERT_TYPES)[number];

export interface AlertUnit {
  stockNumber: string;
  storeId: string;
  year: number;
  make: string;
  model: string;
  trim: string;
  condition: UnitCondition;
  vehicleType: VehicleType;
  /** YYYY-MM-DD the dealer took ownership. */
  stockedOn: string;
  cost: number;
  askingPrice: number;
  /** From the valuation feed; null when the unit has none, and the estimate below is used. */
  marketValue: number | null;
}

/** The store figures the true-cost engine uses, and the store they belong to. */
export type StoreSettings = GrossStoreSettings & { id: string };

export interface InventoryAlert {
  stockNumber: string;
  storeId: string;
  year: number;
  make: string;
  model: string;
  condition: UnitCondition;
  daysOnLot: number;
  /** The unit's aged threshold: the store's used one, or its new one for a new unit. */
  agedThresholdDays: number;
  /** Who decides: the used-car manager for used and CPO units, the new-car manager for new ones. */
  owner: Owner;
  listPrice: number;
  marketValue: number;
  marketValueSource: "valuation" | "estimate";
  alertType: AlertType;
  /** Every kind that applies; `alertType` is the most urgent of them. */
  conditions: AlertType[];
  recommendation: string;
  /** The one thing the recommendation asks for (docs/domain/reports.md#one-recommendation-per-unit). */
  action: Action;
  /** The price the recommendation names (retail price toward market, or the auction figure for a wholesale). */
  recommendedPrice: number;
  /** Expected auction proceeds (used units); null for a new unit, which is never wholesaled. */
  wholesaleEst: number | null;
  /** Cost tied up in the unit so far: cost + recon + floor-plan interest accrued. */
  exposureUsd: number;
  accruedInterestUsd: number;
  projectedFrontGrossUsd: number;
  /** Holding cost per day (docs/domain/gross.md#holding-cost). */
  dailyHoldingUsd: number;
}

export interface AlertReport {
  alerts: InventoryAlert[];
  totalAgedUnits: number;
  totalAgedExposureUsd: number;
}

export function reconFor(store: StoreSettings, unit: Pick<AlertUnit, "condition" | "vehicleType">): number {
  return recon(store, unit.vehicleType, unit.condition);
}

/** A unit's market value when no valuation is on file (docs/domain/reports.md#market-value-estimate). */
export function estimateMarketValue(unit: AlertUnit, store: StoreSettings): number {
  return estimateFromCost(unit.condition, unit.cost + reconFor(store, unit), unit.askingPrice);
}

export function evaluateUnit(unit: AlertUnit, store: StoreSettings, now: Date): InventoryAlert | null {
  const days = daysSince(unit.stockedOn, now);
  const marketValue = unit.marketValue ?? estimateMarketValue(unit, store);
  const isNew = unit.condition === "new";
  const reconAllocation = reconFor(store, unit);
  const pack = isNew ? store.packNew : store.packUsed;
  const apr = isNew ? store.floorplanAprNew : store.floorplanAprUsed;
  const accruedInterest = floorPlanInterest(unit.cost, apr, days);
  const figures = holdingFiguresOf(store);
  const dailyHolding = dailyHoldingCost(unit.cost, figures, unit.condition);
  const holdingToDate = holdingCostFor(unit.cost, days, figures, unit.condition);
  const expectedSale = Math.min(unit.askingPrice, marketValue);
  const projectedFrontGross = expectedSale - unit.cost - reconAllocation - pack - holdingToDate;
  const aging = {
    condition: unit.condition,
    daysOnLot: days,
    askingPrice: unit.askingPrice,
    marketValue,
    costBasis: unit.cost + reconAllocation,
    projectedFrontGross,
    dailyHolding,
  };
  const decision = decideAging(aging, store);

  const aged = days >= decision.thresholdDays;
  const equityBelow = isEquityBelowFloorPlan(marketValue, unit.cost, accruedInterest);

  const conditions: AlertType[] = [];
  if (decision.wholesaleCandidate) conditions.push("wholesale_candidate");
  if (equityBelow) conditions.push("equity_below_floorplan");
  if (aged && decision.overpriced) conditions.push("aged_and_overpriced");
  else if (aged) conditions.push("aged");
  else if (decision.overpriced) conditions.push("overpriced");
  if (conditions.length === 0) return null;
  const alertType = conditions[0];

  // One action per unit: the equity fact leads, the unit's own action follows (never a second one).
  const stage = agingSentence(aging, decision, dailyHolding, store);
  const under = `Equity below floor-plan cost: market ${formatWholeUsd(marketValue)} is ${formatWholeUsd(unit.cost + accruedInterest - marketValue)} under the floor-plan payoff ${formatWholeUsd(unit.cost)} plus ${formatWholeUsd(accruedInterest)} interest.`;
  const recommendation =
    alertType !== "equity_below_floorplan"
      ? stage
      : isNew && decision.action !== "new_unit_plan"
        ? `${under} For the new-car manager: ${NEW_UNIT_ACTIONS} before the gap grows; each more day costs ${formatWholeUsd(dailyHolding)} to hold.`
        : `${under} ${stage}`;

  return {
    stockNumber: unit.stockNumber,
    storeId: unit.storeId,
    year: unit.year,
    make: unit.make,
    model: unit.model,
    condition: unit.condition,
    daysOnLot: days,
    agedThresholdDays: decision.thresholdDays,
    owner: decision.owner,
    listPrice: unit.askingPrice,
    marketValue,
    marketValueSource: unit.marketValue === null ? "estimate" : "valuation",
    alertType,
    conditions,
    recommendation,
    action: isNew && alertType === "equity_below_floorplan" ? "new_unit_plan" : decision.action,
    recommendedPrice: decision.recommendedPrice,
    wholesaleEst: decision.auctionProceeds,
    exposureUsd: Math.round(unit.cost + reconAllocation + accruedInterest),
    accruedInterestUsd: Math.round(accruedInterest),
    projectedFrontGrossUsd: Math.round(projectedFrontGross),
    dailyHoldingUsd: dailyHolding,
  };
}

/** "Equity below floor-plan cost" = market value − floor-plan payoff − accrued interest < 0 (docs/domain/reports.md#equity-below-floor-plan). */
function isEquityBelowFloorPlan(marketValue: number, floorPlanPayoff: number, accruedInterest: number): boolean {
  return marketValue - floorPlanPayoff - accruedInterest < 0;
}

/** Units at or past their store's threshold and the cost tied up in them. */
export interface AgedTotals {
  totalAgedUnits: number;
  totalAgedExposureUsd: number;
}

const byExposure = (a: InventoryAlert, b: InventoryAlert) => b.exposureUsd - a.exposureUsd || a.stockNumber.localeCompare(b.stockNumber);

/** Every unit past its threshold (new or used) has an alert (aged at least), so the alerts hold every aged unit. */
function agedTotals(alerts: readonly InventoryAlert[]): AgedTotals {
  let totalAgedUnits = 0;
  let totalAgedExposureUsd = 0;
  for (const alert of alerts) {
    if (alert.daysOnLot < alert.agedThresholdDays) continue;
    totalAgedUnits += 1;
    totalAgedExposureUsd += alert.exposureUsd;
  }
  return { totalAgedUnits, totalAgedExposureUsd: Math.round(totalAgedExposureUsd) };
}

/** The unit's alert with its own store's settings; null when it needs no decision (or its store is not given). */
function alertFor(unit: AlertUnit, stores: ReadonlyMap<string, StoreSettings>, now: Date): InventoryAlert | null {
  const store = stores.get(unit.storeId);
  return store ? evaluateUnit(unit, store, now) : null;
}

function* alertsOf(units: readonly AlertUnit[], stores: ReadonlyMap<string, StoreSettings>, now: Date): Generator<InventoryAlert> {
  for (const unit of units) {
    const alert = alertFor(unit, stores, now);
    if (alert) yield alert;
  }
}

/**
 * Every unit that needs a decision, largest exposure first. `totalAgedUnits` counts units at or
 * past their store's threshold and `totalAgedExposureUsd` the cost tied up in them.
 */
export function buildAlertReport(units: readonly AlertUnit[], stores: ReadonlyMap<string, StoreSettings>, now: Date): AlertReport {
  const alerts = [...alertsOf(units, stores, now)].sort(byExposure);
  return { alerts, ...agedTotals(alerts) };
}

/** The aged totals of each store's units (a store with none in stock: zeros). */
export function agedTotalsByStore(units: readonly AlertUnit[], stores: ReadonlyMap<string, StoreSettings>, now: Date): Map<string, AgedTotals> {
  const alertsByStore = new Map<string, InventoryAlert[]>([...stores.keys()].map((id) => [id, []]));
  for (const alert of alertsOf(units, stores, now)) alertsByStore.get(alert.storeId)?.push(alert);
  return new Map([...alertsByStore].map(([storeId, alerts]) => [storeId, agedTotals(alerts)]));
}

/**
 * One page of the report (docs/reports.md#paging): `units` in page order, examined in that order
 * until `limit` alerts are found. Returns those alerts largest exposure first and how many units
 * were examined, so the next page starts after the last of them.
 */
export function buildAlertPage(
  units: readonly AlertUnit[],
  stores: ReadonlyMap<string, StoreSettings>,
  now: Date,
  limit: number,
): { alerts: InventoryAlert[]; examined: number } {
  const alerts: InventoryAlert[] = [];
  let examined = 0;
  for (const unit of units) {
    if (alerts.length === limit) break;
    examined += 1;
    const alert = alertFor(unit, stores, now);
    if (alert) alerts.push(alert);
  }
  return { alerts: alerts.sort(byExposure), examined };
}
