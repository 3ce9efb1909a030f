/**
 * Market value of a trade (docs/domain/appraisal.md#valuation): from the organization's own
 * comparable units when there are enough of them, else from the depreciation model. Pure: rows and `now` in.
 */
import { daysSince } from "../dates";
import type { AppraisalReference, AppraisalSettings, AppraisalSubject, Comparable, ModelRetention, RetentionClass } from "./types";

/** Model-year age as docs/domain/appraisal.md#expected-miles counts it: current model year − year + 0.5, never below 0. */
export function vehicleAge(year: number, now: Date) {
  const whole = Math.max(0, now.getUTCFullYear() - year);
  return { whole, fractional: Math.max(0, now.getUTCFullYear() - year + 0.5) };
}

/** % of the new price retained at `age` years, interpolated between the curve's nearest points (one pass, no sort). */
export function residualPct(curve: AppraisalReference["retentionCurve"], age: number, floorPct: number): number {
  if (curve.length === 0) throw new Error("appraisal_retention_curve has no rows");
  let below = curve[0];
  let above = curve[0];
  for (const point of curve) {
    if (point.ageYears <= age && (below.ageYears > age || point.ageYears > below.ageYears)) below = point;
    if (point.ageYears >= age && (above.ageYears < age || point.ageYears < above.ageYears)) above = point;
  }
  // Outside the curve: its nearest end.
  if (below.ageYears > age) below = above;
  if (above.ageYears < age) above = below;
  const pct =
    above.ageYears === below.ageYears
      ? below.residualPct
      : below.residualPct + ((above.residualPct - below.residualPct) * (age - below.ageYears)) / (above.ageYears - below.ageYears);
  return Math.max(pct, floorPct);
}

/** The age the depreciation studies measure (iSeeCars' five-year studies): a class's loss scale holds up to it. */
export const STUDY_AGE_YEARS = 5;

/**
 * The age on the published figures' clock (docs/domain/appraisal.md#study-age): their "five-year-old" is
 * a model year sold five calendar years on, which this engine counts as five and a half. Past 5 + offset
 * every published age is read `offsetYears` later; the curve's first five years stretch over the first 5 + offset.
 */
export function studyAge(age: number, offsetYears: number): number {
  const pinned = STUDY_AGE_YEARS + offsetYears;
  return age <= pinned ? (age * STUDY_AGE_YEARS) / pinned : age - offsetYears;
}

/**
 * How a vehicle falls after five years (docs/domain/appraisal.md#after-five-years): a published series
 * (the model's, its make's or all vehicles') of losses at later ages, each read against the same
 * source's five-year loss.
 */
export interface RetentionShape {
  of: "model" | "make" | "all vehicles";
  fiveYear: ModelRetention;
  /** Ages past five, youngest first. */
  later: ModelRetention[];
}

/**
 * The class's retained share (docs/domain/appraisal.md#retention-by-class): up to five years the
 * curve's loss × the class's loss scale, which the five-year studies measure; after five, the
 * five-year share × what the published series keeps at the age of what it kept at five, then the
 * curve's own yearly rate past the series' last age (or with no series).
 */
export function classResidualPct(
  curve: AppraisalReference["retentionCurve"],
  age: number,
  floorPct: number,
  lossScale: number,
  shape: RetentionShape | null = null,
): number {
  const scaled = (at: number) => 100 - (100 - residualPct(curve, at, 0)) * lossScale;
  const pct = age <= STUDY_AGE_YEARS ? scaled(age) : scaled(STUDY_AGE_YEARS) * shareOfFiveYear(curve, age, shape);
  return Math.max(floorPct, pct);
}

/** What a unit `age` (> 5) years old keeps of its five-year share: the series' ratios, interpolated; past its last age, the curve's yearly rate. */
function shareOfFiveYear(curve: AppraisalReference["retentionCurve"], age: number, shape: RetentionShape | null): number {
  let from = { age: STUDY_AGE_YEARS, share: 1 };
  for (const point of shape?.later ?? []) {
    const share = (100 - point.pctValueLost) / (100 - (shape?.fiveYear.pctValueLost ?? 0));
    if (age <= point.ageYears) return from.share + ((share - from.share) * (age - from.age)) / (point.ageYears - from.age);
    from = { age: point.ageYears, share };
  }
  return (from.share * residualPct(curve, age, 0)) / residualPct(curve, from.age, 0);
}

/** Miles a unit of `age` is expected to have: each age band's yearly miles over the years spent in it (docs/domain/appraisal.md#expected-miles). */
function expectedMiles(schedule: AppraisalReference["expectedMiles"], age: number): number {
  if (schedule.length === 0) throw new Error("appraisal_expected_miles has no rows");
  const bands = bandsByAge(schedule);
  return bands.reduce((miles, band, i) => {
    const until = Math.min(age, bands[i + 1]?.fromAgeYears ?? Number.POSITIVE_INFINITY);
    return miles + band.milesPerYear * Math.max(0, until - band.fromAgeYears);
  }, 0);
}

type MilesBand = AppraisalReference["expectedMiles"][number];

/** The schedule's bands by age, sorted once per table copy (a comparable sold without its odometer asks for each). */
const sortedSchedules = new WeakMap<readonly MilesBand[], MilesBand[]>();

function bandsByAge(schedule: readonly MilesBand[]): MilesBand[] {
  let bands = sortedSchedules.get(schedule);
  if (!bands) {
    bands = [...schedule].sort((a, b) => a.fromAgeYears - b.fromAgeYears);
    sortedSchedules.set(schedule, bands);
  }
  return bands;
}

/** Words in a model or trim that say the engine is a diesel (docs/domain/appraisal.md#class-from-the-vehicle). */
const DIESEL_WORDS = /\b(diesel|duramax|power ?stroke|cummins|tdi|ecodiesel)\b/;

/** What the appraisal takes the vehicle to be: its new-price class, its fuel and body, and the curve it is on. */
export interface VehicleClass {
  classKey: string;
  /** How specific the class match was: the model itself, the decoded body and fuel, the make's fallback, or the last resort. */
  classMatch: "model" | "body" | "make" | "default";
  /** The model-table row's model that matched ("911" for "911 Carrera S"); null off the model table. */
  matchedModel: string | null;
  newPrice: number;
  /** Whether the class takes the step beyond the high-mileage threshold (not a diesel heavy-duty pickup). */
  highMileageStep: boolean;
  /** False: no published study measures the price class's retention (heavy-duty pickups, full-size vans). */
  retentionMeasured: boolean;
  /** The trim the name gives that the model row lists as priced far above its class ("rubicon"); null: none. */
  trimAboveClass: string | null;
  /**
   * A VIN decode whose trim is a list, with no typed trim to settle it: the list, and those of its trims
   * priced above the class that priced the unit (listed far above it, or with a dearer price row of their own).
   */
  undecidedTrims: { choices: string[]; aboveClass: string[] } | null;
  fuelType: string;
  bodyClass: string;
  /** The curve: the class's, its loss scale replaced by the model's (or its make's) own published figure when there is one. */
  retention: RetentionClass;
  /** The published five-year figure that set the loss scale: the model's, else its make's (model `*`); null: the class's. */
  modelRetention: ModelRetention | null;
  /** The published series that says how it falls after five; null: the curve's yearly rate. */
  shape: RetentionShape | null;
}

/**
 * The class from the vehicle, not the make (docs/domain/appraisal.md#class-from-the-vehicle): the
 * model table (longest leading words of the model) or the make's fallback sets the new-price class,
 * body and fuel; a VIN decode's fuel and body win over the table's; a class word in the name, then
 * the fuel, then the price class choose the retention class; a model's published five-year loss
 * replaces the class's loss scale.
 */
export function vehicleClassFor(reference: AppraisalReference, subject: AppraisalSubject): VehicleClass {
  const tables = retentionClassTables(reference.retentionClasses);
  // The trim first: a trim the model table names ("Model 3" + "Performance") has its own new price.
  const candidates = modelCandidates(subject.trim ? `${subject.model} ${subject.trim}` : subject.model, tables.allClassWords);
  const index = modelClassIndex(reference.modelClasses);
  const find = (make: string, model: string) => rowFor(index, make, model, subject.year);
  const byModel = candidates.map((model) => find(subject.make, model)).find((row) => row !== undefined);
  const name = `${subject.model} ${subject.trim ?? ""}`.toLowerCase();
  // Off the model table, what the decode says the vehicle is (a pickup, an EV) prices it before its make does.
  const byMake = find(subject.make, "*");
  // …unless the make's fallback names the same body (a Land Rover SUV is a luxury SUV, a BMW sedan a luxury car).
  const makeFits = byMake !== undefined && byMake.bodyClass !== "" && byMake.bodyClass === subject.bodyClass;
  const byBody = byModel || makeFits ? undefined : bodyFallbackClass(reference.priceClasses, subject.bodyClass ?? "", subject.fuelType ?? "");
  // Only a row that is `*`/`*` as written: the key lower-cases, which changes neither.
  const row = byModel ?? (byBody ? { classKey: byBody.classKey, bodyClass: "", fuelType: "" } : undefined) ?? byMake ?? find("*", "*");
  if (!row) throw new Error("appraisal_model_classes has no `*`/`*` row");
  const fuelType = subject.fuelType || (DIESEL_WORDS.test(name) ? "diesel" : "") || (byModel ? row.fuelType : "");
  // A diesel takes its class's `_diesel` new price when the table has one (heavy-duty pickups).
  const priced =
    (fuelType === "diesel" ? reference.priceClasses.find((p) => p.classKey === `${row.classKey}_diesel`) : undefined) ??
    reference.priceClasses.find((p) => p.classKey === row.classKey);
  if (!priced) throw new Error(`appraisal_price_classes has no row for ${row.classKey}`);
  const words = new Set(name.split(/[^a-z0-9-]+/));
  const classRow = tables.steepestFirst.find(({ words: classWords }) => classWords.some((word) => words.has(word)))?.row ??
    tables.steepestFirst.find(({ fuels }) => fuelType !== "" && fuels.includes(fuelType))?.row ??
    reference.retentionClasses.find((r) => r.retentionClass === priced.retentionClass) ?? {
      retentionClass: priced.retentionClass,
      lossScale: 1,
      lowMileageBonus: true,
      nameWords: "",
      fuelTypes: "",
    };
  const retentionIndex = modelRetentionIndex(reference.modelRetention);
  const isEv = classRow.retentionClass === "ev";
  // A gas model's figure does not price its electric namesake (the F-150's, a Lightning): an EV takes
  // a model figure only where the model table says the figure's model is electric (the Model 3's, a Performance).
  const ofModel = candidates
    .filter((model) => !isEv || find(subject.make, model)?.fuelType === "electric")
    .map((model) => retentionIndex.get(modelKey(subject.make, model)))
    .find((series) => series !== undefined);
  // A make's figure is its gas and hybrid fleet's: an EV of the make keeps the EV class.
  const ofMake = isEv ? undefined : retentionIndex.get(modelKey(subject.make, "*"));
  const modelRetention = ofModel?.fiveYear ?? ofMake?.fiveYear ?? null;
  const shape =
    [
      { of: "model" as const, series: ofModel },
      { of: "make" as const, series: ofMake },
      { of: "all vehicles" as const, series: retentionIndex.get(modelKey("*", "*")) },
    ]
      .map(({ of, series }) => (series?.fiveYear && series.later.length > 0 ? { of, fiveYear: series.fiveYear, later: series.later } : null))
      .find((found) => found !== null) ?? null;
  // The model's five-year loss against its own study's all-vehicle loss, applied to today's all-vehicle
  // loss (the standard class's scale): each study's market level cancels out (docs/domain/appraisal.md#model-retention).
  const allVehicles = reference.retentionClasses.find((r) => r.retentionClass === "standard")?.lossScale ?? 1;
  const retention = modelRetention
    ? { ...classRow, lossScale: round3((modelRetention.pctValueLost / modelRetention.overallPctValueLost) * allVehicles) }
    : classRow;
  return {
    classKey: priced.classKey,
    classMatch: byModel ? "model" : byBody ? "body" : byMake ? "make" : "default",
    matchedModel: byModel ? byModel.model : null,
    newPrice: priced.newPrice,
    highMileageStep: priced.highMileageStep,
    retentionMeasured: priced.retentionMeasured,
    trimAboveClass: byModel ? trimAboveClass(byModel, name) : null,
    undecidedTrims:
      byModel && !subject.trim && subject.decodedTrims && subject.decodedTrims.length > 1
        ? undecidedTrims(reference, find, tables.allClassWords, subject, byModel, priced.newPrice)
        : null,
    fuelType,
    bodyClass: subject.bodyClass || (byModel ? row.bodyClass : ""),
    retention,
    modelRetention,
    shape,
  };
}

/**
 * The trim in the name that the matched model row lists as priced far above its class, outside the
 * row's own name: a row that names the trim ("Wrangler Unlimited Rubicon") has its own price
 * (docs/domain/appraisal.md#trims-above-their-class).
 */
function trimAboveClass(row: ModelClassRow, name: string): string | null {
  const padded = ` ${name
    .split(/[^a-z0-9-]+/)
    .filter(Boolean)
    .join(" ")} `;
  const own = ` ${row.model.toLowerCase()} `;
  return commaList(row.aboveClassTrims).find((trim) => padded.includes(` ${trim} `) && !own.includes(` ${trim} `)) ?? null;
}

/**
 * Which of a decoded trim list would be priced above the class that priced the unit: a trim the model row
 * lists as far above its class, or one with its own, dearer price row ("Wrangler Unlimited" + "Rubicon")
 * (docs/domain/appraisal.md#a-decoded-trim-list).
 */
function undecidedTrims(
  reference: AppraisalReference,
  find: (make: string, model: string) => ModelClassRow | undefined,
  classWords: ReadonlySet<string>,
  subject: AppraisalSubject,
  row: ModelClassRow,
  classPrice: number,
): { choices: string[]; aboveClass: string[] } {
  const choices = subject.decodedTrims ?? [];
  const dearerRow = (trim: string) =>
    modelCandidates(`${subject.model} ${trim}`, classWords)
      .map((model) => find(subject.make, model))
      .find(
        (found) =>
          found !== undefined && found !== row && (reference.priceClasses.find((p) => p.classKey === found.classKey)?.newPrice ?? 0) > classPrice,
      );
  const aboveClass = choices.filter(
    (trim) => trimAboveClass(row, `${subject.model} ${trim}`.toLowerCase()) !== null || dearerRow(trim) !== undefined,
  );
  return { choices, aboveClass };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/**
 * The price class whose fallback body and fuel a decoded vehicle has, the most specific first (body
 * and fuel, then fuel, then body); none when the decode said neither or no class claims it.
 */
function bodyFallbackClass(classes: AppraisalReference["priceClasses"], bodyClass: string, fuelType: string) {
  const score = (p: AppraisalReference["priceClasses"][number]) => {
    if (!p.fallbackBodyClass && !p.fallbackFuelType) return 0;
    if (p.fallbackBodyClass && p.fallbackBodyClass !== bodyClass) return 0;
    if (p.fallbackFuelType && p.fallbackFuelType !== fuelType) return 0;
    // The fuel says more about the price than the body: an electric sedan is priced as an EV, not a midsize car.
    return (p.fallbackBodyClass ? 1 : 0) + (p.fallbackFuelType ? 2 : 0);
  };
  return classes.reduce<{ row: AppraisalReference["priceClasses"][number]; score: number } | null>((best, p) => {
    const s = score(p);
    return s > 0 && (!best || s > best.score) ? { row: p, score: s } : best;
  }, null)?.row;
}

/** "911 Carrera S" → "911 Carrera S", "911 Carrera", "911"; then the same without class words ("RAV4 Hybrid" → "RAV4"). The model and trim are read as one name. */
function modelCandidates(model: string, classWords: ReadonlySet<string>): string[] {
  const words = model.trim().split(/\s+/);
  const base = words.filter((word) => !classWords.has(word.toLowerCase()));
  const prefixes = (list: string[]) => list.map((_, i) => list.slice(0, list.length - i).join(" "));
  return [...new Set([...prefixes(words), ...prefixes(base)])];
}

/**
 * USD to add for being `referenceMiles − actualMiles` under the reference (negative when over):
 * a per-mile rate that rises with value and falls with age, capped at +10% / −30% of the value
 * (docs/domain/appraisal.md#mileage-adjustment-caps); no bonus at all for a class that takes none (EVs).
 */
function mileageAdjustment(
  settings: AppraisalSettings,
  baseValue: number,
  wholeAge: number,
  referenceMiles: number,
  actualMiles: number,
  lowMileageBonus: boolean,
) {
  const ageFactor = wholeAge <= 3 ? 1 : wholeAge <= 7 ? settings.mileageFactorAge4To7 : settings.mileageFactorAge8Plus;
  const ratePerMile = Math.max(settings.mileageRateFloor, (settings.mileageRatePer25k * baseValue) / 25_000) * ageFactor;
  const bonusCap = lowMileageBonus ? (settings.mileageBonusCapPct / 100) * baseValue : 0;
  const deductionCap = (settings.mileageDeductionCapPct / 100) * baseValue;
  const amount = Math.min(bonusCap, Math.max(-deductionCap, (referenceMiles - actualMiles) * ratePerMile));
  return { amount, ratePerMile };
}

const highMileagePenalty = (settings: AppraisalSettings, vehicle: VehicleClass, baseValue: number, miles: number) =>
  vehicle.highMileageStep && miles > settings.highMileageThreshold ? (settings.highMileagePenaltyPct / 100) * baseValue : 0;

export interface ComparablesValuation {
  method: "comparables";
  value: number;
  comps: number;
  inStock: number;
  sold: number;
  /** Days since the most recent sale among the comparables; null when none was sold. */
  latestSaleDaysAgo: number | null;
  yearRange: [number, number];
  vehicle: VehicleClass;
  /** False: the notes say the odometer is not actual, so a low mileage earned nothing. */
  mileageBonus: boolean;
  olderFloor: OlderFloor | null;
}

/**
 * Median of the comparables, each moved to the subject's model year (its class's curve) and mileage;
 * `odometerTrusted` false (a title or odometer brand) takes away any low-mileage bonus.
 */
export function valueFromComparables(
  subject: AppraisalSubject,
  comps: readonly Comparable[],
  reference: AppraisalReference,
  now: Date,
  odometerTrusted = true,
): ComparablesValuation {
  const own = comparablesValuationAt(subject, comps, reference, now, odometerTrusted);
  return neverBelowOlder(own, subject.year, (year) => comparablesValuationAt({ ...subject, year }, comps, reference, now, odometerTrusted).value);
}

function comparablesValuationAt(
  subject: AppraisalSubject,
  comps: readonly Comparable[],
  reference: AppraisalReference,
  now: Date,
  odometerTrusted: boolean,
): ComparablesValuation {
  const { settings, retentionCurve } = reference;
  const vehicle = vehicleClassFor(reference, subject);
  const { retention } = vehicle;
  const mileageBonus = retention.lowMileageBonus && odometerTrusted;
  const residual = (age: number) =>
    classResidualPct(retentionCurve, studyAge(age, settings.studyAgeOffsetYears), settings.residualFloorPct, retention.lossScale, vehicle.shape);
  const age = vehicleAge(subject.year, now);
  const subjectResidual = residual(age.fractional);
  const adjusted = comps.map((comp) => {
    const compAge = vehicleAge(comp.year, now);
    const yearAdjusted = (comp.price * subjectResidual) / residual(compAge.fractional);
    const compMiles = comp.mileage ?? expectedMiles(reference.expectedMiles, compAge.fractional);
    // Only the part of the beyond-150k discount the comparable did not already carry.
    const penalty =
      highMileagePenalty(settings, vehicle, yearAdjusted, subject.mileage) - highMileagePenalty(settings, vehicle, yearAdjusted, compMiles);
    return yearAdjusted + mileageAdjustment(settings, yearAdjusted, age.whole, compMiles, subject.mileage, mileageBonus).amount - penalty;
  });
  const sorted = adjusted.sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const saleDays = comps.filter((comp) => comp.source === "sold").map((comp) => daysSince(comp.observedOn, now));
  const years = comps.map((comp) => comp.year);
  return {
    method: "comparables",
    value: Math.max(settings.valueFloor, Math.round(median)),
    comps: comps.length,
    inStock: comps.length - saleDays.length,
    sold: saleDays.length,
    latestSaleDaysAgo: saleDays.length > 0 ? Math.min(...saleDays) : null,
    yearRange: [Math.min(...years), Math.max(...years)],
    vehicle,
    mileageBonus,
    olderFloor: null,
  };
}

/**
 * A unit is never valued below the same unit (miles, notes) of an older model year
 * (docs/domain/appraisal.md#an-older-unit-is-never-worth-more): the mileage rate steps down at 4 and 8
 * years and the expected miles grow with age, so a young unit far over its expected miles could
 * otherwise price under an older one with the same miles. Its figure is then the highest older one,
 * and says which year that is.
 */
function neverBelowOlder<V extends { value: number; olderFloor: OlderFloor | null }>(own: V, year: number, valueAt: (year: number) => number): V {
  let floor: OlderFloor | null = null;
  for (let older = year - 1; older >= OLDEST_MODEL_YEAR; older--) {
    const value = valueAt(older);
    if (value > own.value && (!floor || value > floor.value)) floor = { year: older, value };
  }
  return floor ? { ...own, value: floor.value, olderFloor: floor } : own;
}

/**
 * Every older model year down to the oldest one appraised (the 17-character VIN era, as the request
 * accepts): a fixed bound, so a newer unit is held against every year an older one is.
 */
const OLDEST_MODEL_YEAR = 1981;

/** The older model year whose higher figure the unit was raised to. */
interface OlderFloor {
  year: number;
  value: number;
}

export interface ModelValuation {
  method: "depreciation_model";
  value: number;
  olderFloor: OlderFloor | null;
  vehicle: VehicleClass;
  mileageBonus: boolean;
  ageYears: number;
  /** The age on the published figures' clock (studyAge): what the five-year and later figures are read at. */
  studyAgeYears: number;
  residualPct: number;
  /** New price × class residual × regional index: the class curve, before the mileage. */
  classCurveValue: number;
  regionalIndex: number;
  regionLabel: string;
  expectedMiles: number;
  mileageAdjustment: number;
  highMileagePenalty: number;
}

const commaList = (text: string) =>
  text
    .split(",")
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);

/*
 * The reference tables are an organization's, kept by the service for a minute and reused across
 * calls (docs/appraisal.md): what every call would derive from a table is derived once per table,
 * as the recon keywords are (recon.ts). Matching a make and model scanned the 141 model rows three
 * times per call, lower-casing both sides of every comparison.
 */

interface RetentionClassTables {
  /** The steepest class first: a name that says both "electric" and "hybrid" is priced as the riskier. */
  steepestFirst: { row: RetentionClass; words: string[]; fuels: string[] }[];
  allClassWords: ReadonlySet<string>;
}

const retentionClassTablesByTable = new WeakMap<readonly RetentionClass[], RetentionClassTables>();

function retentionClassTables(classes: readonly RetentionClass[]): RetentionClassTables {
  let tables = retentionClassTablesByTable.get(classes);
  if (!tables) {
    const steepestFirst = [...classes]
      .sort((a, b) => b.lossScale - a.lossScale)
      .map((row) => ({ row, words: commaList(row.nameWords), fuels: commaList(row.fuelTypes) }));
    tables = { steepestFirst, allClassWords: new Set(steepestFirst.flatMap(({ words }) => words)) };
    retentionClassTablesByTable.set(classes, tables);
  }
  return tables;
}

type ModelClassRow = AppraisalReference["modelClasses"][number];

/**
 * Rows by lower-cased make and model (`*` for a make's fallback row), those for some model years only first
 * (docs/domain/appraisal.md#depreciation-model: a model year whose price stood far from today's); otherwise the
 * first row of a pair wins, as a scan in table order would find it.
 */
const modelClassIndexes = new WeakMap<readonly ModelClassRow[], Map<string, ModelClassRow[]>>();
const modelKey = (make: string, model: string) => `${make.toLowerCase()}\u0000${model.toLowerCase()}`;
const forSomeYears = (row: ModelClassRow) => row.modelYearFrom !== null || row.modelYearTo !== null;

function modelClassIndex(rows: readonly ModelClassRow[]): Map<string, ModelClassRow[]> {
  let index = modelClassIndexes.get(rows);
  if (!index) {
    index = new Map();
    for (const row of [...rows.filter(forSomeYears), ...rows.filter((row) => !forSomeYears(row))]) {
      const key = modelKey(row.make, row.model);
      index.set(key, [...(index.get(key) ?? []), row]);
    }
    modelClassIndexes.set(rows, index);
  }
  return index;
}

/** The model's row for the model year: one for the year's range, else one for every year. */
const rowFor = (index: Map<string, ModelClassRow[]>, make: string, model: string, year: number) =>
  index.get(modelKey(make, model))?.find((row) => (row.modelYearFrom ?? year) <= year && year <= (row.modelYearTo ?? year));

/** One model's (make's, all vehicles') published figures: the five-year one, and the later ones youngest first. */
interface RetentionSeries {
  fiveYear: ModelRetention | undefined;
  later: ModelRetention[];
}

const modelRetentionIndexes = new WeakMap<readonly ModelRetention[], Map<string, RetentionSeries>>();

function modelRetentionIndex(rows: readonly ModelRetention[]): Map<string, RetentionSeries> {
  let index = modelRetentionIndexes.get(rows);
  if (!index) {
    index = new Map();
    for (const row of [...rows].sort((a, b) => a.ageYears - b.ageYears)) {
      const key = modelKey(row.make, row.model);
      const series = index.get(key) ?? { fiveYear: undefined, later: [] };
      // Ages under five say nothing the five-year figure does not: the curve shapes the first five years.
      if (row.ageYears === STUDY_AGE_YEARS) series.fiveYear = row;
      else if (row.ageYears > STUDY_AGE_YEARS) series.later.push(row);
      index.set(key, series);
    }
    modelRetentionIndexes.set(rows, index);
  }
  return index;
}

/** The longest ZIP prefix in the index that `zip` starts with; none: a neutral 1.00. */
function regionalIndexFor(reference: AppraisalReference, zip: string) {
  const match = reference.regionalIndex.filter((row) => zip.startsWith(row.zipPrefix)).sort((a, b) => b.zipPrefix.length - a.zipPrefix.length)[0];
  return match ? { index: match.marketIndex, label: match.label } : { index: 1, label: "no regional index" };
}

/** New-price class × the class's retained share × regional index, then the mileage (docs/domain/appraisal.md#depreciation-model). */
export function valueFromModel(
  subject: AppraisalSubject,
  zip: string,
  reference: AppraisalReference,
  now: Date,
  odometerTrusted = true,
): ModelValuation {
  const own = modelValuationAt(subject, zip, reference, now, odometerTrusted);
  return neverBelowOlder(own, subject.year, (year) => modelValuationAt({ ...subject, year }, zip, reference, now, odometerTrusted).value);
}

function modelValuationAt(
  subject: AppraisalSubject,
  zip: string,
  reference: AppraisalReference,
  now: Date,
  odometerTrusted: boolean,
): ModelValuation {
  const { settings } = reference;
  const vehicle = vehicleClassFor(reference, subject);
  const { retention } = vehicle;
  const mileageBonus = retention.lowMileageBonus && odometerTrusted;
  const age = vehicleAge(subject.year, now);
  const onStudyClock = studyAge(age.fractional, settings.studyAgeOffsetYears);
  const residual = classResidualPct(reference.retentionCurve, onStudyClock, settings.residualFloorPct, retention.lossScale, vehicle.shape);
  const region = regionalIndexFor(reference, zip);
  const base = vehicle.newPrice * (residual / 100) * region.index;
  const expected = expectedMiles(reference.expectedMiles, age.fractional);
  const adjustment = mileageAdjustment(settings, base, age.whole, expected, subject.mileage, mileageBonus).amount;
  const penalty = highMileagePenalty(settings, vehicle, base, subject.mileage);
  return {
    method: "depreciation_model",
    value: Math.max(settings.valueFloor, Math.round(base + adjustment - penalty)),
    olderFloor: null,
    vehicle,
    mileageBonus,
    ageYears: age.fractional,
    studyAgeYears: onStudyClock,
    residualPct: residual,
    classCurveValue: Math.round(base),
    regionalIndex: region.index,
    regionLabel: region.label,
    expectedMiles: Math.round(expected),
    mileageAdjustment: Math.round(adjustment),
    highMileagePenalty: Math.round(penalty),
  };
}
