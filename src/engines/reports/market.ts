/**
 * Public market series: parsing what FRED and EIA return (docs/domain/reports.md#market-pulse-sources), the feed entries
 * a new reading produces, and the lender-environment signal. Scoring defaults: docs/domain/reports.md#market-pulse-sources.
 */
import { formatUsdCents } from "../format";

type SeriesCategory = "macro" | "lender_environment" | "wholesale_index";
type Severity = "high" | "medium" | "low";

export interface SeriesInfo {
  id: string;
  provider: "fred" | "eia" | "manual";
  name: string;
  category: SeriesCategory;
  unit: string;
  frequency: "daily" | "weekly" | "monthly" | "quarterly";
  source: string;
}

export interface Observation {
  date: string;
  value: number;
  /** A seeded demo value, not a published reading (docs/domain/reports.md#demo-market-data). */
  demo?: boolean;
}

export interface FeedEntry {
  id: string;
  category: string;
  signal: string;
  severity: Severity;
  source: string;
  date: string;
  /** A seeded demo entry, not a published one (docs/domain/reports.md#demo-market-data). */
  demo: boolean;
}

/** What a demo value's source label says, so no demo figure passes for a published one. */
export const demoSourceLabel = (source: string) => `DEMO VALUE (seeded, not published): modelled on ${source}`;

/** The series every part of the reports reads by name. */
export const SERIES = {
  sentiment: "UMCSENT",
  gasoline: "EMM_EPMR_PTE_NUS_DPG",
  gasolineFallback: "GASREGW",
  bankAuto60: "RIFLPBCIANM60NM",
  prime: "DPRIME",
  sofr: "SOFR",
  wholesaleIndex: "MANHEIM_UVVI",
} as const;

/** docs/domain/reports.md#market-pulse-sources: sentiment < 60 weak, 60–80 neutral, > 80 strong. */
const SENTIMENT_WEAK_BELOW = 60;
const SENTIMENT_STRONG_ABOVE = 80;
/** docs/domain/reports.md#market-pulse-sources: gas at or above $3.50 favours fuel-efficient stock. */
export const GAS_FUEL_EFFICIENT_AT = 3.5;
/** docs/domain/reports.md#market-pulse-sources: lender environment from the 60-month rate's change vs 3 periods ago (the ± threshold is a setting). */
export const LENDER_LOOKBACK_PERIODS = 3;
/** docs/domain/reports.md#market-pulse-sources: wholesale values "rising" above +2% year over year. */
const WHOLESALE_RISING_YOY_PCT = 2;

export class MalformedUpstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedUpstreamError";
  }
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function reading(date: unknown, value: unknown): Observation | null {
  if (typeof date !== "string" || !ISO_DAY.test(date)) throw new MalformedUpstreamError("an observation has no YYYY-MM-DD date");
  // FRED marks a missing reading with "."; such a reading is skipped, never stored as 0.
  if (value === "." || value === null || value === "") return null;
  const number = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) throw new MalformedUpstreamError(`observation ${date} has a non-numeric value`);
  return { date, value: number };
}

/** FRED `series/observations` JSON: `observations[].date|value`, values as strings. */
export function parseFredObservations(body: unknown): Observation[] {
  const observations = (body as { observations?: unknown } | null)?.observations;
  if (!Array.isArray(observations)) throw new MalformedUpstreamError("FRED body has no observations array");
  return observations.flatMap((o: { date?: unknown; value?: unknown }) => reading(o?.date, o?.value) ?? []);
}

/** EIA v2 JSON: `response.data[].period|value`, value a number or a numeric string. */
export function parseEiaData(body: unknown, seriesId: string): Observation[] {
  const data = (body as { response?: { data?: unknown } } | null)?.response?.data;
  if (!Array.isArray(data)) throw new MalformedUpstreamError("EIA body has no response.data array");
  return data
    .filter((row: { series?: unknown }) => row?.series === undefined || row.series === seriesId)
    .flatMap((row: { period?: unknown; value?: unknown }) => reading(row?.period, row?.value) ?? []);
}

/** Change of the newest reading against the one `periods` readings before it (history sorted oldest first). */
export function changeOver(history: readonly Observation[], periods: number): number | null {
  if (history.length <= periods) return null;
  const latest = history[history.length - 1];
  return round(latest.value - history[history.length - 1 - periods].value, 4);
}

export type LenderTrend = "easing" | "stable" | "tightening";

export function lenderTrend(changePts: number | null, thresholdPts: number): LenderTrend | null {
  if (changePts === null) return null;
  if (changePts <= -thresholdPts) return "easing";
  if (changePts >= thresholdPts) return "tightening";
  return "stable";
}

export function sentimentReading(value: number): "weak" | "neutral" | "strong" {
  if (value < SENTIMENT_WEAK_BELOW) return "weak";
  return value > SENTIMENT_STRONG_ABOVE ? "strong" : "neutral";
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const signed = (n: number, digits: number) => `${n > 0 ? "+" : n < 0 ? "−" : "±"}${Math.abs(n).toFixed(digits)}`;

function formatValue(series: SeriesInfo, value: number): string {
  if (series.unit === "usd_per_gallon") return `${formatUsdCents(value)}/gal`;
  if (series.unit === "percent") return `${value.toFixed(2)}%`;
  return value.toFixed(1);
}

/**
 * The feed entries a new reading produces: one for the reading itself and, when it crosses a
 * docs/domain/reports.md#market-pulse-sources threshold, a `dealer_market` alert. Ids are derived from the series and date, so
 * deriving twice yields the same rows. `history` is the series sorted oldest first and contains
 * the reading.
 */
export function entriesForReading(series: SeriesInfo, history: readonly Observation[], date: string, lenderThresholdPts: number): FeedEntry[] {
  const index = history.findIndex((o) => o.date === date);
  if (index < 0) return [];
  const upTo = history.slice(0, index + 1);
  const current = upTo[upTo.length - 1];
  const prior = upTo.length > 1 ? upTo[upTo.length - 2] : null;
  const change = prior ? round(current.value - prior.value, 4) : null;
  const from = prior
    ? `, ${change === 0 ? "unchanged from" : `${signed(change ?? 0, series.unit === "usd_per_gallon" ? 2 : series.unit === "percent" ? 2 : 1)} from`} ${formatValue(series, prior.value)} on ${prior.date}`
    : "";
  const entry = (suffix: string, category: string, severity: Severity, signal: string): FeedEntry => ({
    id: `mkt_${series.id}_${date}${suffix}`,
    category,
    signal,
    severity,
    source: series.source,
    date,
    demo: false,
  });
  // A daily rate (prime, SOFR) is news only when it moves.
  if (series.frequency === "daily" && change === 0) return [];
  const entries: FeedEntry[] = [];
  const text = `${series.name} ${formatValue(series, current.value)} for ${date}${from}`;

  if (series.id === SERIES.sentiment) {
    const band = sentimentReading(current.value);
    const severity: Severity = band === "weak" && (change ?? 0) < 0 ? "high" : Math.abs(change ?? 0) >= 3 ? "medium" : "low";
    entries.push(entry("", series.category, severity, `${text}; ${band} band.`));
    if (band === "weak" && prior && sentimentReading(prior.value) !== "weak") {
      entries.push(
        entry(
          "_alert",
          "dealer_market",
          "high",
          `Consumer sentiment entered the weak band (< ${SENTIMENT_WEAK_BELOW}) at ${current.value.toFixed(1)}: expect longer decision cycles and payment-focused shoppers.`,
        ),
      );
    }
  } else if (series.unit === "usd_per_gallon") {
    const severity: Severity = Math.abs(change ?? 0) >= 0.25 ? "high" : Math.abs(change ?? 0) >= 0.1 ? "medium" : "low";
    entries.push(entry("", series.category, severity, `${text}.`));
    const crossed = prior && current.value >= GAS_FUEL_EFFICIENT_AT !== prior.value >= GAS_FUEL_EFFICIENT_AT;
    if (crossed) {
      entries.push(
        entry(
          "_alert",
          "dealer_market",
          "medium",
          current.value >= GAS_FUEL_EFFICIENT_AT
            ? `Gasoline rose to ${formatValue(series, current.value)}, at or above ${formatUsdCents(GAS_FUEL_EFFICIENT_AT)}: stock and promote fuel-efficient units; expect slower large trucks and SUVs.`
            : `Gasoline fell to ${formatValue(series, current.value)}, below ${formatUsdCents(GAS_FUEL_EFFICIENT_AT)}: demand for trucks and SUVs should firm.`,
        ),
      );
    }
  } else if (series.category === "lender_environment") {
    const shift = changeOver(upTo, LENDER_LOOKBACK_PERIODS);
    const trend = lenderTrend(shift, lenderThresholdPts);
    const severity: Severity =
      trend === "easing" || trend === "tightening" ? "high" : shift !== null && Math.abs(shift) >= lenderThresholdPts / 2 ? "medium" : "low";
    const vs = shift === null ? "" : `; ${signed(shift, 2)} pt vs ${LENDER_LOOKBACK_PERIODS} readings ago (${trend})`;
    entries.push(entry("", "lender_environment", severity, `${text}${vs}.`));
    if (series.id === SERIES.bankAuto60 && (trend === "easing" || trend === "tightening")) {
      entries.push(
        entry(
          "_alert",
          "dealer_market",
          "high",
          trend === "tightening"
            ? `Lender environment tightening: the 60-month bank auto rate is ${signed(shift ?? 0, 2)} pt over ${LENDER_LOOKBACK_PERIODS} readings; expect lower advances and more stips on near-prime paper.`
            : `Lender environment easing: the 60-month bank auto rate is ${signed(shift ?? 0, 2)} pt over ${LENDER_LOOKBACK_PERIODS} readings; re-route declined near-prime deals.`,
        ),
      );
    }
  } else if (series.category === "wholesale_index") {
    const yearAgo = upTo.find((o) => o.date.slice(0, 7) === `${Number(date.slice(0, 4)) - 1}${date.slice(4, 7)}`);
    const yoyPct = yearAgo ? round(((current.value - yearAgo.value) / yearAgo.value) * 100, 1) : null;
    const rising = yoyPct !== null && yoyPct > WHOLESALE_RISING_YOY_PCT;
    const yoy = yoyPct === null ? "" : `; ${signed(yoyPct, 1)}% year over year${rising ? " (wholesale rising: appraise trades firmly)" : ""}`;
    entries.push(entry("", "wholesale_index", rising ? "medium" : "low", `${text}${yoy}.`));
  } else {
    const severity: Severity = change === null || change === 0 ? "low" : Math.abs(change) >= 0.25 ? "high" : "medium";
    entries.push(entry("", series.category, severity, `${text}.`));
  }
  return entries;
}

/**
 * The `lender.environment_change` payload when the newest reading of the 60-month bank rate is
 * new this run and has moved past the threshold over three readings; otherwise null. A reading
 * raises the event once: on a later run it is no longer new.
 */
export function lenderEnvironmentChange(history: readonly Observation[], newDates: readonly string[], thresholdPts: number) {
  const latest = history.at(-1);
  if (!latest || !newDates.includes(latest.date)) return null;
  const changePts = changeOver(history, LENDER_LOOKBACK_PERIODS);
  const trend = lenderTrend(changePts, thresholdPts);
  if (trend !== "easing" && trend !== "tightening") return null;
  return {
    source: "market_rate" as const,
    series_id: SERIES.bankAuto60,
    value: latest.value,
    as_of: latest.date,
    change_pts: changePts,
    lookback_readings: LENDER_LOOKBACK_PERIODS,
    threshold_pts: thresholdPts,
    trend,
  };
}
