import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { type ComparableQuery, loadAppraisalReference, loadPricingData } from "../../db/queries/appraisal";
import type { FeedReceipts } from "../../db/queries/signals";
import { orgStore } from "../../durable-objects/org-storage-routing";
import { appraise } from "../../engines/appraisal/appraise";
import { checkPhoto } from "../../engines/appraisal/photos";
import type { AppraisalReference, Comparable, PhotoAnalysis, VisionFinding } from "../../engines/appraisal/types";
import { daysBefore, isoDay } from "../../engines/dates";
import { dataAsOf, staleWarnings } from "../../engines/freshness";
import { wmiOf } from "../../engines/vehicle/vin";
import { DomainError, type FieldProblem } from "../../lib/domain-error";
import { describeError, logEvent } from "../../lib/log";
import { onSettingsChange } from "../../lib/settings-changes";
import { TtlCache } from "../../lib/ttl-cache";
import { EARLIEST_MODEL_YEAR, type TradeAppraisalRequestSchema } from "./appraisal.routes";
import type { VisionAnalyzer } from "./appraisal.vision";
import { decodeVehicle, toVehicleDecodeBody } from "./vehicle.service";

type TradeAppraisalRequest = z.infer<typeof TradeAppraisalRequestSchema>;

const MAX_COMPS_PER_SOURCE = 200;

/**
 * The reference tables change when a dealer group tunes them, and an organization's stock and
 * sales a few times a day: each isolate answers repeat appraisals from a copy up to a minute old
 * instead of asking D1 and the organization's object every time (docs/appraisal.md).
 */
const CACHE_TTL_MS = 60_000;
const references = new TtlCache<AppraisalReference>({ ttlMs: CACHE_TTL_MS, maxEntries: 256 });

type PricingStore = NonNullable<Awaited<ReturnType<typeof loadPricingData>>["store"]>;
/** The store and the comparables as the engine takes them, built once per read rather than once per call. */
const pricingData = new TtlCache<{ store: PricingStore | null; comps: Comparable[]; feeds: FeedReceipts }>({
  ttlMs: CACHE_TTL_MS,
  maxEntries: 1024,
});
// Its keys are JSON arrays that start with the organization id.
onSettingsChange((orgId) => pricingData.evictPrefix(JSON.stringify([orgId]).slice(0, -1)));

/** The comparables: the store's directory row from D1, its settings, deals, units and feeds' receipts in one call to the organization's object. */
async function loadComparables(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, query: ComparableQuery, today: string) {
  // The comparables are every store's units in stock and sales: their feeds' deliveries say how old (docs/ingestion.md#when-a-feed-stops).
  const { store, inStock, sold, feeds } = await loadPricingData(db, orgId, query, (q) => orgStore(env, orgId).comparables(orgId, q));
  const comps: Comparable[] = [
    ...inStock.map((unit) => ({ source: "in_stock" as const, ...unit, observedOn: today })),
    ...sold.map(({ soldOn, ...sale }) => ({ source: "sold" as const, ...sale, observedOn: soldOn })),
  ];
  return { store, comps, feeds };
}

/** The rules zod cannot state: the model year against today, and each photo's content. One 422 lists them all. */
function checkRequest(body: TradeAppraisalRequest, year: number, now: Date) {
  const details: FieldProblem[] = [];
  const nextModelYear = now.getUTCFullYear() + 1;
  if (year > nextModelYear || year < EARLIEST_MODEL_YEAR) {
    details.push({
      path: "year",
      code: "out_of_range",
      message: `Model years run from ${EARLIEST_MODEL_YEAR} to ${nextModelYear} (next year's models).`,
    });
  }
  (body.photos ?? []).forEach((photo, index) => {
    const check = checkPhoto(photo);
    if (!check.ok) details.push({ path: `photos.${index}`, code: check.code, message: check.message });
  });
  if (details.length > 0) throw new DomainError("invalid", "The request body is invalid.", { problems: details });
}

export interface AppraisalDeps {
  vision: VisionAnalyzer | null;
  visionTimeoutMs: number;
}

/** Every photo through the model at once, bounded as one call; the same damage seen in two photos counts once (the larger count). */
async function analysePhotos(photos: string[], reference: AppraisalReference, deps: AppraisalDeps): Promise<PhotoAnalysis> {
  if (photos.length === 0) return { status: "none" };
  if (!deps.vision) return { status: "not_configured", photos: photos.length };
  const vision = deps.vision;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new DomainError("upstream_timeout", "The vision model did not answer within 30 seconds; retry, or send the condition notes without photos."),
      );
    }, deps.visionTimeoutMs);
  });
  const items = reference.reconItems.map(({ itemKey, label }) => ({ itemKey, label }));
  try {
    const perPhoto = await Promise.race([Promise.all(photos.map((photo) => vision.findDamage(photo, items, controller.signal))), timedOut]);
    const findings = new Map<string, number>();
    for (const finding of perPhoto.flat()) findings.set(finding.itemKey, Math.max(findings.get(finding.itemKey) ?? 0, finding.count));
    return { status: "analysed", photos: photos.length, findings: [...findings].map(([itemKey, count]): VisionFinding => ({ itemKey, count })) };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    logEvent("warn", { event: "appraisal_vision_failed", model: vision.model, ...describeError(error) });
    return { status: "failed", photos: photos.length };
  } finally {
    clearTimeout(timer);
  }
}

interface Warning {
  field: string;
  typed: string;
  decoded: string;
  message: string;
}

/** Same model when one name's first word is the other's ("Wrangler Unlimited" and "Wrangler", "Silverado 2500HD" and "Silverado"). */
const sameModel = (a: string, b: string) => a.toLowerCase().split(/\s+/)[0] === b.toLowerCase().split(/\s+/)[0];

/**
 * The vehicle to appraise: the typed fields, or the VIN's decode with the typed fields checked
 * against it — the decode wins a contradiction and both are returned in a warning; a typed model
 * that agrees is kept (it is usually the more specific: "Silverado 2500 Duramax" for "Silverado").
 */
async function vehicleOf(db: Database, body: TradeAppraisalRequest, now: Date) {
  const decoded = body.vin ? await decodeVehicle(db, body.vin, "vin", now) : null;
  const warnings: Warning[] = [];
  const pick = <T extends string | number>(
    field: string,
    typed: T | null | undefined,
    fromVin: T | null | undefined,
    agree: (a: T, b: T) => boolean,
  ) => {
    if (typed != null && fromVin != null && !agree(typed, fromVin)) {
      warnings.push({
        field,
        typed: String(typed),
        decoded: String(fromVin),
        message: `The ${field} sent (${typed}) contradicts the VIN's decode (${fromVin}); the decode is used.`,
      });
      return fromVin;
    }
    return typed ?? fromVin ?? null;
  };
  // vPIC names a heavy-duty pickup "Silverado" with series "2500HD": the model table prices the pair.
  const decodedModel = decoded?.model
    ? decoded.series && /^\d{3,4}/.test(decoded.series)
      ? `${decoded.model} ${decoded.series}`
      : decoded.model
    : null;
  const year = pick("year", body.year, decoded?.modelYear, (a, b) => a === b);
  const make = pick("make", body.make, decoded?.make, (a, b) => a.toLowerCase() === b.toLowerCase());
  const model = pick("model", body.model, decodedModel, sameModel);
  if (year === null || make === null || model === null) {
    const missing = [year === null && "year", make === null && "make", model === null && "model"].filter((f): f is string => Boolean(f));
    throw new DomainError("invalid", "The VIN does not decode to a year, make and model; send them.", {
      problems: missing.map((path) => ({ path, code: "required", message: `The VIN's decode has no ${path}: send it.` })),
    });
  }
  // A decode's trim is often a list ("L/LE/SE/XLE", "Latitude, Longitude, North"): only a single one names the
  // unit; a list goes to the engine as what the unit may be, unless a typed trim settles it.
  const decodedTrims = decoded?.trim ? trimList(decoded.trim) : [];
  const trim = body.trim ?? (decodedTrims.length === 1 ? decodedTrims[0] : null);
  return { year, make, model, trim, decodedTrims: body.trim ? [] : decodedTrims, decoded, warnings };
}

/**
 * vPIC's trim as the trims it names: "SR/SR5/TRD Pro" and "Latitude, Longitude, North" are lists; a slash
 * before a lone letter is part of a name ("R/T", "M/R" for moonroof).
 */
const trimList = (trim: string) =>
  trim
    .split(/\s*,\s*|\s*\/\s*(?![A-Za-z]\b)/)
    .map((part) => part.trim())
    .filter(Boolean);

export async function appraiseTrade(
  env: Pick<Env, "ORG_STORE">,
  db: Database,
  orgId: string,
  body: TradeAppraisalRequest,
  deps: AppraisalDeps,
  now: Date,
) {
  const vehicle = await vehicleOf(db, body, now);
  checkRequest(body, vehicle.year, now);
  const reference = await references.get(orgId, now.getTime(), () => loadAppraisalReference(db, orgId));
  const soldSince = isoDay(daysBefore(now, reference.settings.compSoldWithinDays));
  const query = {
    make: vehicle.make,
    model: vehicle.model,
    yearFrom: vehicle.year - 1,
    yearTo: vehicle.year + 1,
    soldSince,
    limit: MAX_COMPS_PER_SOURCE,
  };
  // Today is in the key: an in-stock unit's asking price is observed today.
  const today = isoDay(now);
  const cacheKey = JSON.stringify([orgId, query.make.toLowerCase(), query.model.toLowerCase(), vehicle.year, soldSince, today]);
  const [pricing, photos] = await Promise.all([
    pricingData.get(cacheKey, now.getTime(), () => loadComparables(env, db, orgId, query, today)),
    analysePhotos(body.photos ?? [], reference, deps),
  ]);
  const ages = dataAsOf(pricing.feeds.stores, pricing.feeds.receipts, ["inventory", "deals"], now);
  if (!pricing.store) throw new DomainError("not_found", "This organization has no store whose settings could price the trade.");
  const result = appraise({
    subject: {
      year: vehicle.year,
      make: vehicle.make,
      model: vehicle.model,
      trim: vehicle.trim ?? undefined,
      decodedTrims: vehicle.decodedTrims.length > 1 ? vehicle.decodedTrims : undefined,
      mileage: body.mileage,
      conditionNotes: body.condition_notes ?? undefined,
      fuelType: vehicle.decoded?.fuelType ?? undefined,
      bodyClass: vehicle.decoded?.bodyClass ?? undefined,
      // The maker row is what the WMI found: none, and the VIN confirms nothing typed.
      unknownWmi: vehicle.decoded && vehicle.decoded.manufacturer === null ? wmiOf(vehicle.decoded.vin) : undefined,
    },
    marketZip: body.market_zip ?? pricing.store.marketZip,
    store: pricing.store,
    reference,
    comps: pricing.comps,
    photos,
    now,
  });
  const cls = result.valuation.vehicle;
  return {
    max_acquisition: result.maxAcquisition,
    negotiation_floor: result.negotiationFloor,
    market_value_estimate: result.marketValue,
    recon_estimate: { ...Object.fromEntries(result.recon.lines.map((line) => [line.itemKey, line.amount])), total: result.recon.total },
    appraised_to: result.appraisedTo,
    wholesale_value: result.wholesaleValue,
    manual_inspection_required: result.manualInspectionRequired,
    manual_inspection_reasons: result.manualInspectionReasons,
    market_note: result.note,
    confidence: result.confidence,
    valuation_method: result.valuation.method,
    comparables_used: result.valuation.method === "comparables" ? result.valuation.comps : 0,
    vehicle: {
      vin: vehicle.decoded?.vin ?? null,
      year: vehicle.year,
      make: vehicle.make,
      model: vehicle.model,
      trim: vehicle.trim,
      fuel_type: cls.fuelType || null,
      body_class: cls.bodyClass || null,
      price_class: cls.classKey,
      price_class_match: cls.classMatch,
      retention_class: cls.retention.retentionClass,
      curve: cls.modelRetention ? ("model" as const) : ("class" as const),
      decoded: vehicle.decoded ? toVehicleDecodeBody(vehicle.decoded) : null,
    },
    warnings: vehicle.warnings,
    data_as_of: ages,
    // A stale feed matters to the answer only when its comparables priced it.
    data_warnings: result.valuation.method === "comparables" ? staleWarnings(ages) : [],
  };
}
