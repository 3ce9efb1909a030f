import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { loadAppraisalReference, loadPricingData } from "../../db/queries/appraisal";
import { appraise } from "../../engines/appraisal/appraise";
import { checkPhoto } from "../../engines/appraisal/photos";
import type { AppraisalReference, Comparable, PhotoAnalysis, VisionFinding } from "../../engines/appraisal/types";
import { daysBefore, isoDay } from "../../engines/dates";
import { ApiError, type ValidationDetail } from "../../http/errors";
import { describeError, logEvent } from "../../lib/log";
import { TtlCache } from "../../lib/ttl-cache";
import type { TradeAppraisalRequestSchema } from "./appraisal.routes";
import type { VisionAnalyzer } from "./appraisal.vision";

type TradeAppraisalRequest = z.infer<typeof TradeAppraisalRequestSchema>;

const MAX_COMPS_PER_SOURCE = 200;

/**
 * The reference tables change when a dealer group tunes them, and an organization's stock and
 * sales a few times a day: each isolate answers repeat appraisals from a copy up to a minute old
 * instead of asking D1 every time (docs/appraisal.md).
 */
const CACHE_TTL_MS = 60_000;
const references = new TtlCache<AppraisalReference>({ ttlMs: CACHE_TTL_MS, maxEntries: 256 });

type PricingStore = NonNullable<Awaited<ReturnType<typeof loadPricingData>>["store"]>;
/** The store and the comparables as the engine takes them, built once per read rather than once per call. */
const pricingData = new TtlCache<{ store: PricingStore | null; comps: Comparable[] }>({ ttlMs: CACHE_TTL_MS, maxEntries: 1024 });

async function loadComparables(db: Database, orgId: string, query: Parameters<typeof loadPricingData>[2], today: string) {
  const { store, inStock, sold } = await loadPricingData(db, orgId, query);
  const comps: Comparable[] = [
    ...inStock.map((unit) => ({ source: "in_stock" as const, ...unit, observedOn: today })),
    ...sold.map(({ soldOn, ...sale }) => ({ source: "sold" as const, ...sale, observedOn: soldOn })),
  ];
  return { store, comps };
}

/** The rules zod cannot state: the model year against today, and each photo's content. One 422 lists them all. */
function checkRequest(body: TradeAppraisalRequest, now: Date) {
  const details: ValidationDetail[] = [];
  const nextModelYear = now.getUTCFullYear() + 1;
  if (body.year > nextModelYear) {
    details.push({ path: "year", code: "too_big", message: `Model years run to ${nextModelYear} (next year's models).` });
  }
  (body.photos ?? []).forEach((photo, index) => {
    const check = checkPhoto(photo);
    if (!check.ok) details.push({ path: `photos.${index}`, code: check.code, message: check.message });
  });
  if (details.length > 0) throw new ApiError("validation_error", "The request body is invalid.", { details });
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
        new ApiError("upstream_timeout", "The vision model did not answer within 30 seconds; retry, or send the condition notes without photos."),
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
    if (error instanceof ApiError) throw error;
    logEvent("warn", { event: "appraisal_vision_failed", model: vision.model, ...describeError(error) });
    return { status: "failed", photos: photos.length };
  } finally {
    clearTimeout(timer);
  }
}

export async function appraiseTrade(db: Database, orgId: string, body: TradeAppraisalRequest, deps: AppraisalDeps, now: Date) {
  checkRequest(body, now);
  const reference = await references.get(orgId, now.getTime(), () => loadAppraisalReference(db, orgId));
  const soldSince = isoDay(daysBefore(now, reference.settings.compSoldWithinDays));
  const query = { make: body.make, model: body.model, yearFrom: body.year - 1, yearTo: body.year + 1, soldSince, limit: MAX_COMPS_PER_SOURCE };
  // Today is in the key: an in-stock unit's asking price is observed today.
  const today = isoDay(now);
  const cacheKey = JSON.stringify([orgId, query.make.toLowerCase(), query.model.toLowerCase(), body.year, soldSince, today]);
  const [pricing, photos] = await Promise.all([
    pricingData.get(cacheKey, now.getTime(), () => loadComparables(db, orgId, query, today)),
    analysePhotos(body.photos ?? [], reference, deps),
  ]);
  if (!pricing.store) throw new ApiError("not_found", "This organization has no store whose settings could price the trade.");
  const result = appraise({
    subject: {
      year: body.year,
      make: body.make,
      model: body.model,
      trim: body.trim ?? undefined,
      mileage: body.mileage,
      conditionNotes: body.condition_notes ?? undefined,
    },
    marketZip: body.market_zip ?? pricing.store.marketZip,
    store: pricing.store,
    reference,
    comps: pricing.comps,
    photos,
    now,
  });
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
  };
}
