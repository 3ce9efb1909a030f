/**
 * Demo data for the reports: a history of every public series (so the market pulse and the feed
 * work offline) and a valuation per unit in stock (so the inventory alerts have market values).
 * Pure and deterministic like scripts/demo-data.ts: a function of the reference date and the
 * units it generated. Levels follow docs/domain/reports.md (the readings of late 2025).
 */
import type { InferInsertModel } from "drizzle-orm";
import type { inventoryUnits, unitMarketValues } from "../db/org-schema";
import type { marketObservations } from "../db/schema";
import { ESTIMATE_COST_TO_MARKET, valueRetained } from "../engines/aged-inventory/recommendation";
import { DAY_MS, isoDay } from "../engines/dates";
import { estimateMarketValue, reconFor, type StoreSettings } from "../engines/reports/alerts";

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** A stable fraction in [0, 1) from a string (FNV-1a), so a unit's valuation never changes between seeds. */
function fraction(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash / 2 ** 32;
}

/** `count` readings ending at `latest` (oldest first): a slow wave plus a per-date wobble, so changes look real. */
function path(id: string, dates: string[], latest: number, amplitude: number, digits: number, pinned: Record<number, number> = {}): Observation[] {
  return dates.map((date, i) => {
    const back = dates.length - 1 - i;
    const value = pinned[back] ?? latest + amplitude * (Math.sin(back / 3) + (fraction(`${id}:${date}`) - 0.5) * 0.6);
    return { date, value: round(value, digits) };
  });
}

interface Observation {
  date: string;
  value: number;
}

function monthStarts(reference: number, monthsBack: number, count: number, step = 1): string[] {
  const d = new Date(reference);
  return Array.from({ length: count }, (_, i) => isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - monthsBack - (count - 1 - i) * step, 1)));
}

function mondays(reference: number, count: number): string[] {
  const dayOfWeek = new Date(reference).getUTCDay();
  const lastMonday = reference - ((dayOfWeek + 6) % 7) * DAY_MS;
  return Array.from({ length: count }, (_, i) => isoDay(lastMonday - (count - 1 - i) * 7 * DAY_MS));
}

function businessDays(reference: number, count: number): string[] {
  const days: string[] = [];
  for (let t = reference - DAY_MS; days.length < count; t -= DAY_MS) {
    const weekday = new Date(t).getUTCDay();
    if (weekday !== 0 && weekday !== 6) days.unshift(isoDay(t));
  }
  return days;
}

/** The G.19 auto-rate series are published for the second month of each quarter. */
function quarterMonths(reference: number, count: number): string[] {
  const d = new Date(reference);
  let month = d.getUTCMonth() - 1;
  while (month % 3 !== 1) month -= 1;
  return Array.from({ length: count }, (_, i) => isoDay(Date.UTC(d.getUTCFullYear(), month - (count - 1 - i) * 3, 1)));
}

function seriesHistory(reference: number): Record<string, Observation[]> {
  const gasDates = mondays(reference, 60);
  const gas = path("gas", gasDates, 3.12, 0.12, 3, { 0: 3.12, 1: 3.16, 2: 3.17, 3: 3.15 });
  // FRED publishes consumer sentiment a month late.
  const sentimentDates = monthStarts(reference, 1, 24);
  const primeDates = businessDays(reference, 80);
  return {
    UMCSENT: path("UMCSENT", sentimentDates, 56, 3, 1, { 0: 53.6, 1: 55.1 }),
    EMM_EPMR_PTE_NUS_DPG: gas,
    GASREGW: gas,
    RIFLPBCIANM60NM: path("auto60", quarterMonths(reference, 8), 7.6, 0.1, 2, { 0: 7.52, 1: 7.58, 2: 7.63, 3: 7.67 }),
    RIFLPBCIANM72NM: path("auto72", quarterMonths(reference, 8), 7.7, 0.1, 2, { 0: 7.61, 1: 7.69, 2: 7.7, 3: 7.73 }),
    TERMCBAUTO48NS: path("auto48", quarterMonths(reference, 8), 7.55, 0.1, 2, { 0: 7.48, 1: 7.51, 2: 7.58, 3: 7.63 }),
    // One 25 bp cut six weeks ago.
    DPRIME: primeDates.map((date, i) => ({ date, value: i < primeDates.length - 30 ? 7.25 : 7.0 })),
    SOFR: primeDates.map((date, i) => ({
      date,
      value: round((i < primeDates.length - 30 ? 4.16 : 3.91) + (fraction(`sofr:${date}`) - 0.5) * 0.04, 2),
    })),
    MANHEIM_UVVI: path("manheim", monthStarts(reference, 0, 14), 204.5, 1.2, 1, { 0: 205.0, 1: 204.6, 12: 205.4 }),
  };
}

type UnitRow = InferInsertModel<typeof inventoryUnits>;

/**
 * A valuation per unit in stock, as a nightly valuation feed would deliver it: the alert engine's
 * documented estimate (MSRP for new; high-80s cost-to-market and value decay with age for
 * pre-owned) moved ±2% (new) or ±6% (pre-owned) per unit, so some units sit above market and
 * some below their floor-plan payoff.
 */
export function unitMarketValueRows(
  referenceDate: string,
  units: readonly UnitRow[],
  storeRows: readonly StoreSettings[],
): InferInsertModel<typeof unitMarketValues>[] {
  const now = new Date(`${referenceDate}T12:00:00Z`);
  const settings = new Map(storeRows.map((s) => [s.id, s]));
  return units
    .filter((u) => (u.status ?? "in_stock") === "in_stock")
    .map((u) => {
      const store = settings.get(u.storeId)!;
      const days = Math.max(0, Math.round((Date.parse(referenceDate) - Date.parse(u.stockedOn)) / DAY_MS));
      // The demo's valuations drift with age along the value curve (the seed's data, unchanged by the engines' estimate).
      const unit = { ...u, storeId: u.storeId, marketValue: null };
      const estimate =
        u.condition === "new"
          ? estimateMarketValue(unit, store)
          : Math.round((((u.cost + reconFor(store, unit)) / ESTIMATE_COST_TO_MARKET) * valueRetained(days)) / 25) * 25;
      // New units list at MSRP, so their market sits close to it; pre-owned valuations spread wider.
      const spread = u.condition === "new" ? 0.98 + fraction(`${u.id}:valuation`) * 0.04 : 0.94 + fraction(`${u.id}:valuation`) * 0.12;
      return {
        unitId: u.id,
        orgId: u.orgId,
        marketValue: Math.round((estimate * spread) / 25) * 25,
        asOf: isoDay(now.getTime()),
        source: "demo valuation feed",
      };
    });
}

/** Every public series' history up to the reference date (the benchmark seeds it too). */
export function marketObservationRows(referenceDate: string): InferInsertModel<typeof marketObservations>[] {
  const fetchedAt = `${referenceDate}T00:00:00.000Z`;
  return Object.entries(seriesHistory(Date.parse(referenceDate))).flatMap(([seriesId, observations]) =>
    observations.map((o) => ({ seriesId, date: o.date, value: o.value, fetchedAt, isDemo: true })),
  );
}
