import { loadConfig } from "../config";
import { getDb } from "../db/client";
import {
  existingFeedEntryIds,
  insertFeedEntries,
  insertRefreshRun,
  listOrganizationIds,
  loadMarketData,
  upsertObservation,
} from "../db/queries/reports";
import {
  entriesForReading,
  type FeedEntry,
  lenderEnvironmentChange,
  MalformedUpstreamError,
  type Observation,
  parseEiaData,
  parseFredObservations,
  SERIES,
} from "../engines/reports/market";
import type { SeriesHistory } from "../engines/reports/pulse";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { newId } from "../lib/ids";
import { describeError, logEvent } from "../lib/log";

const FRED_OBSERVATIONS_URL = "https://api.stlouisfed.org/fred/series/observations";
const EIA_GASOLINE_URL = "https://api.eia.gov/v2/petroleum/pri/gnd/data/";
/** Readings asked for per series: enough for a year-over-year on a monthly series. */
const READINGS_PER_FETCH = 13;
/** Readings kept in memory per series to derive entries (three periods back, a year back). */
const HISTORY_READINGS = 400;
const UPSTREAM_TIMEOUT_MS = 15_000;

class UpstreamError extends Error {}

async function fetchJson(url: URL): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) });
  } catch (error) {
    // The URL carries the API key: only the error's kind is kept.
    throw new UpstreamError(`request failed (${describeError(error).error})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new UpstreamError(`HTTP ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new MalformedUpstreamError("body is not JSON");
  }
}

async function fetchReadings(series: SeriesHistory["series"], keys: { fred?: string; eia?: string }): Promise<Observation[]> {
  if (series.provider === "fred") {
    if (!keys.fred) throw new UpstreamError("FRED_API_KEY is not configured");
    const url = new URL(FRED_OBSERVATIONS_URL);
    url.search = new URLSearchParams({
      series_id: series.id,
      api_key: keys.fred,
      file_type: "json",
      sort_order: "desc",
      limit: String(READINGS_PER_FETCH),
    }).toString();
    return parseFredObservations(await fetchJson(url));
  }
  if (!keys.eia) throw new UpstreamError("EIA_API_KEY is not configured");
  const url = new URL(EIA_GASOLINE_URL);
  url.search = new URLSearchParams({
    api_key: keys.eia,
    frequency: "weekly",
    "data[0]": "value",
    "facets[series][]": series.id,
    "sort[0][column]": "period",
    "sort[0][direction]": "desc",
    offset: "0",
    length: String(READINGS_PER_FETCH),
  }).toString();
  return parseEiaData(await fetchJson(url), series.id);
}

/**
 * 05:00 UTC: reads every enabled FRED and EIA series, stores new readings, derives the public
 * feed's entries from them and raises `lender.environment_change` for every organization when
 * the 60-month bank rate moves past the threshold. A series whose upstream fails or answers
 * garbage keeps its stored readings and is recorded as a failure; nothing is ever deleted, so
 * the feed never empties. Entry ids come from the reading, so a second run the same night adds
 * nothing and raises nothing.
 */
export async function refreshMarketData(env: Env, now: Date): Promise<void> {
  const config = loadConfig(env);
  const db = getDb(env.DB);
  const startedAt = now.toISOString();
  const { histories } = await loadMarketData(db, HISTORY_READINGS, 0);
  const failures: { id: string; seriesId: string; reason: string }[] = [];
  const merged = new Map<string, Observation[]>();
  const newDates = new Map<string, string[]>();
  const statements = [];

  for (const { series, observations } of histories) {
    merged.set(series.id, observations);
    if (series.provider === "manual") {
      // An operator enters these readings; the newest gets its feed entry once (its id is fixed).
      const latest = observations.at(-1);
      newDates.set(series.id, latest ? [latest.date] : []);
      continue;
    }
    let readings: Observation[];
    try {
      readings = await fetchReadings(series, { fred: config.fredApiKey, eia: config.eiaApiKey });
      if (readings.length === 0) throw new MalformedUpstreamError("no usable readings");
    } catch (error) {
      const reason = error instanceof UpstreamError || error instanceof MalformedUpstreamError ? error.message : "unexpected error";
      failures.push({ id: newId("mrf"), seriesId: series.id, reason });
      logEvent("warn", { event: "market_series_refresh_failed", series: series.id, reason });
      continue;
    }
    const stored = new Map(observations.map((o) => [o.date, o.value]));
    const changed = readings.filter((r) => stored.get(r.date) !== r.value);
    for (const reading of changed) statements.push(upsertObservation(db, series.id, reading, startedAt));
    for (const r of changed) stored.set(r.date, r.value);
    merged.set(
      series.id,
      [...stored.entries()].map(([date, value]) => ({ date, value })).sort((a, b) => a.date.localeCompare(b.date)),
    );
    newDates.set(
      series.id,
      changed.filter((r) => !observations.some((o) => o.date === r.date)).map((r) => r.date),
    );
  }

  const entries: FeedEntry[] = [];
  for (const { series } of histories) {
    const history = merged.get(series.id) ?? [];
    for (const date of newDates.get(series.id) ?? []) {
      // A mirror's reading is news only when the primary has none for that date.
      if (series.fallbackFor && merged.get(series.fallbackFor)?.some((o) => o.date === date)) continue;
      entries.push(...entriesForReading(series, history, date, config.lenderEnvironmentChangePts));
    }
  }
  const known = await existingFeedEntryIds(
    db,
    entries.map((e) => e.id),
  );
  const fresh = entries.filter((e) => !known.has(e.id));

  const change = lenderEnvironmentChange(
    merged.get(SERIES.bankAuto60) ?? [],
    newDates.get(SERIES.bankAuto60) ?? [],
    config.lenderEnvironmentChangePts,
  );
  const events: DomainEvent[] = change
    ? (await listOrganizationIds(db)).map((orgId) => ({ event: "lender.environment_change" as const, orgId, storeId: null, data: change }))
    : [];

  const run = {
    id: newId("mrr"),
    startedAt,
    finishedAt: new Date(Math.max(Date.now(), now.getTime())).toISOString(),
    status: failures.length > 0 ? ("partial" as const) : ("ok" as const),
    observationsAdded: statements.length,
    entriesAdded: fresh.length,
  };
  await commitWithEvents(env, db, [...statements, ...insertFeedEntries(db, fresh, startedAt), ...insertRefreshRun(db, run, failures)], events, now);
  logEvent("info", { event: "market_data_refreshed", ...run, failures: failures.length, events: events.length });
}
