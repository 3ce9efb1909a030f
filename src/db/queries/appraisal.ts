import { and, asc, desc, eq, gte, inArray, isNull, ne, or, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { GradeFactor, WholesaleGrade } from "../../engines/aged-inventory/recommendation";
import type { Database, SqliteReader } from "../client";
import { deals, inventoryUnits } from "../org-schema";
import {
  appraisalConditionGrades,
  appraisalExpectedMiles,
  appraisalModelClasses,
  appraisalModelRetention,
  appraisalPriceClasses,
  appraisalReconItems,
  appraisalReconKeywords,
  appraisalRegionalIndex,
  appraisalRetentionClasses,
  appraisalRetentionCurve,
  appraisalSettings,
  stores,
} from "../schema";
import type { StoreSettingsRow } from "./settings";
import type { FeedReceipts } from "./signals";

type OrgRow = { orgId: string | null };

/** The organization's rows replace the defaults (org_id NULL) that share their key. */
function resolve<T extends OrgRow>(rows: T[], key: (row: T) => string): Omit<T, "orgId">[] {
  const byKey = new Map<string, T>();
  for (const row of rows) {
    const k = key(row);
    if (row.orgId !== null || !byKey.has(k)) byKey.set(k, row);
  }
  return [...byKey.values()].map(({ orgId: _, ...rest }) => rest);
}

const defaultsOr = (column: AnySQLiteColumn, orgId: string) => or(isNull(column), eq(column, orgId));

/** The appraisal tables as they apply to one organization, in one round trip. */
export async function loadAppraisalReference(db: Database, orgId: string) {
  const [settings, reconItems, reconKeywords, priceClasses, modelClasses, curve, regional, retentionClasses, expectedMiles, modelRetention] =
    await db.batch([
      db.select().from(appraisalSettings).where(defaultsOr(appraisalSettings.orgId, orgId)),
      db.select().from(appraisalReconItems).where(defaultsOr(appraisalReconItems.orgId, orgId)).orderBy(asc(appraisalReconItems.itemKey)),
      db.select().from(appraisalReconKeywords).where(defaultsOr(appraisalReconKeywords.orgId, orgId)),
      db.select().from(appraisalPriceClasses).where(defaultsOr(appraisalPriceClasses.orgId, orgId)),
      db.select().from(appraisalModelClasses).where(defaultsOr(appraisalModelClasses.orgId, orgId)),
      db.select().from(appraisalRetentionCurve).where(defaultsOr(appraisalRetentionCurve.orgId, orgId)),
      db.select().from(appraisalRegionalIndex).where(defaultsOr(appraisalRegionalIndex.orgId, orgId)),
      db.select().from(appraisalRetentionClasses).where(defaultsOr(appraisalRetentionClasses.orgId, orgId)),
      db.select().from(appraisalExpectedMiles).where(defaultsOr(appraisalExpectedMiles.orgId, orgId)),
      db.select().from(appraisalModelRetention).where(defaultsOr(appraisalModelRetention.orgId, orgId)),
    ]);
  const [resolvedSettings] = resolve(settings, () => "settings");
  if (!resolvedSettings) throw new Error("appraisal_settings has no default row");
  // A curve is one shape: an organization's own curve (or mileage schedule) replaces the default one whole.
  const ownCurve = curve.some((row) => row.orgId === orgId);
  const ownSchedule = expectedMiles.some((row) => row.orgId === orgId);
  return {
    settings: resolvedSettings,
    reconItems: resolve(reconItems, (row) => row.itemKey),
    reconKeywords: resolve(reconKeywords, (row) => `${row.keyword.toLowerCase()}|${row.retentionClass}`),
    priceClasses: resolve(priceClasses, (row) => row.classKey),
    modelClasses: resolve(modelClasses, (row) => `${row.make.toLowerCase()}|${row.model.toLowerCase()}|${row.modelYearFrom}|${row.modelYearTo}`),
    retentionCurve: curve.filter((row) => (row.orgId === orgId) === ownCurve).map(({ ageYears, residualPct }) => ({ ageYears, residualPct })),
    modelRetention: resolve(modelRetention, (row) => `${row.make.toLowerCase()}|${row.model.toLowerCase()}|${row.ageYears}`),
    regionalIndex: resolve(regional, (row) => row.zipPrefix),
    retentionClasses: resolve(retentionClasses, (row) => row.retentionClass),
    expectedMiles: expectedMiles
      .filter((row) => (row.orgId === orgId) === ownSchedule)
      .map(({ fromAgeYears, milesPerYear }) => ({ fromAgeYears, milesPerYear })),
  };
}

/** The auction condition grades as they apply to one organization (docs/domain/gross.md#expected-auction-proceeds). */
export async function loadConditionGrades(db: Database, orgId: string): Promise<GradeFactor[]> {
  const rows = await db.select().from(appraisalConditionGrades).where(defaultsOr(appraisalConditionGrades.orgId, orgId));
  return resolve(rows, (row) => row.grade).map(({ grade, factorPct }) => ({ grade: grade as WholesaleGrade, factorPct }));
}

export interface ComparableQuery {
  make: string;
  model: string;
  yearFrom: number;
  yearTo: number;
  /** YYYY-MM-DD: sales before this day are too old to compare. */
  soldSince: string;
  limit: number;
}

/** The organization's comparable units (used or CPO, this make and model, the years asked). */
function sameVehicle<T extends typeof inventoryUnits | typeof deals>(table: T, orgId: string, query: ComparableQuery) {
  return and(
    eq(table.orgId, orgId),
    sql`lower(${table.make}) = ${query.make.toLowerCase()}`,
    sql`lower(${table.model}) = ${query.model.toLowerCase()}`,
    gte(table.year, query.yearFrom),
    sql`${table.year} <= ${query.yearTo}`,
    inArray(table.condition, ["used", "cpo"]),
  );
}

/** The comparable units in stock, at their asking price, newest stocked first. */
function comparablesInStock(db: SqliteReader, orgId: string, query: ComparableQuery) {
  return db
    .select({ year: inventoryUnits.year, trim: inventoryUnits.trim, mileage: inventoryUnits.mileage, price: inventoryUnits.askingPrice })
    .from(inventoryUnits)
    .where(and(sameVehicle(inventoryUnits, orgId, query), eq(inventoryUnits.status, "in_stock")))
    .orderBy(desc(inventoryUnits.stockedOn))
    .limit(query.limit);
}

const unitOfVinColumns = { vin: inventoryUnits.vin, trim: inventoryUnits.trim, mileage: inventoryUnits.mileage };
type UnitOfVin = { vin: string; trim: string; mileage: number };

/**
 * The sold and in-stock comparables with the sold units' trim and odometer: what the appraisal
 * reads of an organization's deals and units, in one call to its storage object. Three reads: the
 * recent sales (not unwound) at their selling price, the comparable units in stock, and the trim
 * and odometer of the units every recent sale's VIN names (a few hundred at most, and no second
 * ORDER BY to agree with).
 */
export async function comparablesOf(db: SqliteReader, orgId: string, query: ComparableQuery) {
  const recentSales = and(sameVehicle(deals, orgId, query), ne(deals.status, "unwound"), gte(deals.soldOn, query.soldSince));
  const soldVins = db.select({ vin: deals.vin }).from(deals).where(recentSales);
  const [sold, inStock, units] = await Promise.all([
    db
      .select({ year: deals.year, price: deals.sellingPrice, soldOn: deals.soldOn, vin: deals.vin })
      .from(deals)
      .where(recentSales)
      .orderBy(desc(deals.soldOn))
      .limit(query.limit),
    comparablesInStock(db, orgId, query),
    db
      .select(unitOfVinColumns)
      .from(inventoryUnits)
      .where(and(eq(inventoryUnits.orgId, orgId), inArray(inventoryUnits.vin, soldVins))),
  ]);
  return { sold, inStock, units: units as UnitOfVin[] };
}

/** The comparables as the organization's object reads them, with its stores' settings and feeds' receipts, kept there. */
export type Comparables = Awaited<ReturnType<typeof comparablesOf>> & { settings: StoreSettingsRow[]; feeds: FeedReceipts };

/**
 * The store that prices the trade (the primary one) with its settings, and the organization's
 * comparable used units: in stock at their asking price, and sold (not unwound) at their selling
 * price, with the odometer and trim of the sold unit when the inventory still has it (joined by
 * VIN). The directory (D1) picks the store while `comparables` reads the rest in one call to the
 * organization's object; a store the object holds no settings of prices nothing (null).
 */
export async function loadPricingData(
  db: Database,
  orgId: string,
  query: ComparableQuery,
  comparables: (query: ComparableQuery) => Promise<Comparables>,
) {
  const storeRead = db
    .select({ id: stores.id, name: stores.name, marketZip: stores.marketZip })
    .from(stores)
    .where(eq(stores.orgId, orgId))
    .orderBy(desc(stores.isPrimary), asc(stores.createdAt), asc(stores.id))
    .limit(1);
  const [[store], { sold, inStock, units, settings, feeds }] = await Promise.all([storeRead, comparables(query)]);
  const kept = store && settings.find((s) => s.id === store.id);
  return { store: store && kept ? { ...kept, ...store } : null, inStock, sold: withSoldUnits(sold, units, query.limit), feeds };
}

/** Each sale with the trim and odometer of the unit its VIN names (a row per such unit, as a left join gives), or none. */
function withSoldUnits(sold: readonly { year: number; price: number; soldOn: string; vin: string }[], units: readonly UnitOfVin[], limit: number) {
  const byVin = new Map<string, UnitOfVin[]>();
  for (const unit of units) byVin.set(unit.vin, [...(byVin.get(unit.vin) ?? []), unit]);
  const none = [{ trim: null, mileage: null }];
  return sold.flatMap(({ vin, ...sale }) => (byVin.get(vin) ?? none).map((u) => ({ ...sale, trim: u.trim, mileage: u.mileage }))).slice(0, limit);
}
