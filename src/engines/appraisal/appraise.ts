/**
 * A trade appraisal (docs/domain/appraisal.md#max-acquisition): market value, recon, then what the
 * unit may cost so that, retailed at market, it still earns the store's target front gross after
 * recon, pack and holding cost, and the opening number below that. Every running unit also has a
 * wholesale figure (its auction value less recon, fees and a margin); a unit the notes take to
 * wholesale (frame, flood, a title or odometer brand, airbag, not running), or one the retail figure
 * cannot beat the wholesale figure on, is bought at the wholesale figure. Every figure is
 * explained in the note, in the rules page's words.
 */
import { formatCount, formatWholeUsd } from "../format";
import { dailyHoldingCost, holdingFiguresOf } from "../holding-cost";
import { estimateRecon, type ReconEstimate } from "./recon";
import type { AppraisalReference, AppraisalSubject, Comparable, PhotoAnalysis, StoreEconomics } from "./types";
import {
  type ComparablesValuation,
  type ModelValuation,
  type RetentionShape,
  STUDY_AGE_YEARS,
  type VehicleClass,
  valueFromComparables,
  valueFromModel,
  vehicleAge,
  vehicleClassFor,
} from "./valuation";

export interface AppraisalInput {
  subject: AppraisalSubject;
  /** The caller's market ZIP, else the store's. */
  marketZip: string;
  store: StoreEconomics;
  reference: AppraisalReference;
  comps: readonly Comparable[];
  photos: PhotoAnalysis;
  now: Date;
}

export interface Appraisal {
  marketValue: number;
  valuation: ComparablesValuation | ModelValuation;
  recon: ReconEstimate;
  maxAcquisition: number;
  negotiationFloor: number;
  /** What the unit brings at auction less recon, fees and a margin; never below the floor a running unit brings. */
  wholesaleValue: number;
  /** `wholesale`: a condition in the notes rules out retail, or retail cannot beat the wholesale figure. */
  appraisedTo: "retail" | "wholesale";
  manualInspectionRequired: boolean;
  /** Why a person must see the unit before the number stands, in the note's words. */
  manualInspectionReasons: string[];
  confidence: "low" | "medium" | "high";
  note: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const pct = (value: number) => `${Number(value.toFixed(1))}%`;

/**
 * Trim moves price within a model, so the subject's own trim prices it when enough comparables
 * share it; otherwise every trim of the model does.
 */
function comparablesOfTrim(subject: AppraisalSubject, comps: readonly Comparable[], minComps: number) {
  const trim = subject.trim?.toLowerCase();
  const sameTrim = trim ? comps.filter((comp) => comp.trim?.toLowerCase() === trim) : [];
  return sameTrim.length >= minComps ? { comps: sameTrim, sameTrim: true } : { comps, sameTrim: false };
}

/**
 * "(retention class ev: the curve's loss × 1.069 to five years; after five …)", or the model's (or its
 * make's) own figure: "(Jeep Wrangler's own curve: iSeeCars 2020, 32.8% lost in five years against 49.1%
 * for all vehicles; the curve's loss × 0.554 to five years; after five …)": every figure that priced the age.
 */
function retentionWords({ retention, modelRetention, shape }: VehicleClass, ageYears: number): string {
  const bonus = retention.lowMileageBonus ? "" : ", no low-mileage bonus";
  const after = ageYears > STUDY_AGE_YEARS ? afterFiveWords(shape, ageYears) : "";
  if (modelRetention) {
    const { make, model, studyYear, publisher, pctValueLost, overallPctValueLost } = modelRetention;
    const whose = model === "*" ? `${make}'s own figure, for every ${make} without one of its own` : `${make} ${model}'s own curve`;
    return (
      ` (${whose}: ${publisher} ${studyYear}, ${pct(pctValueLost)} lost in five years against ${pct(overallPctValueLost)} for all vehicles; ` +
      `the curve's loss × ${retention.lossScale} to five years${after}${bonus})`
    );
  }
  if (retention.lossScale === 1 && retention.lowMileageBonus && !after) return "";
  return ` (retention class ${retention.retentionClass}: the curve's loss × ${retention.lossScale} to five years${after}${bonus})`;
}

/**
 * "; after five as CarEdge 2024 measured Toyota: 41.6% lost at 7 years, 54.16% at 10 and 60.41% at 12
 * against its 30.69% at five": the published series that priced an age past five, and the curve's
 * yearly rate (DEFAULT) past its last age (docs/domain/appraisal.md#after-five-years).
 */
function afterFiveWords(shape: RetentionShape | null, ageYears: number): string {
  if (!shape) return "; after five, the curve's yearly rate (DEFAULT −8% a year)";
  const { publisher, studyYear, make, model, pctValueLost } = shape.fiveYear;
  const whose = shape.of === "all vehicles" ? "all vehicles (the mean of the published series)" : shape.of === "make" ? make : `the ${make} ${model}`;
  const points = shape.later.map((point) => `${pct(point.pctValueLost)} at ${point.ageYears}`);
  const last = shape.later[shape.later.length - 1].ageYears;
  const beyond = ageYears > last ? `, then the curve's yearly rate past ${last} years (DEFAULT −8% a year)` : "";
  return `; after five as ${publisher} ${studyYear} measured ${whose}: ${points.join(", ")} years lost against ${pct(pctValueLost)} at five${beyond}`;
}

/** ": hybrid hatchback": what the class was chosen from, when the model table or a decode said it. */
function vehicleWords(vehicle: VehicleClass): string {
  const said = [vehicle.fuelType, vehicle.bodyClass].filter(Boolean).join(" ");
  return said ? `: ${said}` : "";
}

/** Why the model's value is a guess: the make's fallback class or the generic class (docs/domain/appraisal.md#unknown-vehicles). */
function unknownVehicleReason(subject: AppraisalSubject, vehicle: VehicleClass): string | null {
  const name = `${subject.make} ${subject.model}`;
  switch (vehicle.classMatch) {
    case "model":
      return null;
    case "body":
      return `${name} is not in the model table, so it is priced on the class its VIN decode's body and fuel fall in (${vehicleWords(vehicle).slice(2)}: ${vehicle.classKey}): confidence low until someone prices the model`;
    case "make":
      return `${name} is not in the model table, so it is priced on ${subject.make}'s fallback class ${vehicle.classKey}: confidence low until someone prices the model`;
    case "default":
      return `${name} is not in the model table and its make has no class, so it is priced on the generic class: confidence low until someone prices the vehicle`;
  }
}

/**
 * A model that keeps far more than the average (its published loss under the settings' share of its
 * study's), older than the five years the study measured: collector demand sets its price, so the
 * curve's figure is a guess (docs/domain/appraisal.md#model-retention).
 */
function outlierModelReason(valuation: ModelValuation, settings: AppraisalReference["settings"]): string | null {
  const { modelRetention: measured, shape } = valuation.vehicle;
  // The model's own figures past five say what its market does at those ages: only past them is the number a guess.
  const measuredTo = shape?.of === "model" ? shape.later[shape.later.length - 1].ageYears : STUDY_AGE_YEARS;
  if (!measured || valuation.studyAgeYears <= measuredTo) return null;
  const ratio = measured.pctValueLost / measured.overallPctValueLost;
  if (ratio >= settings.outlierRetentionRatio) return null;
  return (
    `the ${measured.make} ${measured.model} lost ${pct(measured.pctValueLost)} in five years against ${pct(measured.overallPctValueLost)} for all vehicles (${measured.publisher} ${measured.studyYear}), ` +
    `and this one is ${valuation.ageYears} years old, past what the study measured: demand for the model, not a curve, sets its price, so confidence is low until someone checks the market`
  );
}

/**
 * An older unit that no published figure of its own model measures at its age, priced on the curve:
 * the audit found such units near trade-in value, under dealer retail (docs/domain/appraisal.md#older-units).
 */
function olderUnitReason(subject: AppraisalSubject, valuation: ModelValuation, settings: AppraisalReference["settings"]): string | null {
  const { shape, modelRetention } = valuation.vehicle;
  const ownModel = modelRetention !== null && modelRetention.model !== "*";
  const measuredTo = shape?.of === "model" ? shape.later[shape.later.length - 1].ageYears : ownModel ? STUDY_AGE_YEARS : 0;
  if (valuation.ageYears < settings.retailCheckAgeYears || valuation.studyAgeYears <= measuredTo) return null;
  const series = shape
    ? `${shape.of === "all vehicles" ? "all vehicles'" : `${subject.make}'s`} published losses past five years`
    : "the class curve";
  return (
    `this unit is ${valuation.ageYears} years old and no published figure of the ${subject.make} ${subject.model} itself measures that age (it is priced on ${series}): ` +
    `units of ${settings.retailCheckAgeYears} years and older priced this way came in under dealer retail, near trade-in value, in the audit, so confidence is low until someone checks a book's retail figure`
  );
}

/**
 * A trim the model row lists as priced far above its class, with no price row of its own: the class's
 * price values it as a lesser trim (docs/domain/appraisal.md#trims-above-their-class).
 */
function trimAboveClassReason(subject: AppraisalSubject, vehicle: VehicleClass): string | null {
  if (!vehicle.trimAboveClass) return null;
  return (
    `trim priced above its class; no published new price for it: "${vehicle.trimAboveClass}" on the ${subject.make} ${vehicle.matchedModel} stands more than 25% over ` +
    `new-price class ${vehicle.classKey} (${formatWholeUsd(vehicle.newPrice)} new), which prices it as a lesser trim, so confidence is low until someone prices the trim`
  );
}

/**
 * A VIN decode whose trim is a list that includes a trim priced above the class that priced the unit, with no
 * typed trim to settle it (docs/domain/appraisal.md#a-decoded-trim-list).
 */
function undecidedTrimReason(subject: AppraisalSubject, vehicle: VehicleClass): string | null {
  const undecided = vehicle.undecidedTrims;
  if (!undecided || undecided.aboveClass.length === 0) return null;
  const which = undecided.aboveClass.join(" and ");
  return (
    `the VIN does not tell which of ${undecided.choices.join(", ")}; ${which} ${undecided.aboveClass.length === 1 ? "is" : "are"} priced above its class ` +
    `(${vehicle.classKey}, ${formatWholeUsd(vehicle.newPrice)} new, which priced this ${subject.make} ${vehicle.matchedModel}), so confidence is low until someone reads the trim off the unit or sends it`
  );
}

/**
 * A class no published study measures (heavy-duty pickups, full-size vans), priced on another class's
 * curve with no figure of its own model (docs/domain/appraisal.md#borrowed-retention).
 */
function borrowedRetentionReason(vehicle: VehicleClass): string | null {
  const ownModel = vehicle.modelRetention !== null && vehicle.modelRetention.model !== "*";
  if (vehicle.retentionMeasured || ownModel) return null;
  return (
    `borrowed retention: no published study measures class ${vehicle.classKey} (iSeeCars' studies leave heavy-duty trucks and vans out), ` +
    `so it is priced on the ${vehicle.retention.retentionClass} class's curve, which it may not follow: confidence is low until someone checks the market`
  );
}

/**
 * A model of a measured class with no published figure of its own or of its make, priced on the class's
 * curve: the studies put models of one class far either side of it (docs/domain/appraisal.md#class-curve-only).
 */
function classCurveReason(subject: AppraisalSubject, vehicle: VehicleClass): string | null {
  if (vehicle.classMatch !== "model" || vehicle.modelRetention !== null || !vehicle.retentionMeasured) return null;
  return (
    `no published figure of the ${subject.make} ${vehicle.matchedModel} or its make measures how it keeps its value, so it is priced on the ${vehicle.retention.retentionClass} class's curve, ` +
    `and the studies put models of one class from about 30% under it to 30% over it at five years: confidence is low until someone checks the market`
  );
}

/** A VIN whose maker code the loaded vPIC data does not know: the VIN confirms nothing typed (docs/appraisal.md#vin-decoding). */
const unknownMakerReason = (wmi: string) =>
  `the VIN's maker code ${wmi} is not in the loaded vPIC data${wmi.length > 3 ? " (a small manufacturer: 49 CFR 565.15(a) codes it in characters 1–3 and 12–14)" : ""}, so the VIN confirms nothing about the vehicle: confidence low until someone checks the unit`;

/** "transmission replacement $4,500 (\"transmission slips\")": each line with the notes' words that named it. */
function reconSentence(recon: ReconEstimate, items: AppraisalReference["reconItems"]): string {
  // The notes' and photos' lines first, the standard items (the detail) after them.
  const ordered = [...recon.lines].sort((a, b) => Number(a.sources.includes("standard")) - Number(b.sources.includes("standard")));
  const lines = ordered.map((line) => {
    const label = items.find((item) => item.itemKey === line.itemKey)?.label ?? line.itemKey;
    const count = line.count > 1 ? ` ×${line.count}` : "";
    const said = recon.said.get(line.itemKey);
    const why = line.sources.includes("standard") ? "standard" : said ? said.map((words) => `"${words}"`).join(", ") : "photos";
    return `${label}${count} ${formatWholeUsd(line.amount)} (${why})`;
  });
  const notPriced =
    recon.notPriced.length > 0
      ? ` Named in the notes but not priced (no recon line for it): ${recon.notPriced.map((w) => `"${w}"`).join(", ")}.`
      : "";
  return `Recon ${formatWholeUsd(recon.total)}: ${lines.join("; ")}.${notPriced}`;
}

/** ", raised to $9,800: the same unit as a 2019 is valued $9,800, and a newer unit is never worth less" (docs/domain/appraisal.md#an-older-unit-is-never-worth-more). */
const olderFloorWords = ({ olderFloor }: ComparablesValuation | ModelValuation) =>
  olderFloor
    ? `, raised to ${formatWholeUsd(olderFloor.value)}: the same unit as a ${olderFloor.year} is valued ${formatWholeUsd(olderFloor.value)}, and a newer unit is never worth less`
    : "";

/** " (5.0 on the published figures' clock)": the age the studies' figures were read at (docs/domain/appraisal.md#study-age). */
const studyClockWords = ({ ageYears, studyAgeYears }: ModelValuation) =>
  studyAgeYears === ageYears ? "" : ` (${Number(studyAgeYears.toFixed(2))} on the published figures' clock)`;

function valuationSentence(input: AppraisalInput, valuation: ComparablesValuation | ModelValuation, sameTrim: boolean): string {
  const { subject, reference } = input;
  const vehicle = `${subject.make} ${subject.model}`;
  const ageYears = vehicleAge(subject.year, input.now).fractional;
  const noBonus = (expectedMiles: number) =>
    valuation.mileageBonus
      ? ""
      : subject.mileage < expectedMiles
        ? valuation.vehicle.retention.lowMileageBonus
          ? " (no low-mileage bonus: the odometer is not actual)"
          : ` (no low-mileage bonus: never above the ${valuation.vehicle.retention.retentionClass} class curve)`
        : "";
  if (valuation.method === "comparables") {
    const trims = sameTrim
      ? ` ${subject.trim}`
      : subject.trim
        ? ` (fewer than ${reference.settings.minComps} of them ${subject.trim}, so every trim)`
        : "";
    const sold =
      valuation.sold > 0
        ? `${valuation.sold} sold in the last ${reference.settings.compSoldWithinDays} days, the latest ${plural(valuation.latestSaleDaysAgo ?? 0, "day")} ago`
        : "none sold recently";
    return (
      `Market value ${formatWholeUsd(valuation.value)} from ${plural(valuation.comps, "comparable unit")} of this organization ` +
      `(${valuation.yearRange[0]}–${valuation.yearRange[1]} ${vehicle}${trims}: ${valuation.inStock} in stock at today's asking price, ${sold}), ` +
      `each adjusted to a ${subject.year} at ${formatCount(subject.mileage)} miles${retentionWords(valuation.vehicle, ageYears)}${valuation.mileageBonus ? "" : noBonus(Number.POSITIVE_INFINITY)}; the median${olderFloorWords(valuation)}.`
    );
  }
  const scarce = `${plural(input.comps.length, "comparable unit")} in this organization's stock and sales of the last ${reference.settings.compSoldWithinDays} days, ${reference.settings.minComps} needed`;
  const { vehicle: cls } = valuation;
  const classWords =
    cls.classMatch === "default"
      ? `the generic new-price class ${formatWholeUsd(cls.newPrice)} new (${vehicle} is not in the model table)`
      : cls.classMatch === "make"
        ? `${subject.make}'s fallback new-price class ${cls.classKey} ${formatWholeUsd(cls.newPrice)} new (${vehicle} is not in the model table)`
        : cls.classMatch === "body"
          ? `new-price class ${cls.classKey} ${formatWholeUsd(cls.newPrice)} new, from the VIN decode${vehicleWords(cls)} (${vehicle} is not in the model table)`
          : `new-price class ${cls.classKey} ${formatWholeUsd(cls.newPrice)} new (${subject.make} ${cls.matchedModel}${vehicleWords(cls)})`;
  const retention = retentionWords(cls, ageYears);
  const mileage =
    valuation.mileageAdjustment > 0
      ? `+ ${formatWholeUsd(valuation.mileageAdjustment)} for mileage under the expected ${formatCount(valuation.expectedMiles)}`
      : valuation.mileageAdjustment < 0
        ? `− ${formatWholeUsd(-valuation.mileageAdjustment)} for mileage over the expected ${formatCount(valuation.expectedMiles)}`
        : input.subject.mileage < valuation.expectedMiles && !valuation.mileageBonus
          ? `+ $0 for mileage under the expected ${formatCount(valuation.expectedMiles)}${noBonus(valuation.expectedMiles)}`
          : `+ $0 for mileage at the expected ${formatCount(valuation.expectedMiles)}`;
  const threshold = formatCount(reference.settings.highMileageThreshold);
  const penalty =
    valuation.highMileagePenalty > 0
      ? ` − ${formatWholeUsd(valuation.highMileagePenalty)} beyond ${threshold} miles`
      : !cls.highMileageStep && input.subject.mileage > reference.settings.highMileageThreshold
        ? ` − $0 beyond ${threshold} miles (class ${cls.classKey} holds its value past them)`
        : "";
  return (
    `Market value ${formatWholeUsd(valuation.value)} from the depreciation model (${scarce}): ${classWords} × ` +
    `${pct(valuation.residualPct)} retained at ${valuation.ageYears} years${studyClockWords(valuation)}${retention} × regional index ${valuation.regionalIndex.toFixed(2)} (${valuation.regionLabel}, ZIP ${input.marketZip}) ${mileage}${penalty}${olderFloorWords(valuation)}.`
  );
}

function photoSentence(photos: PhotoAnalysis): string {
  switch (photos.status) {
    case "none":
      return "No photos were sent.";
    case "not_configured":
      return `${plural(photos.photos, "photo")} checked but not analysed: no vision model is configured, so confidence is not raised.`;
    case "failed":
      return `${plural(photos.photos, "photo")} checked but not analysed: the vision model failed, so confidence is not raised.`;
    case "analysed":
      return photos.findings.length > 0
        ? `${plural(photos.photos, "photo")} analysed for visible damage: ${photos.findings.map((f) => `${f.itemKey} ×${f.count}`).join(", ")}.`
        : `${plural(photos.photos, "photo")} analysed for visible damage: none seen.`;
  }
}

export function appraise(input: AppraisalInput): Appraisal {
  const { reference, store, photos, subject } = input;
  const { settings } = reference;
  // The class first: the notes read differently on a hybrid ("battery" is its hybrid battery).
  const vehicle = vehicleClassFor(reference, subject);
  const recon = estimateRecon(
    subject.conditionNotes,
    reference.reconItems,
    reference.reconKeywords,
    photos.status === "analysed" ? photos.findings : [],
    vehicle.retention.retentionClass,
  );
  const { comps, sameTrim } = comparablesOfTrim(subject, input.comps, settings.minComps);
  const valuation =
    comps.length >= settings.minComps
      ? valueFromComparables(subject, comps, reference, input.now, recon.odometerTrusted)
      : valueFromModel(subject, input.marketZip, reference, input.now, recon.odometerTrusted);
  const market = valuation.value;

  // The one holding-cost function (docs/domain/gross.md#holding-cost), on the value the trade is bought against.
  const holdingPerDay = dailyHoldingCost(market, holdingFiguresOf(store));
  const holding = Math.round(holdingPerDay * settings.daysToSell);
  const targetFrontGross = Math.round(Math.max(store.targetFrontGrossUsedMin, (store.targetFrontGrossUsedPct / 100) * market));
  const uncapped = market - recon.total - store.packUsed - targetFrontGross - holding;
  const retailMax = Math.max(0, Math.round(uncapped));
  const wholesale = wholesaleAppraisal(recon, market, settings);
  const toWholesale = recon.wholesale.length > 0 || retailMax < wholesale.value;
  const maxAcquisition = toWholesale ? wholesale.value : retailMax;
  const gap = Math.max(settings.negotiationMinGap, (settings.negotiationDiscountPct / 100) * maxAcquisition);
  const negotiationFloor = Math.max(0, Math.round(maxAcquisition - gap));

  // A value on a fallback class is a guess whatever the photos show: low, and someone must see the car.
  const onCurve = valuation.method === "depreciation_model";
  const guesses = [
    ...(onCurve
      ? [
          unknownVehicleReason(subject, valuation.vehicle),
          outlierModelReason(valuation, settings) ?? olderUnitReason(subject, valuation, settings) ?? classCurveReason(subject, valuation.vehicle),
          borrowedRetentionReason(valuation.vehicle),
        ]
      : []),
    // Comparables of every trim price a trim far above the class no better than the class does.
    onCurve || !sameTrim ? trimAboveClassReason(subject, valuation.vehicle) : null,
    undecidedTrimReason(subject, valuation.vehicle),
    subject.unknownWmi ? unknownMakerReason(subject.unknownWmi) : null,
  ].filter((reason): reason is string => reason !== null);
  const confidence = guesses.length > 0 ? "low" : photos.status === "analysed" ? "high" : "medium";
  const manualInspectionReasons = [
    ...guesses,
    ...recon.wholesale.map((condition) => `the notes name ${condition.label.toLowerCase()}${condition.reason ? `: ${condition.reason}` : ""}`),
  ];

  const retailWords = toWholesale ? "The retail figure would be" : "Max acquisition";
  const note = [
    valuationSentence(input, valuation, sameTrim),
    reconSentence(recon, reference.reconItems),
    photoSentence(photos),
    wholesale.sentence(maxAcquisition, toWholesale, recon.wholesale.length > 0),
    `${retailWords} ${formatWholeUsd(retailMax)} = market ${formatWholeUsd(market)} − recon ${formatWholeUsd(recon.total)} − pack ${formatWholeUsd(store.packUsed)} − target front gross ` +
      `${formatWholeUsd(targetFrontGross)} (${pct(store.targetFrontGrossUsedPct)} of market, at least ${formatWholeUsd(store.targetFrontGrossUsedMin)}) − holding ${formatWholeUsd(holding)} ` +
      `(${settings.daysToSell} days × ${formatWholeUsd(holdingPerDay)}) at ${store.name}${uncapped < 0 ? `; the unit cannot earn that retail (${formatWholeUsd(uncapped)}), so wholesale it` : ""}.`,
    `Negotiation floor ${formatWholeUsd(negotiationFloor)}: open ${pct(settings.negotiationDiscountPct)} (at least ${formatWholeUsd(settings.negotiationMinGap)}) below the max acquisition.`,
    `Confidence ${confidence}.`,
    ...(manualInspectionReasons.length > 0 ? [`Manual inspection required: ${manualInspectionReasons.join("; ")}.`] : []),
  ].join(" ");

  return {
    marketValue: market,
    valuation,
    recon,
    maxAcquisition,
    negotiationFloor,
    wholesaleValue: wholesale.value,
    appraisedTo: toWholesale ? "wholesale" : "retail",
    manualInspectionRequired: manualInspectionReasons.length > 0,
    manualInspectionReasons,
    confidence,
    note,
  };
}

/**
 * The wholesale figure (docs/domain/appraisal.md#appraise-to-wholesale): the auction value — a
 * share of the retail market, less the largest discount of a condition the notes name — less the
 * recon lines the notes and photos name (an auction buyer sees the same damage), fees and a
 * margin; never below the least a running unit brings.
 */
function wholesaleAppraisal(recon: ReconEstimate, market: number, settings: AppraisalReference["settings"]) {
  const worst = recon.wholesale.reduce<ReconEstimate["wholesale"][number] | null>((a, b) => (a && a.discountPct >= b.discountPct ? a : b), null);
  const discountPct = worst?.discountPct ?? 0;
  const auction = Math.round(market * (settings.wholesaleProceedsPct / 100) * (1 - discountPct / 100));
  const damage = recon.lines.filter((line) => !line.sources.includes("standard")).reduce((sum, line) => sum + line.amount, 0);
  const computed = auction - damage - settings.wholesaleFees - settings.wholesaleMargin;
  const value = Math.round(Math.max(settings.wholesaleFloor, computed));
  const less = worst ? `, less ${pct(worst.discountPct)} for ${worst.label.toLowerCase()}` : "";
  const floor =
    computed < settings.wholesaleFloor
      ? `; below the ${formatWholeUsd(settings.wholesaleFloor)} a running unit brings, so ${formatWholeUsd(value)}`
      : "";
  const figure =
    `auction value ${formatWholeUsd(auction)} (${pct(settings.wholesaleProceedsPct)} of market${less}) − recon named ${formatWholeUsd(damage)} ` +
    `− fees ${formatWholeUsd(settings.wholesaleFees)} − margin ${formatWholeUsd(settings.wholesaleMargin)} = ${formatWholeUsd(Math.round(computed))}${floor}`;
  return {
    value,
    sentence: (maxAcquisition: number, toWholesale: boolean, condition: boolean) =>
      condition
        ? `Appraised to wholesale, manual inspection required: the notes name ${recon.wholesale.map((c) => c.label.toLowerCase()).join(", ")}, which no retail recon line prices. Max acquisition ${formatWholeUsd(maxAcquisition)}: ${figure}.`
        : toWholesale
          ? `Appraised to wholesale: the retail figure below does not beat the wholesale figure. Max acquisition ${formatWholeUsd(maxAcquisition)}: ${figure}.`
          : `Wholesale figure ${formatWholeUsd(value)}: ${figure}.`,
  };
}
