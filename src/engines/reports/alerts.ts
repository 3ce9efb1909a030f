/**
 * Inventory alerts (SPEC §2.8): which units need a decision today, and what to do about each.
 * Thresholds are DOMAIN.md §3.6 defaults; the store's own settings (aged threshold, holding cost,
 * floor-plan APR, recon, pack) come in with its row.
 */
import type { GrossStoreSettings } from "../gross";

export const ALERT_TYPES = ["wholesale_candidate", "equity_below_floorplan", "aged_and_overpriced", "aged", "overpriced"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export type Condition = "new" | "used" | "cpo";
export type VehicleType = "car" | "truck" | "suv" | "van";

export interface AlertUnit {
  stockNumber: string;
  storeId: string;
  year: number;
  make: string;
  model: string;
  trim: string;
  condition: Condition;
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

/** "Priced above market" = list price > market × 1.03 (DOMAIN §3.6). */
export const OVERPRICED_RATIO = 1.03;
/** Wholesale candidate at 60 days whatever else (DOMAIN §3.6, 60-day turn policy). */
export const WHOLESALE_DAYS = 60;
/** A wholesale buyer pays about 85% of retail market (dealers buy at 82–85% cost-to-market, DOMAIN §6.5). */
export const WHOLESALE_TO_MARKET = 0.85;
/** An aged unit priced at market is repriced to 97% of it, inside the 98–100% listing band it has outlived (PRODUCT §4). */
export const AGED_REPRICE_TO_MARKET = 0.97;
/**
 * Without a valuation, market value is estimated: a new unit is worth its MSRP (its asking
 * price); a pre-owned unit was bought at high-80s cost-to-market (DOMAIN §3.1, 0.88 of cost +
 * recon) and keeps about 98% of that at 30 days, 95% at 60 and 90% at 90 (DOMAIN §3.6).
 */
export const ESTIMATE_COST_TO_MARKET = 0.88;

const DAY_MS = 86_400_000;

export interface InventoryAlert {
  stockNumber: string;
  storeId: string;
  year: number;
  make: string;
  model: string;
  condition: Condition;
  daysOnLot: number;
  listPrice: number;
  marketValue: number;
  marketValueSource: "valuation" | "estimate";
  alertType: AlertType;
  /** Every kind that applies; `alertType` is the most urgent of them. */
  conditions: AlertType[];
  recommendation: string;
  /** The price the recommendation names (reprice target, or the wholesale figure). */
  recommendedPrice: number;
  wholesaleEst: number;
  /** Cost tied up in the unit so far: cost + recon + floor-plan interest accrued. */
  exposureUsd: number;
  accruedInterestUsd: number;
  projectedFrontGrossUsd: number;
}

export interface AlertReport {
  alerts: InventoryAlert[];
  totalAgedUnits: number;
  totalAgedExposureUsd: number;
}

export function daysBetween(fromDay: string, now: Date): number {
  const today = Date.parse(now.toISOString().slice(0, 10));
  return Math.max(0, Math.round((today - Date.parse(fromDay)) / DAY_MS));
}

export function reconFor(store: StoreSettings, unit: Pick<AlertUnit, "condition" | "vehicleType">): number {
  if (unit.condition === "new") return 0;
  return { car: store.reconCar, truck: store.reconTruck, suv: store.reconSuv, van: store.reconVan }[unit.vehicleType];
}

/** Share of appraisal a unit keeps after `days` on the lot (DOMAIN §3.6: 98% at 30, 95% at 60, 90% at 90). */
export function valueRetained(days: number): number {
  const points: [number, number][] = [
    [0, 1],
    [30, 0.98],
    [60, 0.95],
    [90, 0.9],
  ];
  for (let i = 1; i < points.length; i++) {
    const [d1, v1] = points[i];
    const [d0, v0] = points[i - 1];
    if (days <= d1) return v0 + ((v1 - v0) * (days - d0)) / (d1 - d0);
  }
  return Math.max(0.75, 0.9 - ((days - 90) * 0.05) / 30);
}

export function estimateMarketValue(unit: AlertUnit, store: StoreSettings, days: number): number {
  if (unit.condition === "new") return unit.askingPrice;
  return roundTo(((unit.cost + reconFor(store, unit)) / ESTIMATE_COST_TO_MARKET) * valueRetained(days), 25);
}

const roundTo = (amount: number, step: number) => Math.round(amount / step) * step;
/** Dealer-style list price just under a round hundred: 23,495 rather than 23,512. */
const listPriceAtOrBelow = (amount: number) => Math.floor(amount / 100) * 100 - 5;
const usd = (amount: number) => `$${Math.round(amount).toLocaleString("en-US")}`;

export function evaluateUnit(unit: AlertUnit, store: StoreSettings, now: Date): InventoryAlert | null {
  const days = daysBetween(unit.stockedOn, now);
  const marketValue = unit.marketValue ?? estimateMarketValue(unit, store, days);
  const isNew = unit.condition === "new";
  const recon = reconFor(store, unit);
  const pack = isNew ? store.packNew : store.packUsed;
  const apr = isNew ? store.floorplanAprNew : store.floorplanAprUsed;
  const accruedInterest = (unit.cost * (apr / 100) * days) / 365;
  const holdingToDate = store.holdingCostPerDay * days;
  const expectedSale = Math.min(unit.askingPrice, marketValue);
  const projectedFrontGross = expectedSale - unit.cost - recon - pack - holdingToDate;
  const wholesaleEst = roundTo(marketValue * WHOLESALE_TO_MARKET, 25);

  const aged = days >= store.agedThresholdDays;
  const overpriced = unit.askingPrice > marketValue * OVERPRICED_RATIO;
  const equityBelow = marketValue - unit.cost - accruedInterest < 0;
  const wholesale =
    !isNew && (days >= WHOLESALE_DAYS || (projectedFrontGross < 0 && days >= store.agedThresholdDays) || (unit.cost + recon) / marketValue >= 1);

  const conditions: AlertType[] = [];
  if (wholesale) conditions.push("wholesale_candidate");
  if (equityBelow) conditions.push("equity_below_floorplan");
  if (aged && overpriced) conditions.push("aged_and_overpriced");
  else if (aged) conditions.push("aged");
  else if (overpriced) conditions.push("overpriced");
  if (conditions.length === 0) return null;
  const alertType = conditions[0];

  const premiumPct = Math.round(((unit.askingPrice - marketValue) / marketValue) * 1000) / 10;
  let recommendation: string;
  let recommendedPrice: number;
  switch (alertType) {
    case "wholesale_candidate":
    case "equity_below_floorplan": {
      recommendedPrice = wholesaleEst;
      const why =
        alertType === "equity_below_floorplan"
          ? `market ${usd(marketValue)} is ${usd(unit.cost + accruedInterest - marketValue)} under the floor-plan payoff plus ${usd(accruedInterest)} interest`
          : `${days} days on lot, projected front gross ${usd(projectedFrontGross)} after ${usd(holdingToDate)} holding cost`;
      recommendation = `Wholesale now at about ${usd(wholesaleEst)}: ${why}; each further day costs ${usd(store.holdingCostPerDay)} to hold.`;
      if (isNew) recommendation = `Dealer-trade or price to ${usd(listPriceAtOrBelow(marketValue * AGED_REPRICE_TO_MARKET))}: ${why}.`;
      if (isNew) recommendedPrice = listPriceAtOrBelow(marketValue * AGED_REPRICE_TO_MARKET);
      break;
    }
    case "aged_and_overpriced":
      recommendedPrice = listPriceAtOrBelow(marketValue);
      recommendation = `Reprice from ${usd(unit.askingPrice)} to ${usd(recommendedPrice)} today: ${premiumPct}% over market ${usd(marketValue)} at ${days} days; wholesale review at ${WHOLESALE_DAYS} days (about ${usd(wholesaleEst)}).`;
      break;
    case "aged":
      recommendedPrice = listPriceAtOrBelow(marketValue * AGED_REPRICE_TO_MARKET);
      recommendation = `Reprice to ${usd(recommendedPrice)} (97% of market ${usd(marketValue)}) to turn it before ${WHOLESALE_DAYS} days; ${usd(holdingToDate)} of holding cost so far.`;
      break;
    case "overpriced":
      recommendedPrice = listPriceAtOrBelow(marketValue);
      recommendation = `Reprice from ${usd(unit.askingPrice)} to ${usd(recommendedPrice)}: ${premiumPct}% over market ${usd(marketValue)} slows the turn.`;
      break;
  }

  return {
    stockNumber: unit.stockNumber,
    storeId: unit.storeId,
    year: unit.year,
    make: unit.make,
    model: unit.model,
    condition: unit.condition,
    daysOnLot: days,
    listPrice: unit.askingPrice,
    marketValue,
    marketValueSource: unit.marketValue === null ? "estimate" : "valuation",
    alertType,
    conditions,
    recommendation,
    recommendedPrice,
    wholesaleEst,
    exposureUsd: Math.round(unit.cost + recon + accruedInterest),
    accruedInterestUsd: Math.round(accruedInterest),
    projectedFrontGrossUsd: Math.round(projectedFrontGross),
  };
}

/**
 * Every unit that needs a decision, largest exposure first. `totalAgedUnits` counts units at or
 * past their store's threshold and `totalAgedExposureUsd` the cost tied up in them.
 */
export function buildAlertReport(units: readonly AlertUnit[], stores: ReadonlyMap<string, StoreSettings>, now: Date): AlertReport {
  const alerts: InventoryAlert[] = [];
  let totalAgedUnits = 0;
  let totalAgedExposureUsd = 0;
  for (const unit of units) {
    const store = stores.get(unit.storeId);
    if (!store) continue;
    const alert = evaluateUnit(unit, store, now);
    if (!alert) continue;
    alerts.push(alert);
    // Every unit past the threshold has an alert (aged at least).
    if (alert.daysOnLot >= store.agedThresholdDays) {
      totalAgedUnits += 1;
      totalAgedExposureUsd += alert.exposureUsd;
    }
  }
  alerts.sort((a, b) => b.exposureUsd - a.exposureUsd || a.stockNumber.localeCompare(b.stockNumber));
  return { alerts, totalAgedUnits, totalAgedExposureUsd: Math.round(totalAgedExposureUsd) };
}
