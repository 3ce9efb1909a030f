/**
 * Market pulse: the newest reading of each public series with its change from the prior reading,
 * the lender environment's direction and the feed's key alerts. Scoring: docs/domain/reports.md#market-pulse-sources.
 */
import {
  changeOver,
  demoSourceLabel,
  type FeedEntry,
  GAS_FUEL_EFFICIENT_AT,
  LENDER_LOOKBACK_PERIODS,
  type LenderTrend,
  lenderTrend,
  type Observation,
  SERIES,
  type SeriesInfo,
  sentimentReading,
} from "./market";

export interface SeriesHistory {
  series: SeriesInfo & { fallbackFor: string | null };
  /** Oldest first. */
  observations: Observation[];
}

export interface PulseFigure {
  seriesId: string;
  name: string;
  unit: string;
  value: number;
  change: number | null;
  priorAsOf: string | null;
  asOf: string;
  source: string;
  /** The reading is a seeded demo value: `source` says so too. */
  demo: boolean;
}

export interface MarketPulse {
  asOf: string | null;
  consumerSentiment: (PulseFigure & { reading: "weak" | "neutral" | "strong" }) | null;
  gasPrice: (PulseFigure & { favourFuelEfficient: boolean }) | null;
  lenderEnvironment: {
    trend: LenderTrend | null;
    /** Change of the 60-month bank auto rate over three readings, points. */
    changePts: number | null;
    thresholdPts: number;
    rates: PulseFigure[];
  };
  wholesaleIndex: PulseFigure | null;
  marketAlerts: FeedEntry[];
}

/** Readings per series the pulse needs: the newest, the prior, and three periods back for the lender trend. */
export const PULSE_HISTORY_READINGS = 4;

/** How many feed alerts the pulse carries: the high and medium ones, newest first. */
const PULSE_ALERT_LIMIT = 5;

function figureOf(history: SeriesHistory | undefined): PulseFigure | null {
  const observations = history?.observations ?? [];
  if (!history || observations.length === 0) return null;
  const latest = observations[observations.length - 1];
  const prior = observations.length > 1 ? observations[observations.length - 2] : null;
  return {
    seriesId: history.series.id,
    name: history.series.name,
    unit: history.series.unit,
    value: latest.value,
    change: prior ? Math.round((latest.value - prior.value) * 10_000) / 10_000 : null,
    priorAsOf: prior?.date ?? null,
    asOf: latest.date,
    source: latest.demo ? demoSourceLabel(history.series.source) : history.series.source,
    demo: latest.demo === true,
  };
}

/** The primary series, or its mirror when the mirror has a newer reading (the primary's upstream failed). */
function freshest(byId: ReadonlyMap<string, SeriesHistory>, primaryId: string): SeriesHistory | undefined {
  const primary = byId.get(primaryId);
  const mirror = [...byId.values()].find((h) => h.series.fallbackFor === primaryId);
  const newest = (h: SeriesHistory | undefined) => h?.observations.at(-1)?.date ?? "";
  return mirror && newest(mirror) > newest(primary) ? mirror : primary;
}

export function buildMarketPulse(histories: readonly SeriesHistory[], feed: readonly FeedEntry[], lenderThresholdPts: number): MarketPulse {
  const byId = new Map(histories.map((h) => [h.series.id, h]));
  const sentiment = figureOf(byId.get(SERIES.sentiment));
  const gas = figureOf(freshest(byId, SERIES.gasoline));
  const rates = histories
    .filter((h) => h.series.category === "lender_environment" || h.series.id === SERIES.prime || h.series.id === SERIES.sofr)
    .flatMap((h) => figureOf(h) ?? []);
  const changePts = changeOver(byId.get(SERIES.bankAuto60)?.observations ?? [], LENDER_LOOKBACK_PERIODS);
  const wholesale = figureOf(byId.get(SERIES.wholesaleIndex));
  const dates = [sentiment, gas, wholesale, ...rates].flatMap((f) => f?.asOf ?? []);
  return {
    asOf: dates.length > 0 ? dates.sort().at(-1)! : null,
    consumerSentiment: sentiment && { ...sentiment, reading: sentimentReading(sentiment.value) },
    gasPrice: gas && { ...gas, favourFuelEfficient: gas.value >= GAS_FUEL_EFFICIENT_AT },
    lenderEnvironment: { trend: lenderTrend(changePts, lenderThresholdPts), changePts, thresholdPts: lenderThresholdPts, rates },
    wholesaleIndex: wholesale,
    marketAlerts: feed.filter((e) => e.severity !== "low").slice(0, PULSE_ALERT_LIMIT),
  };
}
