/**
 * What to do with a unit as it ages: the one pricing policy gross-calc, the inventory alerts, the
 * briefings and the aged-inventory job share. Rules: docs/domain/gross.md#aging-conventions,
 * #sunk-cost-is-not-a-price and #wholesale-value-curve; docs/domain/reports.md#new-units-age-differently.
 */
import { formatWholeUsd } from "../format";

export type Condition = "new" | "used" | "cpo";
export type Owner = "used_car_manager" | "new_car_manager";

/** A used unit's wholesale review opens at 60 days (the 60-day turn policy, soft: docs/domain/gross.md#wholesale-policy). */
export const WHOLESALE_DAYS = 60;
/** From here a used unit goes to auction whatever retail still pays (the value curve's last published point). */
export const AUCTION_DAYS = 90;
/** The retail path a reviewed unit is given: one more 30-day turn at the aged price, carried at its daily holding cost. */
const RETAIL_WINDOW_DAYS = 30;
/** The retail window a unit still has: 30 days, or the days left before the auction line when fewer. */
export const retailWindowDays = (days: number) => Math.max(0, Math.min(RETAIL_WINDOW_DAYS, AUCTION_DAYS - days));
/** Under 30 days a unit is fresh: the only age at which "hold at $X or more" is advice. */
export const FRESH_DAYS = 30;
/** "Priced above market" = list price > market × 1.03. */
export const OVERPRICED_RATIO = 1.03;
/** An aged unit priced at market is repriced to 97% of it, inside the listing band it has outlived. */
const AGED_REPRICE_TO_MARKET = 0.97;

interface AgingThresholds {
  /** Used and CPO units are aged at this many days (store setting, default 45). */
  agedThresholdDays: number;
  /** New units are aged at this many days (store setting, default 90). */
  agedThresholdDaysNew: number;
}

export const isNewUnit = (condition: Condition) => condition === "new";
const agedThresholdFor = (condition: Condition, t: AgingThresholds) => (isNewUnit(condition) ? t.agedThresholdDaysNew : t.agedThresholdDays);
const ownerOf = (condition: Condition): Owner => (isNewUnit(condition) ? "new_car_manager" : "used_car_manager");
export const OWNER_TITLE: Record<Owner, string> = { used_car_manager: "used-car manager", new_car_manager: "new-car manager" };

/**
 * The wholesale value curve: share of its wholesale value (its appraisal when it came in) a unit
 * keeps after `days` on the lot — 98% at 30 days, 95% at 60, 90% at 90, then 5 points a month to a
 * 75% floor. A share of the wholesale figure, never of the retail market.
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

/** The store's wholesale figures (its `stores` row; docs/domain/gross.md#expected-auction-proceeds). */
export interface WholesaleFigures {
  /** Wholesale value of a clean unit today, % of its retail market (default 82). */
  wholesaleRatioPct: number;
  /** Auction and transport fees, USD (default $500). */
  auctionFees: number;
}

/** How the unit would grade at auction; a rough unit brings less (docs/domain/gross.md#expected-auction-proceeds). */
export const WHOLESALE_GRADES = ["excellent", "good", "fair", "poor"] as const;
export type WholesaleGrade = (typeof WHOLESALE_GRADES)[number];
/**
 * A grade and the share of a clean unit's wholesale value it brings, % (D1 table
 * `appraisal_condition_grades`, with its source): downward only, the clean ratio is already the ceiling.
 */
export interface GradeFactor {
  grade: WholesaleGrade;
  factorPct: number;
}
/** A clean unit: the store's wholesale ratio as it stands. */
const CLEAN_GRADE: GradeFactor = { grade: "good", factorPct: 100 };
const gradeShare = (grade: GradeFactor) => Math.min(100, grade.factorPct) / 100;

export interface AuctionEstimate {
  /** Wholesale value today: market × ratio × grade × the value curve at its age, to $25. */
  wholesaleValue: number;
  /** What the auction pays the store: the wholesale value less fees, never below zero. */
  proceeds: number;
}

/**
 * Expected auction proceeds of a pre-owned unit: its wholesale value today (retail market × the
 * store's wholesale ratio, lower for a rough unit, × the value curve once) less auction and
 * transport fees. Never more than that, and so always under the retail market.
 */
export function auctionEstimate(marketValue: number, days: number, figures: WholesaleFigures, grade: GradeFactor = CLEAN_GRADE): AuctionEstimate {
  const wholesaleValue = roundTo(marketValue * (figures.wholesaleRatioPct / 100) * gradeShare(grade) * valueRetained(days), 25);
  return { wholesaleValue, proceeds: Math.max(0, wholesaleValue - figures.auctionFees) };
}

/** Cost-to-market a pre-owned unit is bought at when no valuation exists (high-80s; docs/domain/gross.md#definitions). */
export const ESTIMATE_COST_TO_MARKET = 0.88;

/**
 * Market value when no valuation is on file: a new unit is worth its MSRP (its asking price); a
 * pre-owned one its cost plus recon at 88% cost-to-market. The value curve is not applied: it is a
 * share of the wholesale figure, and the auction estimate applies it once.
 */
export function estimateMarketValue(condition: Condition, costBasis: number, askingPrice: number): number {
  if (isNewUnit(condition)) return askingPrice;
  return roundTo(costBasis / ESTIMATE_COST_TO_MARKET, 25);
}

/** Dealer-style list price just under a round hundred: 23,495 rather than 23,512. */
const listPriceAtOrBelow = (amount: number) => Math.floor(amount / 100) * 100 - 5;

const isOverpriced = (askingPrice: number, marketValue: number) => askingPrice > marketValue * OVERPRICED_RATIO;

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
  /** How it would grade at auction and what the grade brings (default: a clean unit). */
  grade?: GradeFactor;
  daysOnLot: number;
  askingPrice: number;
  marketValue: number;
  /** What the unit stands the store in before holding: cost + recon (for cost-to-market). */
  costBasis: number;
  /** Front gross expected at the lower of asking and market, after pack and holding to date. */
  projectedFrontGross: number;
  /** Its holding cost per day (docs/domain/gross.md#holding-cost): what the retail path costs to carry. */
  dailyHolding: number;
}

export type AgingStage = "fresh" | "watch" | "aged" | "wholesale";
/**
 * The one thing the recommendation asks for (docs/domain/reports.md#one-recommendation-per-unit):
 * keep the price, retail at the price named, send it to auction, or (an aged new unit) the new-car
 * manager's plan. A unit is in one bucket only.
 */
export const ACTIONS = ["hold_price", "reprice", "wholesale", "new_unit_plan"] as const;
export type Action = (typeof ACTIONS)[number];

export interface AgingDecision {
  stage: AgingStage;
  owner: Owner;
  thresholdDays: number;
  /** A used unit goes to auction: reviewed, and retail no longer pays or it is at the auction line (never a new unit). */
  wholesaleCandidate: boolean;
  /**
   * A reviewed unit kept for retail because retail still nets more than the auction (docs/domain/gross.md#wholesale-policy):
   * what the aged price brings after the retail window's holding, by how much that beats the auction's proceeds, and its
   * front gross then (after pack and all holding). Null otherwise.
   */
  retailPays: { net: number; overAuction: number; frontGross: number } | null;
  overpriced: boolean;
  action: Action;
  /** Retail price the recommendation names: never above the asking price once the unit is aged. */
  retailPrice: number;
  /** Expected auction proceeds (used units); null for new units, which are never wholesaled. */
  auctionProceeds: number | null;
  /** Its wholesale value and proceeds (used units); null for new units. */
  auction: AuctionEstimate | null;
  /** The price the action names: the retail price, or the expected auction proceeds for a wholesale. */
  recommendedPrice: number;
}

export type AgingPolicy = AgingThresholds & WholesaleFigures;

/** Which stage a unit is in and the prices that follow from it (the sentences are the callers'). */
export function decideAging(unit: UnitAging, policy: AgingPolicy): AgingDecision {
  const isNew = isNewUnit(unit.condition);
  const thresholdDays = agedThresholdFor(unit.condition, policy);
  const overpriced = isOverpriced(unit.askingPrice, unit.marketValue);
  const aged = unit.daysOnLot >= thresholdDays;
  // The wholesale review (docs/domain/reports.md#wholesale-candidate): 60 days, or aged with negative gross or cost over
  // market. Cost over market counts once the unit has had its retail chance (aged): before that,
  // retail toward market loses far less than an auction would (docs/domain/reports.md#wholesale-candidate).
  const reviewed = !isNew && (unit.daysOnLot >= WHOLESALE_DAYS || (aged && (unit.projectedFrontGross < 0 || unit.costBasis / unit.marketValue >= 1)));
  const agedPrice = agedRepriceTarget(unit.askingPrice, unit.marketValue);
  // Wholesale off the lower of market and asking: a unit the store itself lists under market is worth no more than its sticker.
  const auction = isNew ? null : auctionEstimate(Math.min(unit.marketValue, unit.askingPrice), unit.daysOnLot, policy, unit.grade);
  // docs/domain/gross.md#wholesale-policy: before the auction line a reviewed unit stays retail when the aged price, less one
  // more retail window of holding, still brings more than the auction pays today (what it cost so far is sunk either way).
  const windowCarry = retailWindowDays(unit.daysOnLot) * unit.dailyHolding;
  const retailNet = agedPrice - windowCarry;
  const keepRetail = reviewed && unit.daysOnLot < AUCTION_DAYS && auction !== null && retailNet > auction.proceeds;
  const wholesaleCandidate = reviewed && !keepRetail;
  const stage: AgingStage = wholesaleCandidate ? "wholesale" : aged || keepRetail ? "aged" : unit.daysOnLot >= FRESH_DAYS ? "watch" : "fresh";
  const retailPrice = stage === "wholesale" || stage === "aged" ? agedPrice : overpriced ? listPriceAtOrBelow(unit.marketValue) : unit.askingPrice;
  const action: Action = wholesaleCandidate
    ? "wholesale"
    : isNew && aged
      ? "new_unit_plan"
      : aged || keepRetail || overpriced
        ? "reprice"
        : "hold_price";
  return {
    stage,
    owner: ownerOf(unit.condition),
    thresholdDays,
    wholesaleCandidate,
    retailPays:
      keepRetail && auction
        ? {
            net: retailNet,
            overAuction: retailNet - auction.proceeds,
            frontGross: unit.projectedFrontGross - (Math.min(unit.askingPrice, unit.marketValue) - agedPrice) - windowCarry,
          }
        : null,
    overpriced,
    action,
    retailPrice,
    auctionProceeds: auction?.proceeds ?? null,
    auction,
    recommendedPrice: action === "wholesale" && auction ? auction.proceeds : retailPrice,
  };
}

const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;

/**
 * "expected auction proceeds about $X: wholesale value $W (82% of market $M, 95% of it kept at 60
 * days) less $500 auction and transport fees" — every figure the number rests on.
 */
function auctionPhrase(unit: UnitAging, auction: AuctionEstimate, figures: WholesaleFigures): string {
  const grade = unit.grade ?? CLEAN_GRADE;
  const rough = gradeShare(grade) < 1 ? `, less ${pct(1 - gradeShare(grade))} for a ${grade.grade} unit` : "";
  const base =
    unit.askingPrice < unit.marketValue
      ? `the ${formatWholeUsd(unit.askingPrice)} asking price, under market ${formatWholeUsd(unit.marketValue)}`
      : `market ${formatWholeUsd(unit.marketValue)}`;
  return `expected auction proceeds about ${formatWholeUsd(auction.proceeds)}: wholesale value ${formatWholeUsd(auction.wholesaleValue)} (${pct(figures.wholesaleRatioPct / 100)} of ${base}${rough}, ${pct(valueRetained(unit.daysOnLot))} of it kept at ${unit.daysOnLot} days) less ${formatWholeUsd(figures.auctionFees)} auction and transport fees`;
}

/** The actions an aged new unit has: never wholesale. */
export const NEW_UNIT_ACTIONS = "dealer-trade, demo service or OEM incentive; plan the floor-plan curtailment";

/**
 * The sentence for a unit's action, with the figures it rests on: one action only (a wholesale
 * never also names a retail price). `dailyHolding` is the unit's holding cost per day
 * (docs/domain/gross.md#holding-cost).
 */
export function agingSentence(unit: UnitAging, decision: AgingDecision, dailyHolding: number, figures: WholesaleFigures): string {
  const days = unit.daysOnLot;
  const carry = `each more day costs ${formatWholeUsd(dailyHolding)} to hold`;
  // As agedRepriceTarget decides: over market it goes toward market; at or under market it goes below
  // it (97%), which "toward market" would misread as a raise.
  const basis =
    unit.askingPrice > unit.marketValue
      ? `toward market ${formatWholeUsd(unit.marketValue)}`
      : `${decision.retailPrice < unit.askingPrice ? "" : "already at or under "}${pct(AGED_REPRICE_TO_MARKET)} of market ${formatWholeUsd(unit.marketValue)}`;
  const toMarket = `${formatWholeUsd(decision.retailPrice)} (${basis}, not above the ${formatWholeUsd(unit.askingPrice)} asking price)`;
  const overBy = `${pct(unit.askingPrice / unit.marketValue - 1)} over market ${formatWholeUsd(unit.marketValue)}`;
  if (isNewUnit(unit.condition)) {
    if (decision.action === "new_unit_plan") {
      return `Aged new unit: ${days} days (new units age at ${decision.thresholdDays}). For the new-car manager: ${NEW_UNIT_ACTIONS}; price it at ${toMarket}; ${carry}.`;
    }
    const ahead = `it ages in ${decision.thresholdDays - days} days (new units age at ${decision.thresholdDays})`;
    return decision.overpriced
      ? `Reprice from ${formatWholeUsd(unit.askingPrice)} to ${formatWholeUsd(decision.retailPrice)}: ${overBy}; ${ahead}.`
      : `Hold the price: ${ahead}.`;
  }
  // A young unit bought over market: no gross at market, and still worth more retailed than at auction.
  const underWater =
    unit.costBasis >= unit.marketValue
      ? ` Cost plus recon ${formatWholeUsd(unit.costBasis)} is ${pct(unit.costBasis / unit.marketValue)} of market: no front gross at market, so turn it before it ages.`
      : "";
  switch (decision.stage) {
    case "wholesale": {
      const review =
        days >= WHOLESALE_DAYS
          ? `${days} days on the lot (wholesale review at ${WHOLESALE_DAYS})`
          : unit.projectedFrontGross < 0
            ? `${days} days on the lot (aged at ${decision.thresholdDays}) with projected front gross ${formatWholeUsd(unit.projectedFrontGross)} after holding cost`
            : `${days} days on the lot (aged at ${decision.thresholdDays}) and cost plus recon ${formatWholeUsd(unit.costBasis)} is ${pct(unit.costBasis / unit.marketValue)} of market ${formatWholeUsd(unit.marketValue)}`;
      const why =
        days >= AUCTION_DAYS
          ? `${days} days on the lot (auction at ${AUCTION_DAYS} whatever retail pays)`
          : `${review}, and retail no longer nets more: ${formatWholeUsd(decision.retailPrice)} less ${retailWindowDays(days)} more days of holding brings no more than the auction pays`;
      const auction = decision.auction ? `; ${auctionPhrase(unit, decision.auction, figures)}` : "";
      return `Wholesale: ${why}. Sunk cost is not a price: send it to auction this week${auction}; ${carry}.`;
    }
    case "aged":
      if (decision.retailPays && decision.auction) {
        const review =
          days >= WHOLESALE_DAYS
            ? `${days} days on the lot, reviewed at ${WHOLESALE_DAYS}`
            : unit.projectedFrontGross < 0
              ? `aged at ${decision.thresholdDays} with projected front gross ${formatWholeUsd(unit.projectedFrontGross)} after holding cost`
              : `aged at ${decision.thresholdDays} with cost plus recon ${formatWholeUsd(unit.costBasis)} at ${pct(unit.costBasis / unit.marketValue)} of market`;
        const { net, overAuction, frontGross } = decision.retailPays;
        return `Wholesale review (${review}): retail still nets more than the auction. Reprice to ${toMarket}: after ${retailWindowDays(days)} more days of holding (${formatWholeUsd(retailWindowDays(days) * dailyHolding)}) it brings about ${formatWholeUsd(net)}, ${formatWholeUsd(overAuction)} more than the ${auctionPhrase(unit, decision.auction, figures)}; front gross then about ${formatWholeUsd(frontGross)} after pack and holding. Retail it in the ${AUCTION_DAYS - days} days before its ${AUCTION_DAYS}-day auction line; ${carry}.`;
      }
      return `Aged: ${days} days (aged at ${decision.thresholdDays}). Reprice to ${toMarket} to turn it in the ${WHOLESALE_DAYS - days} days before its ${WHOLESALE_DAYS}-day wholesale review; ${carry}.`;
    case "watch":
      return decision.overpriced
        ? `Reprice from ${formatWholeUsd(unit.askingPrice)} to ${formatWholeUsd(decision.retailPrice)}: ${overBy} at ${days} days; it ages in ${decision.thresholdDays - days} days.${underWater}`
        : `Hold the price, do not raise it: ${days} days on the lot, aged in ${decision.thresholdDays - days} days; ${carry}.${underWater}`;
    case "fresh":
      if (decision.overpriced) {
        return `Reprice from ${formatWholeUsd(unit.askingPrice)} to ${formatWholeUsd(decision.retailPrice)}: ${overBy} slows the turn.${underWater}`;
      }
      return `Fresh: ${days} days on the lot, priced ${unit.askingPrice < unit.marketValue ? `under market ${formatWholeUsd(unit.marketValue)}` : `at market ${formatWholeUsd(unit.marketValue)}`}; ${carry}.${underWater}`;
  }
}
