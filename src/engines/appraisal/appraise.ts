/**
 * A trade appraisal (docs/domain/appraisal.md#max-acquisition): market value, recon, then what the
 * unit may cost so that, retailed at market, it still earns the store's target front gross after
 * recon, pack and holding cost, and the opening number below that; a unit the notes take to
 * wholesale (frame, flood, title, airbag) is bought at no more than its auction value less fees.
 * Every figure is explained in the note, in the rules page's words.
 */
import { formatCount, formatWholeUsd } from "../format";
import { dailyHoldingCost, holdingFiguresOf } from "../holding-cost";
import { estimateRecon, type ReconEstimate } from "./recon";
import type { AppraisalReference, AppraisalSubject, Comparable, PhotoAnalysis, RetentionClass, StoreEconomics } from "./types";
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
  /** `wholesale`: a condition in the notes rules out retail; a manual inspection must confirm the number. */
  appraisedTo: "retail" | "wholesale";
  manualInspectionRequired: boolean;
  confidence: "medium" | "high";
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

/** "(retention class ev: the curve's loss × 1.29)"; nothing for the standard class. */
function retentionWords(retention: RetentionClass): string {
  if (retention.lossScale === 1 && retention.lowMileageBonus) return "";
  const bonus = retention.lowMileageBonus ? "" : ", no low-mileage bonus";
  return ` (retention class ${retention.retentionClass}: the curve's loss × ${retention.lossScale}${bonus})`;
}

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
      `Market value ${formatWholeUsd(valuation.value)} from ${plural(valuation.comps, "comparable unit")} of this organization ` +
      `(${valuation.yearRange[0]}–${valuation.yearRange[1]} ${vehicle}${trims}: ${valuation.inStock} in stock at today's asking price, ${sold}), ` +
      `each adjusted to a ${subject.year} at ${formatCount(subject.mileage)} miles${retentionWords(valuation.retention)}; the median.`
    );
  }
  const scarce = `${plural(input.comps.length, "comparable unit")} in this organization's stock and sales of the last ${reference.settings.compSoldWithinDays} days, ${reference.settings.minComps} needed`;
  const cls =
    valuation.classMatch === "default"
      ? `the generic new-price class (${vehicle} is not in the class table)`
      : `new-price class ${valuation.classKey}`;
  const retention = retentionWords(valuation.retention);
  const mileage =
    valuation.mileageAdjustment > 0
      ? `+ ${formatWholeUsd(valuation.mileageAdjustment)} for mileage under the expected ${formatCount(valuation.expectedMiles)}`
      : valuation.mileageAdjustment < 0
        ? `− ${formatWholeUsd(-valuation.mileageAdjustment)} for mileage over the expected ${formatCount(valuation.expectedMiles)}`
        : input.subject.mileage < valuation.expectedMiles && !valuation.retention.lowMileageBonus
          ? `+ $0 for mileage under the expected ${formatCount(valuation.expectedMiles)} (no low-mileage bonus: never above the ${valuation.retention.retentionClass} class curve)`
          : `+ $0 for mileage at the expected ${formatCount(valuation.expectedMiles)}`;
  const penalty =
    valuation.highMileagePenalty > 0
      ? ` − ${formatWholeUsd(valuation.highMileagePenalty)} beyond ${formatCount(reference.settings.highMileageThreshold)} miles`
      : "";
  return (
    `Market value ${formatWholeUsd(valuation.value)} from the depreciation model (${scarce}): ${cls} ${formatWholeUsd(valuation.newPrice)} new × ` +
    `${pct(valuation.residualPct)} retained at ${valuation.ageYears} years${retention} × regional index ${valuation.regionalIndex.toFixed(2)} (${valuation.regionLabel}, ZIP ${input.marketZip}) ${mileage}${penalty}.`
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
  const retailMax = Math.max(0, Math.round(uncapped));
  const wholesale = wholesaleAppraisal(recon, market, settings);
  const maxAcquisition = wholesale ? Math.min(retailMax, wholesale.max) : retailMax;
  const gap = Math.max(settings.negotiationMinGap, (settings.negotiationDiscountPct / 100) * maxAcquisition);
  const negotiationFloor = Math.max(0, Math.round(maxAcquisition - gap));

  // Seeing the car raises confidence, unless the value itself rests on the generic price class.
  const genericValue = valuation.method === "depreciation_model" && valuation.classMatch === "default";
  const confidence = photos.status === "analysed" && !genericValue ? "high" : "medium";

  const retailWords = wholesale ? "The retail figure would be" : "Max acquisition";
  const note = [
    valuationSentence(input, valuation, sameTrim),
    reconSentence(recon, reference.reconItems),
    photoSentence(photos),
    ...(wholesale ? [wholesale.sentence(maxAcquisition)] : []),
    `${retailWords} ${formatWholeUsd(retailMax)} = market ${formatWholeUsd(market)} − recon ${formatWholeUsd(recon.total)} − pack ${formatWholeUsd(store.packUsed)} − target front gross ` +
      `${formatWholeUsd(targetFrontGross)} (${pct(store.targetFrontGrossUsedPct)} of market, at least ${formatWholeUsd(store.targetFrontGrossUsedMin)}) − holding ${formatWholeUsd(holding)} ` +
      `(${settings.daysToSell} days × ${formatWholeUsd(holdingPerDay)}) at ${store.name}${uncapped < 0 ? `; the unit cannot earn that retail (${formatWholeUsd(uncapped)}), so wholesale it` : ""}.`,
    `Negotiation floor ${formatWholeUsd(negotiationFloor)}: open ${pct(settings.negotiationDiscountPct)} (at least ${formatWholeUsd(settings.negotiationMinGap)}) below the max acquisition.`,
    `Confidence ${confidence}.`,
  ].join(" ");

  return {
    marketValue: market,
    valuation,
    recon,
    maxAcquisition,
    negotiationFloor,
    appraisedTo: wholesale ? "wholesale" : "retail",
    manualInspectionRequired: wholesale !== null,
    confidence,
    note,
  };
}

/**
 * Appraise to wholesale (docs/domain/appraisal.md#appraise-to-wholesale): a frame, flood, title
 * or airbag condition is no retail recon line; the unit is worth its auction value — a share of
 * the retail market, less the condition's discount (the largest when several are named) — less
 * fees and a margin, and a manual inspection must confirm it. Null when the notes name none.
 */
function wholesaleAppraisal(recon: ReconEstimate, market: number, settings: AppraisalReference["settings"]) {
  if (recon.wholesale.length === 0) return null;
  const worst = recon.wholesale.reduce((a, b) => (b.discountPct > a.discountPct ? b : a));
  const auction = Math.round(market * (settings.wholesaleProceedsPct / 100) * (1 - worst.discountPct / 100));
  const max = Math.max(0, auction - settings.wholesaleFees - settings.wholesaleMargin);
  const named = recon.wholesale.map((condition) => condition.label.toLowerCase()).join(", ");
  return {
    max,
    sentence: (maxAcquisition: number) =>
      `Appraised to wholesale, manual inspection required: the notes name ${named}, which no retail recon line prices. ` +
      `Max acquisition ${formatWholeUsd(maxAcquisition)}: auction value ${formatWholeUsd(auction)} (${pct(settings.wholesaleProceedsPct)} of market, less ${pct(worst.discountPct)} for ${worst.label.toLowerCase()}) ` +
      `− fees ${formatWholeUsd(settings.wholesaleFees)} − margin ${formatWholeUsd(settings.wholesaleMargin)} = ${formatWholeUsd(max)}, and never above the retail figure.`,
  };
}
