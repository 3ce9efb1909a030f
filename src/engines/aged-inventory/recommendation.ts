/**
 * What to do with a unit as it ages: the one pricing policy gross-calc, the inventory alerts, the
 * briefings and the aged-inventory job share. Rules: docs/domain/gross.md#aging-conventions,
 * #sunk-cost-is-not-a-price and #wholesale-value-curve; docs/domain/reports.md#new-units-age-differently.
 */
import { formatWholeUsd } from "../format";

export type Condition = "new" | "used" | "cpo";
export type Owner = "used_car_manager" | "new_car_manager";

/** A used unit is a wholesale candidate at 60 days whatever else (60-day turn policy). */
export const WHOLESALE_DAYS = 60;
/** Under 30 days a unit is fresh: the only age at which "hold at $X or more" is advice. */
export const FRESH_DAYS = 30;
/** "Priced above market" = list price > market × 1.03. */
export const OVERPRICED_RATIO = 1.03;
/** An aged unit priced at market is repriced to 97% of it, inside the listing band it has outlived. */
export const AGED_REPRICE_TO_MARKET = 0.97;

export interface AgingThresholds {
  /** Used and CPO units are aged at this many days (store setting, default 45). */
  agedThresholdDays: number;
  /** New units are aged at this many days (store setting, default 90). */
  agedThresholdDaysNew: number;
}

export const isNewUnit = (condition: Condition) => condition === "new";
export const agedThresholdFor = (condition: Condition, t: AgingThresholds) => (isNewUnit(condition) ? t.agedThresholdDaysNew : t.agedThresholdDays);
export const ownerOf = (condition: Condition): Owner => (isNewUnit(condition) ? "new_car_manager" : "used_car_manager");
export const OWNER_TITLE: Record<Owner, string> = { used_car_manager: "used-car manager", new_car_manager: "new-car manager" };

/**
 * The wholesale value curve: share of its retail market a clean unit brings at auction after
 * `days` on the lot — 98% at 30 days, 95% at 60, 90% at 90, then 5 points a month to a 75% floor.
 */
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
    if (days <= d1) return v0 + ((v1 - v0) * (Math.max(0, days) - d0)) / (d1 - d0);
  }
  return Math.max(0.75, 0.9 - ((days - 90) * 0.05) / 30);
}

const roundTo = (amount: number, step: number) => Math.round(amount / step) * step;

/** Expected auction proceeds of a used unit: retail market × the value curve at its age, to $25. */
export function expectedAuctionProceeds(marketValue: number, days: number): number {
  return roundTo(marketValue * valueRetained(days), 25);
}

/** Cost-to-market a pre-owned unit is bought at when no valuation exists (high-80s; docs/domain/gross.md#definitions). */
export const ESTIMATE_COST_TO_MARKET = 0.88;

/**
 * Market value when no valuation is on file: a new unit is worth its MSRP (its asking price); a
 * pre-owned one its cost plus recon at 88% cost-to-market, kept at the value curve's share for its age.
 */
export function estimateMarketValue(condition: Condition, costBasis: number, askingPrice: number, days: number): number {
  if (isNewUnit(condition)) return askingPrice;
  return roundTo((costBasis / ESTIMATE_COST_TO_MARKET) * valueRetained(days), 25);
}

/** Dealer-style list price just under a round hundred: 23,495 rather than 23,512. */
export const listPriceAtOrBelow = (amount: number) => Math.floor(amount / 100) * 100 - 5;

export const isOverpriced = (askingPrice: number, marketValue: number) => askingPrice > marketValue * OVERPRICED_RATIO;

/**
 * The price an aged unit moves to: toward the market and never above what it asks today. Priced
 * over market it goes to market; at or under market, to 97% of market (or stays where it is).
 */
export function agedRepriceTarget(askingPrice: number, marketValue: number): number {
  const target = askingPrice > marketValue ? listPriceAtOrBelow(marketValue) : listPriceAtOrBelow(marketValue * AGED_REPRICE_TO_MARKET);
  return Math.min(askingPrice, target);
}

export interface UnitAging {
  condition: Condition;
  daysOnLot: number;
  askingPrice: number;
  marketValue: number;
  /** What the unit stands the store in before holding: cost + recon (for cost-to-market). */
  costBasis: number;
  /** Front gross expected at the lower of asking and market, after pack and holding to date. */
  projectedFrontGross: number;
}

export type AgingStage = "fresh" | "watch" | "aged" | "wholesale";

export interface AgingDecision {
  stage: AgingStage;
  owner: Owner;
  thresholdDays: number;
  /** A used unit meets a wholesale-candidate rule (never true for a new unit). */
  wholesaleCandidate: boolean;
  overpriced: boolean;
  /** Retail price the recommendation names: never above the asking price once the unit is aged. */
  retailPrice: number;
  /** Expected auction proceeds (used units); null for new units, which are never wholesaled. */
  auctionProceeds: number | null;
}

/** Which stage a unit is in and the prices that follow from it (the sentences are the callers'). */
export function decideAging(unit: UnitAging, thresholds: AgingThresholds): AgingDecision {
  const isNew = isNewUnit(unit.condition);
  const thresholdDays = agedThresholdFor(unit.condition, thresholds);
  const overpriced = isOverpriced(unit.askingPrice, unit.marketValue);
  const aged = unit.daysOnLot >= thresholdDays;
  const wholesaleCandidate =
    !isNew && (unit.daysOnLot >= WHOLESALE_DAYS || (unit.projectedFrontGross < 0 && aged) || unit.costBasis / unit.marketValue >= 1);
  const stage: AgingStage = wholesaleCandidate ? "wholesale" : aged ? "aged" : unit.daysOnLot >= FRESH_DAYS ? "watch" : "fresh";
  const retailPrice =
    stage === "wholesale" || stage === "aged"
      ? agedRepriceTarget(unit.askingPrice, unit.marketValue)
      : overpriced
        ? listPriceAtOrBelow(unit.marketValue)
        : unit.askingPrice;
  return {
    stage,
    owner: ownerOf(unit.condition),
    thresholdDays,
    wholesaleCandidate,
    overpriced,
    retailPrice,
    auctionProceeds: isNew ? null : expectedAuctionProceeds(unit.marketValue, unit.daysOnLot),
  };
}

const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;

/** "Wholesale at about $X (expected auction proceeds: 95% of market $Y at 60 days)". */
export function auctionPhrase(marketValue: number, days: number): string {
  return `wholesale at about ${formatWholeUsd(expectedAuctionProceeds(marketValue, days))} (expected auction proceeds: ${pct(valueRetained(days))} of market ${formatWholeUsd(marketValue)} at ${days} days)`;
}

/** The actions an aged new unit has: never wholesale. */
export const NEW_UNIT_ACTIONS = "dealer-trade, demo service or OEM incentive; plan the floor-plan curtailment";

/**
 * The sentence for a unit's stage, with the figures it rests on. `dailyHolding` is the unit's
 * all-in holding cost per day (docs/domain/gross.md#holding-cost).
 */
export function agingSentence(unit: UnitAging, decision: AgingDecision, dailyHolding: number): string {
  const days = unit.daysOnLot;
  const carry = `each more day costs ${formatWholeUsd(dailyHolding)} to hold`;
  // As agedRepriceTarget decides: over market it goes toward market; at or under market it goes below
  // it (97%), which "toward market" would misread as a raise.
  const basis =
    unit.askingPrice > unit.marketValue
      ? `toward market ${formatWholeUsd(unit.marketValue)}`
      : `${decision.retailPrice < unit.askingPrice ? "" : "already at or under "}${pct(AGED_REPRICE_TO_MARKET)} of market ${formatWholeUsd(unit.marketValue)}`;
  const toMarket = `${formatWholeUsd(decision.retailPrice)} (${basis}, not above the ${formatWholeUsd(unit.askingPrice)} asking price)`;
  if (isNewUnit(unit.condition)) {
    if (decision.stage === "aged") {
      return `Aged new unit: ${days} days (new units age at ${decision.thresholdDays}). For the new-car manager: ${NEW_UNIT_ACTIONS}; price it at ${toMarket}; ${carry}.`;
    }
    const ahead = `it ages in ${decision.thresholdDays - days} days (new units age at ${decision.thresholdDays})`;
    return decision.overpriced
      ? `Reprice from ${formatWholeUsd(unit.askingPrice)} to ${formatWholeUsd(decision.retailPrice)}: ${pct(unit.askingPrice / unit.marketValue - 1)} over market ${formatWholeUsd(unit.marketValue)}; ${ahead}.`
      : `Hold the price: ${ahead}.`;
  }
  switch (decision.stage) {
    case "wholesale": {
      const why =
        days >= WHOLESALE_DAYS
          ? `${days} days on the lot (wholesale review at ${WHOLESALE_DAYS})`
          : unit.costBasis / unit.marketValue >= 1
            ? `cost plus recon ${formatWholeUsd(unit.costBasis)} is ${pct(unit.costBasis / unit.marketValue)} of market ${formatWholeUsd(unit.marketValue)}`
            : `${days} days on the lot (aged at ${decision.thresholdDays}) with projected front gross ${formatWholeUsd(unit.projectedFrontGross)} after holding cost`;
      return `Wholesale candidate: ${why}. Sunk cost is not a price: retail it this week at ${toMarket} or ${auctionPhrase(unit.marketValue, days)}; ${carry}.`;
    }
    case "aged":
      return `Aged: ${days} days (aged at ${decision.thresholdDays}). Reprice to ${toMarket} to turn it in the ${WHOLESALE_DAYS - days} days before its ${WHOLESALE_DAYS}-day wholesale review; ${carry}.`;
    case "watch":
      return decision.overpriced
        ? `Reprice from ${formatWholeUsd(unit.askingPrice)} to ${formatWholeUsd(decision.retailPrice)}: ${pct(unit.askingPrice / unit.marketValue - 1)} over market ${formatWholeUsd(unit.marketValue)} at ${days} days; it ages in ${decision.thresholdDays - days} days.`
        : `Hold the price, do not raise it: ${days} days on the lot, aged in ${decision.thresholdDays - days} days; ${carry}.`;
    case "fresh":
      if (decision.overpriced) {
        return `Reprice from ${formatWholeUsd(unit.askingPrice)} to ${formatWholeUsd(decision.retailPrice)}: ${pct(unit.askingPrice / unit.marketValue - 1)} over market ${formatWholeUsd(unit.marketValue)} slows the turn.`;
      }
      return `Fresh: ${days} days on the lot, priced ${unit.askingPrice < unit.marketValue ? `under market ${formatWholeUsd(unit.marketValue)}` : `at market ${formatWholeUsd(unit.marketValue)}`}; ${carry}.`;
  }
}
