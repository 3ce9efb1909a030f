/**
 * Role morning briefings: the inventory-alert envelope for the role's part of the lot plus a few
 * sections of figures, each with its next action. A five-minute read: about 20 figures at most
 * (docs/reports.md). Benchmarks: docs/domain/reports.md#briefing-kpis. Every sentence with a
 * number is computed from the store's figures.
 */
import { isNewUnit, NEW_UNIT_ACTIONS, OWNER_TITLE, WHOLESALE_DAYS } from "../aged-inventory/recommendation";
import { daysBefore, daysSince, isoDay } from "../dates";
import { PIPELINE_STATUSES } from "../deal-math/vocabulary";
import { formatWholeUsd } from "../format";
import type { DataAsOf } from "../freshness";
import type { UsedFrontGrossSetting } from "../gross";
import { dailyHoldingCost, holdingFiguresOf } from "../holding-cost";
import { type AlertUnit, buildAlertReport, type InventoryAlert, reconFor, type StoreSettings } from "./alerts";
import type { MarketPulse } from "./pulse";
import { type BriefingTightening, lenderTighteningSection, staleDataSection } from "./signals";

export const ROLES = ["gm", "used_car_manager", "fi_director", "bdc_manager", "sales_manager", "new_car_manager"] as const;
export type Role = (typeof ROLES)[number];
export const DEFAULT_ROLE: Role = "used_car_manager";

export interface BriefingDeal {
  dealNumber: string;
  soldOn: string;
  status: "pending" | "submitted" | "approved" | "funded" | "unwound";
  condition: "new" | "used" | "cpo";
  make: string;
  model: string;
  sellingPrice: number;
  lender: string | null;
  beacon: number | null;
  amountFinanced: number | null;
  frontGross: number;
  backGross: number;
}

export interface OpenStip {
  dealNumber: string;
  stip: string;
  state: "outstanding" | "received";
  requestedOn: string;
}

export interface BriefingInput {
  role: Role;
  store: StoreSettings & UsedFrontGrossSetting;
  /** The store's units in stock. */
  units: readonly AlertUnit[];
  /** The store's deals sold since the first day of last month, and every deal still in the pipeline. */
  deals: readonly BriefingDeal[];
  /** Stips not yet cleared on the store's deals. */
  openStips: readonly OpenStip[];
  pulse: MarketPulse;
  /** How old the store's inventory and deals are (docs/ingestion.md#when-a-feed-stops); a stale feed leads the briefing. */
  dataAsOf?: readonly DataAsOf[];
  /** The store's programs with an open tightening, named in the F&I director's and sales manager's briefings. */
  tightenings?: readonly BriefingTightening[];
}

interface Figure {
  id: string;
  label: string;
  value: number;
  unit: "count" | "usd" | "days" | "percent";
  benchmark: string | null;
  action: string;
}

interface Section {
  id: string;
  title: string;
  figures: Figure[];
}

export interface Briefing {
  role: Role;
  storeId: string;
  generatedAt: string;
  alerts: InventoryAlert[];
  totalAgedUnits: number;
  totalAgedExposureUsd: number;
  sections: Section[];
  dataAsOf: DataAsOf[];
}

/** Alerts a briefing carries: the largest exposures only, so the whole briefing stays near 20 figures. */
const BRIEFING_ALERT_LIMIT = 5;
/** Contracts in transit target ≤ 7 days (docs/domain/reports.md#briefing-kpis). */
const TRANSIT_TARGET_DAYS = 7;
/** Funding SLA alert at day 5, missed stips being the usual cause (docs/reports.md). */
const STIP_ALERT_DAYS = 5;
/** Share of used inventory over 60 days: target under 10% (docs/domain/reports.md#briefing-kpis). */
const OVER_60_TARGET_PCT = 10;
/** Used days supply 30–45 target (docs/domain/reports.md#briefing-kpis). */
const USED_DAYS_SUPPLY_TARGET = [30, 45] as const;
/** National new days supply ~66, May 2025 (docs/domain/reports.md#new-units-age-differently). */
const NEW_DAYS_SUPPLY_MARKET = 66;
/** "Velocity" when a model's days supply is under 35 (docs/reports.md). */
const VELOCITY_DAYS_SUPPLY = 35;
/** Q3 2025 averages, Presidio/NCM (docs/domain/reports.md#briefing-kpis). */
const BENCHMARK_GPVR = { new: 1840, used: 1306, fi: 1666 } as const;
/** 30 target days to sell a used unit (docs/domain/gross.md#front-gross-targets); the front-gross target is the store's setting. */
const TARGET_DAYS_TO_SELL = 30;
const VELOCITY_WINDOW_DAYS = 60;

/** "1 new unit", "2 new units". */
const units = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const avg = (xs: readonly number[]) => (xs.length === 0 ? 0 : sum(xs) / xs.length);

export function buildBriefing(input: BriefingInput, now: Date): Briefing {
  const scope = input.role === "new_car_manager" ? "new" : input.role === "used_car_manager" ? "preowned" : "all";
  const units = input.units.filter((u) => scope === "all" || (scope === "new" ? u.condition === "new" : u.condition !== "new"));
  const report = buildAlertReport(units, new Map([[input.store.id, input.store]]), now);
  const context = { ...input, now, report, units };
  return {
    role: input.role,
    storeId: input.store.id,
    generatedAt: now.toISOString(),
    alerts: report.alerts.slice(0, BRIEFING_ALERT_LIMIT),
    totalAgedUnits: report.totalAgedUnits,
    totalAgedExposureUsd: report.totalAgedExposureUsd,
    sections: [
      ...staleDataSection(input.dataAsOf ?? []),
      ...SECTIONS[input.role](context),
      ...lenderTighteningSection(input.role, input.tightenings ?? []),
    ],
    dataAsOf: [...(input.dataAsOf ?? [])],
  };
}

interface Context extends BriefingInput {
  now: Date;
  report: ReturnType<typeof buildAlertReport>;
}

const SECTIONS: Record<Role, (c: Context) => Section[]> = {
  gm: (c) => [agedInventory(c), lenderFlags(c), fundingPipeline(c)],
  used_car_manager: (c) => [acquisitionTargets(c), wholesaleRecommendations(c)],
  fi_director: (c) => [stipAlerts(c), fundingRisk(c)],
  bdc_manager: (c) => [unitsToPromote(c), stipCallbacks(c)],
  sales_manager: (c) => [pace(c), grossPerUnit(c)],
  new_car_manager: (c) => [newUnitsByAge(c)],
};

// --- inventory ----------------------------------------------------------------------------------

/** KPI "% of inventory over 60 days" (strictly more than 60) counts used and CPO units: new units age at their own threshold. */
const OVER_60_DAYS = 60;

/**
 * The fewest units to move out (sold or wholesaled: they leave the count too) so the share over
 * 60 days is under the target: the smallest n with (over − n) / (total − n) < target.
 */
export function unitsToMoveForShare(over: number, total: number, targetPct: number): number {
  let n = 0;
  // Integer comparison, (over − n)·100 < target·(total − n), so no rounding decides it.
  while (n < over && (over - n) * 100 >= targetPct * (total - n)) n += 1;
  return n;
}

function over60Figure(c: Context): Figure {
  const used = c.units.filter((u) => !isNewUnit(u.condition));
  const over60 = used.filter((u) => daysSince(u.stockedOn, c.now) > OVER_60_DAYS).length;
  const share = pct(over60, used.length);
  const move = unitsToMoveForShare(over60, used.length, OVER_60_TARGET_PCT);
  return {
    id: "share_over_60_days",
    label: `Used units over ${OVER_60_DAYS} days: ${over60} of ${used.length}`,
    value: share,
    unit: "percent",
    benchmark: `under ${OVER_60_TARGET_PCT}% (docs/domain/reports.md#briefing-kpis)`,
    action:
      move > 0
        ? `Move ${move} of the ${over60} used units past ${OVER_60_DAYS} days out (retail toward market or wholesale) to bring the share from ${share}% to ${pct(over60 - move, used.length - move)}% (${over60 - move} of ${used.length - move}), under ${OVER_60_TARGET_PCT}%.`
        : `Within target: keep the ${c.store.agedThresholdDays}-day review cadence.`,
  };
}

/** Units whose one recommendation is the auction (docs/domain/reports.md#one-recommendation-per-unit). */
function wholesaleCandidates(c: Context) {
  return c.report.alerts.filter((a) => a.action === "wholesale");
}

const proceedsOf = (alerts: readonly InventoryAlert[]) => sum(alerts.map((a) => a.wholesaleEst ?? 0));

/** Units at or past their own aged threshold (new units age at the store's new-unit threshold). */
function agedAlerts(c: Context) {
  return c.report.alerts.filter((a) => a.daysOnLot >= a.agedThresholdDays);
}

function agedInventory(c: Context): Section {
  const candidates = wholesaleCandidates(c);
  const aged = agedAlerts(c);
  const accrued = sum(aged.map((a) => a.accruedInterestUsd));
  const agedUsed = aged.filter((a) => a.owner === "used_car_manager");
  const agedNew = aged.filter((a) => a.owner === "new_car_manager");
  const exposure = (alerts: readonly InventoryAlert[]) => formatWholeUsd(sum(alerts.map((a) => a.exposureUsd)));
  return {
    id: "aged_inventory",
    title: "Aged inventory",
    figures: [
      {
        id: "aged_units",
        label: `Units at or past their aged threshold (used ${c.store.agedThresholdDays} days, new ${c.store.agedThresholdDaysNew}), cost tied up ${formatWholeUsd(c.report.totalAgedExposureUsd)}`,
        value: c.report.totalAgedUnits,
        unit: "count",
        benchmark: null,
        action:
          c.report.totalAgedUnits > 0
            ? [
                agedUsed.length > 0
                  ? `Hold the ${OWNER_TITLE.used_car_manager} to a retail-toward-market or wholesale decision on the ${units(agedUsed.length, "used unit")} (${exposure(agedUsed)} tied up) today.`
                  : "",
                agedNew.length > 0
                  ? `Ask the ${OWNER_TITLE.new_car_manager} for a plan on the ${units(agedNew.length, "new unit")} at or past ${c.store.agedThresholdDaysNew} days (${exposure(agedNew)} tied up): ${NEW_UNIT_ACTIONS}.`
                  : "",
              ]
                .filter(Boolean)
                .join(" ")
            : "No aged units: nothing to decide.",
      },
      {
        id: "wholesale_candidates",
        label: `Used units to wholesale, about ${formatWholeUsd(proceedsOf(candidates))} in expected auction proceeds after fees`,
        value: candidates.length,
        unit: "count",
        benchmark: `wholesale decision at ${WHOLESALE_DAYS} days (docs/domain/reports.md#wholesale-candidate)`,
        action:
          candidates.length > 0
            ? candidates.length === 1
              ? "Approve the 1 wholesale move to stop its holding cost."
              : `Approve the ${candidates.length} wholesale moves to stop their holding cost.`
            : "None to approve.",
      },
      {
        id: "aged_floorplan_interest",
        label: `Floor-plan interest accrued on the ${aged.length} aged units`,
        value: accrued,
        unit: "usd",
        benchmark: null,
        action: accrued > 0 ? "Every week these units stay adds to it; weigh it against the reprices proposed." : "Nothing accrued on aged units.",
      },
      over60Figure(c),
    ],
  };
}

function wholesaleRecommendations(c: Context): Section {
  const candidates = wholesaleCandidates(c);
  const usedSold = c.deals.filter((d) => d.condition !== "new" && d.status !== "unwound" && inLastDays(d.soldOn, c.now, 30)).length;
  const daysSupply = usedSold === 0 ? 0 : Math.round(c.units.length / (usedSold / 30));
  const [low, high] = USED_DAYS_SUPPLY_TARGET;
  return {
    id: "wholesale_recommendations",
    title: "Wholesale recommendations",
    figures: [
      {
        id: "wholesale_candidates",
        label: `Units to wholesale, about ${formatWholeUsd(proceedsOf(candidates))} in expected auction proceeds after fees`,
        value: candidates.length,
        unit: "count",
        benchmark: `wholesale at ${WHOLESALE_DAYS} days or when gross after holding cost turns negative (docs/domain/reports.md#wholesale-candidate)`,
        action:
          candidates.length > 0
            ? `Send ${candidates
                .slice(0, 3)
                .map((a) => `${a.stockNumber} (~${formatWholeUsd(a.wholesaleEst ?? 0)})`)
                .join(", ")}${candidates.length > 3 ? ` and ${candidates.length - 3} more` : ""} to auction this week.`
            : "No wholesale candidates today.",
      },
      over60Figure(c),
      {
        id: "used_days_supply",
        label: `Pre-owned days supply (${c.units.length} in stock, ${usedSold} retailed in 30 days)`,
        value: daysSupply,
        unit: "days",
        benchmark: `${low}–${high} days; market 42 (docs/domain/reports.md#briefing-kpis)`,
        action:
          usedSold === 0
            ? "No retail sales in 30 days: review pricing on the whole lot."
            : daysSupply > high
              ? `Over target: buy less and move ${Math.ceil(c.units.length - (usedSold / 30) * high)} units to reach ${high} days.`
              : daysSupply < low
                ? `Under target: acquire about ${Math.ceil((usedSold / 30) * low - c.units.length)} units to reach ${low} days.`
                : "On target: buy to replace what sells.",
      },
    ],
  };
}

function acquisitionTargets(c: Context): Section {
  const sold = new Map<string, BriefingDeal[]>();
  for (const d of c.deals) {
    if (d.condition === "new" || d.status === "unwound" || !inLastDays(d.soldOn, c.now, VELOCITY_WINDOW_DAYS)) continue;
    const key = `${d.make} ${d.model}`;
    sold.set(key, [...(sold.get(key) ?? []), d]);
  }
  const inStock = new Map<string, number>();
  for (const u of c.units) inStock.set(`${u.make} ${u.model}`, (inStock.get(`${u.make} ${u.model}`) ?? 0) + 1);
  const perDay = (n: number) => n / VELOCITY_WINDOW_DAYS;
  const targets = [...sold.entries()]
    .map(([model, deals]) => ({
      model,
      deals,
      stock: inStock.get(model) ?? 0,
      daysSupply: Math.round((inStock.get(model) ?? 0) / perDay(deals.length)),
    }))
    .filter((t) => t.deals.length >= 2 && t.daysSupply < VELOCITY_DAYS_SUPPLY)
    .sort((a, b) => b.deals.length - a.deals.length || a.daysSupply - b.daysSupply || a.model.localeCompare(b.model))
    .slice(0, 3);
  const recon = c.units.length > 0 ? avg(c.units.map((u) => reconFor(c.store, u))) : c.store.reconCar;
  const figures: Figure[] = targets.map((t) => {
    const retail = avg(t.deals.map((d) => d.sellingPrice));
    // Max acquisition = retail − recon − pack − target front gross − holding × days to sell, holding on
    // the unit's value as the appraisal engine carries it (docs/domain/gross.md#holding-cost).
    const holding = dailyHoldingCost(retail, holdingFiguresOf(c.store)) * TARGET_DAYS_TO_SELL;
    const maxBuy =
      retail - recon - c.store.packUsed - Math.max(c.store.targetFrontGrossUsedMin, (retail * c.store.targetFrontGrossUsedPct) / 100) - holding;
    const toBuy = Math.max(1, Math.ceil(perDay(t.deals.length) * TARGET_DAYS_TO_SELL) - t.stock);
    return {
      id: `acquire_${t.model.toLowerCase().replaceAll(/[^a-z0-9]+/g, "_")}`,
      label: `${t.model}: ${t.deals.length} retailed in ${VELOCITY_WINDOW_DAYS} days, ${t.stock} in stock (days supply)`,
      value: t.daysSupply,
      unit: "days",
      benchmark: `under ${VELOCITY_DAYS_SUPPLY} days is a velocity model (docs/reports.md)`,
      action: `Acquire ${toBuy} at or below ${formatWholeUsd(maxBuy)} each (average retail ${formatWholeUsd(retail)}).`,
    };
  });
  if (figures.length === 0) {
    figures.push({
      id: "acquisition_targets",
      label: `Models with ${VELOCITY_DAYS_SUPPLY}-day velocity`,
      value: 0,
      unit: "count",
      benchmark: null,
      action: "No model sells fast against low supply: buy to replace, not to expand.",
    });
  }
  const gas = c.pulse.gasPrice;
  if (gas) {
    figures.push({
      id: "gas_price",
      label: `U.S. regular gasoline, ${gas.asOf} (${gas.source})`,
      value: gas.value,
      unit: "usd",
      benchmark: "$3.50/gal shifts demand (docs/domain/reports.md#market-pulse-sources)",
      action: gas.favourFuelEfficient
        ? "At or above $3.50: favour fuel-efficient cars and hybrids at auction; bid trucks and large SUVs lighter."
        : "Below $3.50: no shift in mix needed.",
    });
  }
  return { id: "acquisition_targets", title: "Acquisition targets", figures };
}

/** Age bands of new units under their aged threshold: starts at 0, 30 and 60 days (those under the threshold). */
const NEW_AGE_BAND_STARTS: readonly [number, string][] = [
  [0, "Fresh: hold price."],
  [30, "Spiff or feature in this week's ads before they age."],
  [60, "Apply available OEM incentives and price to move."],
];

function newUnitsByAge(c: Context): Section {
  const threshold = c.store.agedThresholdDaysNew;
  const bands = NEW_AGE_BAND_STARTS.filter(([start]) => start < threshold);
  const figures: Figure[] = bands.map(([min, action], i) => {
    const max = (bands[i + 1]?.[0] ?? threshold) - 1;
    const count = c.units.filter((u) => {
      const d = daysSince(u.stockedOn, c.now);
      return d >= min && d <= max;
    }).length;
    return {
      id: `new_units_${min}_${max}_days`,
      label: `New units ${min}–${max} days`,
      value: count,
      unit: "count",
      benchmark: null,
      action: count > 0 ? action : "None.",
    };
  });
  // The aged count is the alerts' own (the GM's figure and the envelope): one computation owns it.
  const aged = agedAlerts(c).length;
  figures.push({
    id: "new_units_aged",
    label: `New units at or past ${threshold} days (aged)`,
    value: aged,
    unit: "count",
    benchmark: null,
    action: aged > 0 ? `Aged (new units age at ${threshold} days): ${NEW_UNIT_ACTIONS}.` : "None.",
  });
  const newSold = c.deals.filter((d) => d.condition === "new" && d.status !== "unwound" && inLastDays(d.soldOn, c.now, 30)).length;
  const daysSupply = newSold === 0 ? 0 : Math.round(c.units.length / (newSold / 30));
  figures.push({
    id: "new_days_supply",
    label: `New days supply (${c.units.length} in stock, ${newSold} retailed in 30 days)`,
    value: daysSupply,
    unit: "days",
    benchmark: `national ~${NEW_DAYS_SUPPLY_MARKET} days (docs/domain/reports.md#new-units-age-differently)`,
    action:
      newSold === 0
        ? "No new retail sales in 30 days: check allocation and pricing."
        : daysSupply > NEW_DAYS_SUPPLY_MARKET
          ? "Above the national supply: slow orders on the slowest models."
          : "At or under the national supply: keep orders at pace.",
  });
  return { id: "new_units_by_age", title: "New units by age", figures };
}

function unitsToPromote(c: Context): Section {
  // Aged units whose one recommendation is a retail price (units to wholesale go to auction, not into campaigns).
  const promote = c.report.alerts
    .filter((a) => a.action === "reprice" && a.daysOnLot >= a.agedThresholdDays)
    .sort((a, b) => b.daysOnLot - a.daysOnLot || a.stockNumber.localeCompare(b.stockNumber))
    .slice(0, 3);
  const figures: Figure[] = promote.map((a) => ({
    id: `promote_${a.stockNumber}`,
    label: `${a.year} ${a.make} ${a.model} (${a.stockNumber}), ${a.daysOnLot} days`,
    value: a.recommendedPrice,
    unit: "usd",
    benchmark: null,
    action: `Feature it in today's outbound and email campaign at ${formatWholeUsd(a.recommendedPrice)}; invite past shoppers of ${a.model}s.`,
  }));
  if (figures.length === 0) {
    figures.push({
      id: "units_to_promote",
      label: "Aged units to promote",
      value: 0,
      unit: "count",
      benchmark: null,
      action: "None aged: promote new arrivals.",
    });
  }
  return { id: "units_to_promote", title: "Units to promote", figures };
}

// --- funding and stips --------------------------------------------------------------------------

function pipeline(c: Context) {
  return c.deals
    .filter((d) => (PIPELINE_STATUSES as readonly string[]).includes(d.status) && d.lender !== null)
    .map((d) => ({ ...d, days: daysSince(d.soldOn, c.now) }));
}

function inLastDays(day: string, now: Date, days: number): boolean {
  return daysSince(day, now) < days && day <= isoDay(now);
}

function fundingPipeline(c: Context): Section {
  const waiting = pipeline(c);
  const late = waiting.filter((d) => d.days > TRANSIT_TARGET_DAYS);
  const oldest = waiting.reduce<(typeof waiting)[number] | null>((o, d) => (!o || d.days > o.days ? d : o), null);
  return {
    id: "funding_pipeline",
    title: "Funding pipeline",
    figures: [
      {
        id: "deals_waiting",
        label: `Deals waiting for funding, ${formatWholeUsd(sum(waiting.map((d) => d.amountFinanced ?? 0)))} financed`,
        value: waiting.length,
        unit: "count",
        benchmark: null,
        action: waiting.length > 0 ? "Review the list with the F&I director at the morning meeting." : "Pipeline clear.",
      },
      {
        id: "average_days_since_contract",
        label: "Average days since contract of deals waiting",
        value: Math.round(avg(waiting.map((d) => d.days)) * 10) / 10,
        unit: "days",
        benchmark: `contracts in transit ≤ ${TRANSIT_TARGET_DAYS} days (docs/domain/reports.md#briefing-kpis)`,
        action:
          late.length > 0 ? `${late.length} deals are past ${TRANSIT_TARGET_DAYS} days: ask for a funding date on each today.` : "Within target.",
      },
      {
        id: "oldest_contract_days",
        label: oldest ? `Oldest contract in transit: ${oldest.dealNumber} with ${oldest.lender}` : "Oldest contract in transit",
        value: oldest?.days ?? 0,
        unit: "days",
        benchmark: `≤ ${TRANSIT_TARGET_DAYS} days`,
        action:
          oldest && oldest.days > TRANSIT_TARGET_DAYS ? `Escalate ${oldest.dealNumber} with ${oldest.lender}'s funding desk.` : "Nothing overdue.",
      },
      {
        id: "open_stips",
        label: `Open stips on ${new Set(c.openStips.map((s) => s.dealNumber)).size} deals`,
        value: c.openStips.length,
        unit: "count",
        benchmark: null,
        action: c.openStips.length > 0 ? "The BDC calls each customer for their missing documents today." : "No open stips.",
      },
    ],
  };
}

function lenderFlags(c: Context): Section {
  const env = c.pulse.lenderEnvironment;
  const late = pipeline(c).filter((d) => d.days > TRANSIT_TARGET_DAYS);
  const byLender = new Map<string, number>();
  for (const d of late) byLender.set(d.lender!, (byLender.get(d.lender!) ?? 0) + 1);
  const slowest = [...byLender.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  const rate = env.rates.find((r) => r.seriesId === "RIFLPBCIANM60NM");
  return {
    id: "lender_flags",
    title: "Lender flags",
    figures: [
      {
        id: "lender_environment_change",
        label: rate
          ? `60-month bank auto rate ${rate.value.toFixed(2)}% (${rate.asOf}), change over 3 readings: ${env.trend ?? "not enough history"}`
          : "60-month bank auto rate: no reading yet",
        value: env.changePts ?? 0,
        unit: "percent",
        benchmark: `±${env.thresholdPts} pt marks easing or tightening (docs/domain/reports.md#market-pulse-sources)`,
        action:
          env.trend === "tightening"
            ? "Tightening: expect lower advances; structure near-prime deals with more cash down."
            : env.trend === "easing"
              ? "Easing: re-submit recent near-prime declines."
              : "Stable: no change to deal structure.",
      },
      {
        id: "slow_funding_lender",
        label: slowest
          ? `Lender with most contracts past ${TRANSIT_TARGET_DAYS} days: ${slowest[0]}`
          : `Lenders with contracts past ${TRANSIT_TARGET_DAYS} days`,
        value: slowest?.[1] ?? 0,
        unit: "count",
        benchmark: null,
        action: slowest
          ? `Call ${slowest[0]}'s rep about the ${slowest[1]} late fundings; route marginal deals elsewhere until cleared.`
          : "No lender is late.",
      },
    ],
  };
}

function stipAlerts(c: Context): Section {
  const aged = c.openStips.filter((s) => daysSince(s.requestedOn, c.now) > STIP_ALERT_DAYS);
  const byType = new Map<string, number>();
  for (const s of c.openStips) byType.set(s.stip, (byType.get(s.stip) ?? 0) + 1);
  const common = [...byType.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  const received = c.openStips.filter((s) => s.state === "received").length;
  return {
    id: "stip_alerts",
    title: "Stip alerts",
    figures: [
      {
        id: "open_stips",
        label: `Stips not cleared (${received} received, awaiting lender review)`,
        value: c.openStips.length,
        unit: "count",
        benchmark: null,
        action: received > 0 ? `Push the lenders to clear the ${received} received stips today.` : "Nothing waiting on lenders.",
      },
      {
        id: "stips_past_sla",
        label: `Stips open more than ${STIP_ALERT_DAYS} days`,
        value: aged.length,
        unit: "count",
        benchmark: `funding SLA alert at day ${STIP_ALERT_DAYS} (docs/reports.md)`,
        action:
          aged.length > 0
            ? `Chase ${[...new Set(aged.map((s) => s.dealNumber))].slice(0, 3).join(", ")} first: missed stips are the main cause of funding delays.`
            : "None overdue.",
      },
      {
        id: "most_common_open_stip",
        label: common ? `Most common open stip: ${common[0]}` : "Most common open stip",
        value: common?.[1] ?? 0,
        unit: "count",
        benchmark: null,
        action: common ? `Collect ${common[0]} at signing on every new deal to stop the pattern.` : "None open.",
      },
    ],
  };
}

function fundingRisk(c: Context): Section {
  const waiting = pipeline(c);
  const late = waiting.filter((d) => d.days > TRANSIT_TARGET_DAYS);
  const subprime = waiting.filter((d) => d.beacon !== null && d.beacon < 601);
  const recent = c.deals.filter((d) => d.status !== "unwound" && inLastDays(d.soldOn, c.now, 30));
  const pru = avg(recent.map((d) => d.backGross));
  return {
    id: "funding_risk",
    title: "Funding risk",
    figures: [
      {
        id: "contracts_past_target",
        label: `Contracts in transit past ${TRANSIT_TARGET_DAYS} days, ${formatWholeUsd(sum(late.map((d) => d.amountFinanced ?? 0)))} financed`,
        value: late.length,
        unit: "count",
        benchmark: `≤ ${TRANSIT_TARGET_DAYS} days; special finance averages 14 (docs/domain/reports.md#briefing-kpis)`,
        action: late.length > 0 ? "Call each lender for the missing item and a funding date." : "Nothing past target.",
      },
      {
        id: "subprime_in_pipeline",
        label: "Subprime deals (beacon ≤ 600) waiting for funding",
        value: subprime.length,
        unit: "count",
        benchmark: null,
        action: subprime.length > 0 ? "Verify income and residence stips on these first: they are the likeliest to be re-contracted." : "None.",
      },
      {
        id: "fi_per_retail_unit",
        label: `F&I gross per retail unit, last 30 days (${recent.length} deals)`,
        value: Math.round(pru),
        unit: "usd",
        benchmark: `${formatWholeUsd(BENCHMARK_GPVR.fi)} national average (docs/domain/reports.md#briefing-kpis)`,
        action:
          pru < BENCHMARK_GPVR.fi
            ? `${formatWholeUsd(BENCHMARK_GPVR.fi - pru)} under the benchmark: present the full menu on every deal.`
            : "At or above the benchmark: keep the menu process.",
      },
    ],
  };
}

function stipCallbacks(c: Context): Section {
  const byDeal = new Map<string, OpenStip[]>();
  for (const s of c.openStips) if (s.state === "outstanding") byDeal.set(s.dealNumber, [...(byDeal.get(s.dealNumber) ?? []), s]);
  const calls = [...byDeal.entries()]
    .map(([dealNumber, stips]) => ({ dealNumber, stips, days: Math.max(...stips.map((s) => daysSince(s.requestedOn, c.now))) }))
    .sort((a, b) => b.days - a.days || a.dealNumber.localeCompare(b.dealNumber));
  const figures: Figure[] = [
    {
      id: "customers_to_call",
      label: "Customers with documents outstanding",
      value: calls.length,
      unit: "count",
      benchmark: null,
      action: calls.length > 0 ? "Call every one today; oldest first (below)." : "No callbacks needed.",
    },
    ...calls.slice(0, 4).map((call) => ({
      id: `callback_${call.dealNumber}`,
      label: `Deal ${call.dealNumber}: ${call.stips.map((s) => s.stip).join(", ")}`,
      value: call.days,
      unit: "days" as const,
      benchmark: `day ${STIP_ALERT_DAYS} funding SLA (docs/reports.md)`,
      action: `Call the customer for ${call.stips.map((s) => s.stip).join(" and ")}; offer a pick-up or upload link.`,
    })),
  ];
  return { id: "stip_callbacks", title: "Customers to call back about pending stips", figures };
}

// --- sales --------------------------------------------------------------------------------------

function monthWindows(now: Date) {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const dayOfMonth = now.getUTCDate();
  const monthStart = isoDay(Date.UTC(y, m, 1));
  const lastMonthStart = isoDay(Date.UTC(y, m - 1, 1));
  const lastMonthDays = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const lastMonthSamePoint = isoDay(Date.UTC(y, m - 1, Math.min(dayOfMonth, lastMonthDays)));
  const daysInMonth = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return { today: isoDay(now), monthStart, lastMonthStart, lastMonthSamePoint, dayOfMonth, daysInMonth };
}

function pace(c: Context): Section {
  const w = monthWindows(c.now);
  const sold = c.deals.filter((d) => d.status !== "unwound");
  const mtd = sold.filter((d) => d.soldOn >= w.monthStart && d.soldOn <= w.today).length;
  const lastSamePoint = sold.filter((d) => d.soldOn >= w.lastMonthStart && d.soldOn <= w.lastMonthSamePoint).length;
  const lastTotal = sold.filter((d) => d.soldOn >= w.lastMonthStart && d.soldOn < w.monthStart).length;
  const projected = Math.round((mtd / w.dayOfMonth) * w.daysInMonth);
  return {
    id: "pace",
    title: "Pace against last month",
    figures: [
      {
        id: "units_month_to_date",
        label: `Units retailed month to date (last month at this point: ${lastSamePoint})`,
        value: mtd,
        unit: "count",
        benchmark: null,
        action:
          mtd >= lastSamePoint
            ? "Ahead of last month: keep the appointment load."
            : `${lastSamePoint - mtd} behind: add a Saturday event and work the be-back list.`,
      },
      {
        id: "projected_month_end",
        label: `Projected month-end units (last month: ${lastTotal})`,
        value: projected,
        unit: "count",
        benchmark: null,
        action:
          projected >= lastTotal
            ? "On pace to match last month."
            : `Need ${Math.ceil((lastTotal - mtd) / Math.max(1, w.daysInMonth - w.dayOfMonth))} a day for the rest of the month to match last month.`,
      },
    ],
  };
}

function grossPerUnit(c: Context): Section {
  const w = monthWindows(c.now);
  const sold = c.deals.filter((d) => d.status !== "unwound");
  const mtd = sold.filter((d) => d.soldOn >= w.monthStart && d.soldOn <= w.today);
  const last = sold.filter((d) => d.soldOn >= w.lastMonthStart && d.soldOn < w.monthStart);
  const front = (deals: readonly BriefingDeal[], newUnits: boolean) =>
    Math.round(avg(deals.filter((d) => (d.condition === "new") === newUnits).map((d) => d.frontGross)));
  const figure = (id: string, label: string, value: number, lastValue: number, benchmark: number, fix: string): Figure => ({
    id,
    label: `${label} month to date (last month ${formatWholeUsd(lastValue)})`,
    value,
    unit: "usd",
    benchmark: `${formatWholeUsd(benchmark)} national average (docs/domain/reports.md#briefing-kpis)`,
    action:
      value < benchmark
        ? `${formatWholeUsd(benchmark - value)} under the benchmark${value < lastValue ? " and under last month" : ""}: ${fix}`
        : "At or above the benchmark: keep the process.",
  });
  return {
    id: "gross_per_unit",
    title: "Gross per unit",
    figures: [
      figure(
        "front_gross_new",
        "New front gross per unit",
        front(mtd, true),
        front(last, true),
        BENCHMARK_GPVR.new,
        "desk every new deal below it with a manager before it is quoted.",
      ),
      figure(
        "front_gross_used",
        "Used front gross per unit",
        front(mtd, false),
        front(last, false),
        BENCHMARK_GPVR.used,
        "hold the first pencil at the list price and trade at ACV.",
      ),
      figure(
        "back_gross",
        "F&I gross per unit",
        Math.round(avg(mtd.map((d) => d.backGross))),
        Math.round(avg(last.map((d) => d.backGross))),
        BENCHMARK_GPVR.fi,
        "turn every customer over to F&I and present the full menu.",
      ),
    ],
  };
}

/** The oldest sale any briefing reads: the first day of last month, or the velocity window's start if earlier. */
export function briefingDealsSince(now: Date): string {
  return isoDay(Math.min(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1), daysBefore(now, VELOCITY_WINDOW_DAYS).getTime()));
}
