/**
 * A trade appraisal (DOMAIN.md §6.5): market value, recon, then what the unit may cost so that,
 * retailed at market, it still earns the store's target front gross after recon, pack and
 * holding cost, and the opening number below that. Every figure is explained in the note.
 */
import { dailyHoldingCost, holdingFiguresOf } from "../holding-cost";
import { estimateRecon, type ReconEstimate } from "./recon";
import type { AppraisalReference, AppraisalSubject, Comparable, PhotoAnalysis, StoreEconomics } from "./types";
import { type ComparablesValuation, type ModelValuation, valueFromComparables, valueFromModel } from "./valuation";

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
  confidence: "medium" | "high";
  note: string;
}

/** 12,345 — by hand: Intl formatting costs more CPU than the rest of the appraisal. */
const thousands = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const usd = (amount: number) => `${amount < 0 ? "-" : ""}$${thousands(Math.abs(amount))}`;
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

function valuationSentence(input: AppraisalInput, valuation: ComparablesValuation | ModelValuation, sameTrim: boolean): string {
  const { subject, reference } = input;
  const vehicle = `${subject.make} ${subject.model}`;
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
      `Market value ${usd(valuation.value)} from ${plural(valuation.comps, "comparable unit")} of this organization ` +
      `(${valuation.yearRange[0]}–${valuation.yearRange[1]} ${vehicle}${trims}: ${valuation.inStock} in stock at today's asking price, ${sold}), ` +
      `each adjusted to a ${subject.year} at ${thousands(subject.mileage)} miles; the median.`
    );
  }
  const scarce = `${plural(input.comps.length, "comparable unit")} in this organization's stock and sales of the last ${reference.settings.compSoldWithinDays} days, ${reference.settings.minComps} needed`;
  const cls =
    valuation.classMatch === "default"
      ? `the generic new-price class (${vehicle} is not in the class table)`
      : `new-price class ${valuation.classKey}`;
  const mileage =
    valuation.mileageAdjustment >= 0
      ? `+ ${usd(valuation.mileageAdjustment)} for mileage under the expected ${thousands(valuation.expectedMiles)}`
      : `− ${usd(-valuation.mileageAdjustment)} for mileage over the expected ${thousands(valuation.expectedMiles)}`;
  const penalty =
    valuation.highMileagePenalty > 0
      ? ` − ${usd(valuation.highMileagePenalty)} beyond ${thousands(reference.settings.highMileageThreshold)} miles`
      : "";
  return (
    `Market value ${usd(valuation.value)} from the depreciation model (${scarce}): ${cls} ${usd(valuation.newPrice)} new × ` +
    `${pct(valuation.residualPct)} retained at ${valuation.ageYears} years × regional index ${valuation.regionalIndex.toFixed(2)} (${valuation.regionLabel}, ZIP ${input.marketZip}) ${mileage}${penalty}.`
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
  const { reference, store, photos } = input;
  const { settings } = reference;
  const { comps, sameTrim } = comparablesOfTrim(input.subject, input.comps, settings.minComps);
  const valuation =
    comps.length >= settings.minComps
      ? valueFromComparables(input.subject, comps, reference, input.now)
      : valueFromModel(input.subject, input.marketZip, reference, input.now);
  const market = valuation.value;
  const recon = estimateRecon(
    input.subject.conditionNotes,
    reference.reconItems,
    reference.reconKeywords,
    photos.status === "analysed" ? photos.findings : [],
  );

  // The one holding-cost function (docs/domain/gross.md#holding-cost), on the value the trade is bought against.
  const holdingPerDay = dailyHoldingCost(market, holdingFiguresOf(store));
  const holding = Math.round(holdingPerDay * settings.daysToSell);
  const targetFrontGross = Math.round(Math.max(store.targetFrontGrossUsedMin, (store.targetFrontGrossUsedPct / 100) * market));
  const uncapped = market - recon.total - store.packUsed - targetFrontGross - holding;
  const maxAcquisition = Math.max(0, Math.round(uncapped));
  const gap = Math.max(settings.negotiationMinGap, (settings.negotiationDiscountPct / 100) * maxAcquisition);
  const negotiationFloor = Math.max(0, Math.round(maxAcquisition - gap));

  // Seeing the car raises confidence, unless the value itself rests on the generic price class.
  const genericValue = valuation.method === "depreciation_model" && valuation.classMatch === "default";
  const confidence = photos.status === "analysed" && !genericValue ? "high" : "medium";

  const reconSources = recon.lines.filter((l) => !l.sources.includes("standard")).length;
  const note = [
    valuationSentence(input, valuation, sameTrim),
    `Recon ${usd(recon.total)}: ${plural(reconSources, "line")} from the condition notes and photos, plus the standard items.`,
    photoSentence(photos),
    `Max acquisition ${usd(maxAcquisition)} = market ${usd(market)} − recon ${usd(recon.total)} − pack ${usd(store.packUsed)} − target front gross ` +
      `${usd(targetFrontGross)} (${pct(store.targetFrontGrossUsedPct)} of market, at least ${usd(store.targetFrontGrossUsedMin)}) − holding ${usd(holding)} ` +
      `(${settings.daysToSell} days × ${usd(holdingPerDay)}) at ${store.name}${uncapped < 0 ? `; the unit cannot earn that retail (${usd(uncapped)}), so wholesale it` : ""}.`,
    `Negotiation floor ${usd(negotiationFloor)}: open ${pct(settings.negotiationDiscountPct)} (at least ${usd(settings.negotiationMinGap)}) below the max acquisition.`,
    `Confidence ${confidence}.`,
  ].join(" ");

  return { marketValue: market, valuation, recon, maxAcquisition, negotiationFloor, confidence, note };
}
