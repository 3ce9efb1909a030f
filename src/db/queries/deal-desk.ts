import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database, SqliteReader } from "../client";
import { lenderDecisions } from "../org-schema";
import {
  appraisalRetentionCurve,
  creditTiers,
  factoryWarrantyTerms,
  fiProducts,
  fiWordTracks,
  frontGrossTargets,
  knownIssueRules,
  lenderPrograms,
  lenderRoutingSettings,
  lenderTermLimits,
  stipRules,
  stipTypes,
  stores,
  vehicleTypeAdjustments,
} from "../schema";
import { panelIdsQuery, type StoreSettingsRow } from "./settings";
import type { FeedReceipts } from "./signals";
import { listOpenEpisodes } from "./signals";

/**
 * The deal desk's reference tables, read in one round trip. They belong to no organization (like
 * the market feed): every organization routes over the same program matrix, through its own panel.
 */
export async function loadDealDeskReference(db: Database) {
  const [
    tiers,
    adjustments,
    issues,
    targets,
    programs,
    stipTypeRows,
    stipRuleRows,
    products,
    routingSettings,
    wordTracks,
    warrantyTerms,
    retentionCurve,
    termLimits,
  ] = await db.batch([
    db.select().from(creditTiers).orderBy(desc(creditTiers.scoreMin)),
    db.select().from(vehicleTypeAdjustments),
    db.select().from(knownIssueRules),
    db.select().from(frontGrossTargets),
    db.select().from(lenderPrograms).orderBy(asc(lenderPrograms.name)),
    db.select().from(stipTypes),
    db.select().from(stipRules).orderBy(asc(stipRules.id)),
    db.select().from(fiProducts).orderBy(asc(fiProducts.product)),
    db.select().from(lenderRoutingSettings).where(eq(lenderRoutingSettings.id, "default")),
    db.select().from(fiWordTracks).orderBy(asc(fiWordTracks.product), asc(fiWordTracks.rank)),
    db.select().from(factoryWarrantyTerms).orderBy(asc(factoryWarrantyTerms.months)),
    // The shared default depreciation curve (the appraisal's rows without an organization): the coach projects a unit's value with it.
    db
      .select({ ageYears: appraisalRetentionCurve.ageYears, residualPct: appraisalRetentionCurve.residualPct })
      .from(appraisalRetentionCurve)
      .where(isNull(appraisalRetentionCurve.orgId))
      .orderBy(asc(appraisalRetentionCurve.ageYears)),
    db.select().from(lenderTermLimits).orderBy(asc(lenderTermLimits.programId), desc(lenderTermLimits.maxTerm)),
  ]);
  const [settings] = routingSettings;
  if (!settings) throw new Error("lender_routing_settings has no 'default' row (migration 0014)");
  return {
    tiers,
    adjustments,
    issues,
    targets,
    programs,
    stipTypes: stipTypeRows,
    stipRules: stipRuleRows,
    fiProducts: products,
    routingSettings: settings,
    wordTracks,
    warrantyTerms,
    retentionCurve,
    termLimits,
  };
}

/** The store in the directory; without `storeId`, the organization's primary store (else its first). Null when not this organization's. */
export async function findDeskStore(db: Database, orgId: string, storeId: string | undefined) {
  const rows = await db
    .select({ id: stores.id, name: stores.name })
    .from(stores)
    .where(storeId === undefined ? eq(stores.orgId, orgId) : and(eq(stores.orgId, orgId), eq(stores.id, storeId)))
    .orderBy(desc(stores.isPrimary), asc(stores.id))
    .limit(1);
  return rows[0] ?? null;
}

/** The programs on a store's panel (a setting of the store, kept where its organization's settings are). */
export async function loadStorePanel(db: SqliteReader, orgId: string, storeId: string): Promise<string[]> {
  const rows = await panelIdsQuery(db, orgId, storeId);
  return rows.map((p) => p.programId);
}

/**
 * A store's lender history in the organization's object: its decisions aggregated per program and
 * score band, what routing calibrates with and what stip-check quotes turnaround from, its open
 * tightenings, and the panel it routes over.
 */
export async function storeLenderHistory(db: SqliteReader, orgId: string, storeId: string) {
  const [decisions, episodes, panel] = await Promise.all([
    db
      .select({
        programId: lenderDecisions.programId,
        scoreBand: lenderDecisions.scoreBand,
        approved: sql<number>`sum(${lenderDecisions.decision} = 'approved')`,
        countered: sql<number>`sum(${lenderDecisions.decision} = 'countered')`,
        declined: sql<number>`sum(${lenderDecisions.decision} = 'declined')`,
        timed: sql<number>`count(${lenderDecisions.turnaroundHours})`,
        turnaroundSum: sql<number>`coalesce(sum(${lenderDecisions.turnaroundHours}), 0)`,
      })
      .from(lenderDecisions)
      .where(and(eq(lenderDecisions.orgId, orgId), eq(lenderDecisions.storeId, storeId)))
      .groupBy(lenderDecisions.programId, lenderDecisions.scoreBand),
    listOpenEpisodes(db, orgId, storeId),
    loadStorePanel(db, orgId, storeId),
  ]);
  return { decisions, episodes, panel };
}

/** The history as the object answers it, with the store's settings (none for a store it does not hold) and its feeds' receipts. */
export type StoreLenderHistory = Awaited<ReturnType<typeof storeLenderHistory>> & { settings?: StoreSettingsRow; feeds: FeedReceipts };
