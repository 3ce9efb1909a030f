import { and, asc, desc, eq, lt, or, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import { inChunks, runBatch } from "../batch";
import { type Database, readRowArrays, type SqlTemplate } from "../client";
import { complianceSettings, lenderPrograms, settingsAudit, storeLenderPanel, stores } from "../schema";

/** The columns of `stores` that are settings (docs/settings.md), as the engines read them. */
export const storeSettingsColumns = {
  id: stores.id,
  name: stores.name,
  packNew: stores.packNew,
  packUsed: stores.packUsed,
  holdingCostPerDay: stores.holdingCostPerDay,
  holdingHighValueCost: stores.holdingHighValueCost,
  holdingHighValueDailyPct: stores.holdingHighValueDailyPct,
  floorplanAprNew: stores.floorplanAprNew,
  floorplanAprUsed: stores.floorplanAprUsed,
  floorplanAssistanceNewPerDay: stores.floorplanAssistanceNewPerDay,
  overheadNewPerDay: stores.overheadNewPerDay,
  wholesaleRatioPct: stores.wholesaleRatioPct,
  auctionFees: stores.auctionFees,
  reconCar: stores.reconCar,
  reconTruck: stores.reconTruck,
  reconSuv: stores.reconSuv,
  reconVan: stores.reconVan,
  agedThresholdDays: stores.agedThresholdDays,
  agedThresholdDaysNew: stores.agedThresholdDaysNew,
  targetFrontGrossUsedPct: stores.targetFrontGrossUsedPct,
  targetFrontGrossUsedMin: stores.targetFrontGrossUsedMin,
};

export type StoreSettingsRow = NonNullable<Awaited<ReturnType<typeof findStoreSettings>>>;
export type StoreSettingsPatch = Partial<Omit<StoreSettingsRow, "id" | "name">>;
export type AuditEntry = Omit<typeof settingsAudit.$inferInsert, "orgId">;

let listStoreSettingsStatement: SqlTemplate | undefined;
const STORE_SETTINGS_KEYS = Object.keys(storeSettingsColumns) as (keyof StoreSettingsRow)[];

/**
 * The statement is built on first use and run as arrays: `GET /api/settings/stores` reads it on
 * every call, and drizzle's query building was the largest share of that call's CPU after D1
 * itself (BENCHMARKS.md, "Profiles").
 */
export async function listStoreSettings(db: Database, orgId: string): Promise<StoreSettingsRow[]> {
  listStoreSettingsStatement ??= new QueryBuilder()
    .select(storeSettingsColumns)
    .from(stores)
    .where(eq(stores.orgId, sql.placeholder("orgId")))
    .orderBy(asc(stores.id))
    .toSQL();
  const rows = await readRowArrays<unknown[]>(db, listStoreSettingsStatement, { orgId });
  return rows.map((row) => Object.fromEntries(STORE_SETTINGS_KEYS.map((key, i) => [key, row[i]])) as StoreSettingsRow);
}

export async function findStoreSettings(db: Database, orgId: string, storeId: string) {
  const [row] = await db
    .select(storeSettingsColumns)
    .from(stores)
    .where(and(eq(stores.orgId, orgId), eq(stores.id, storeId)))
    .limit(1);
  return row ?? null;
}

/** A change of every store field binds more than D1's 100 parameters in one insert: in parts. */
const auditInserts = (db: Database, orgId: string, entries: readonly AuditEntry[]) =>
  inChunks(entries, (part) => db.insert(settingsAudit).values(part.map((entry) => ({ ...entry, orgId }))));

/** The change and its audit rows in one batch: both are written or neither. */
export async function updateStoreSettings(db: Database, orgId: string, storeId: string, patch: StoreSettingsPatch, audit: readonly AuditEntry[]) {
  await runBatch(db, [
    db
      .update(stores)
      .set(patch)
      .where(and(eq(stores.orgId, orgId), eq(stores.id, storeId))),
    ...auditInserts(db, orgId, audit),
  ]);
}

/** The store's panel with each program's name and type, by name. */
export async function listLenderPanel(db: Database, orgId: string, storeId: string) {
  return db
    .select({ id: lenderPrograms.id, name: lenderPrograms.name, type: lenderPrograms.type })
    .from(storeLenderPanel)
    .innerJoin(lenderPrograms, eq(lenderPrograms.id, storeLenderPanel.programId))
    .where(and(eq(storeLenderPanel.orgId, orgId), eq(storeLenderPanel.storeId, storeId)))
    .orderBy(asc(lenderPrograms.name));
}

/** Every program of the shared matrix, to resolve names and ids against (53 rows). */
export async function listLenderProgramNames(db: Database) {
  return db.select({ id: lenderPrograms.id, name: lenderPrograms.name, type: lenderPrograms.type }).from(lenderPrograms);
}

/** Replaces the whole panel and records it, in one batch: no reader sees half a panel. */
export async function replaceLenderPanel(db: Database, orgId: string, storeId: string, programIds: readonly string[], audit: readonly AuditEntry[]) {
  await runBatch(db, [
    db.delete(storeLenderPanel).where(and(eq(storeLenderPanel.orgId, orgId), eq(storeLenderPanel.storeId, storeId))),
    ...inChunks(programIds, (part) => db.insert(storeLenderPanel).values(part.map((programId) => ({ orgId, storeId, programId })))),
    ...auditInserts(db, orgId, audit),
  ]);
}

/** The organization's own screening row and the defaults row ('*'), either possibly absent. */
export async function loadComplianceSettingRows(db: Database, orgId: string) {
  const rows = await db
    .select()
    .from(complianceSettings)
    .where(or(eq(complianceSettings.orgId, orgId), eq(complianceSettings.orgId, "*")));
  return { own: rows.find((r) => r.orgId === orgId) ?? null, defaults: rows.find((r) => r.orgId === "*") ?? null };
}

export type ComplianceSettingsValues = Pick<
  typeof complianceSettings.$inferSelect,
  "holdScore" | "flagScore" | "maxListAgeDays" | "minimumAge" | "maximumAge"
>;

/** Writes the organization's whole row (created from the defaults on its first change) with its audit rows. */
export async function saveComplianceSettings(
  db: Database,
  orgId: string,
  values: ComplianceSettingsValues,
  updatedAt: string,
  audit: readonly AuditEntry[],
) {
  await runBatch(db, [
    db
      .insert(complianceSettings)
      .values({ orgId, ...values, updatedAt })
      .onConflictDoUpdate({ target: complianceSettings.orgId, set: { ...values, updatedAt } }),
    ...auditInserts(db, orgId, audit),
  ]);
}

export interface AuditCursor {
  changedAt: string;
  id: string;
}

/** Newest first; `after` is the last row of the previous page. */
export async function listSettingsAudit(db: Database, orgId: string, page: { limit: number; after?: AuditCursor }) {
  const { after } = page;
  return db
    .select()
    .from(settingsAudit)
    .where(
      and(
        eq(settingsAudit.orgId, orgId),
        after
          ? or(lt(settingsAudit.changedAt, after.changedAt), and(eq(settingsAudit.changedAt, after.changedAt), lt(settingsAudit.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(desc(settingsAudit.changedAt), desc(settingsAudit.id))
    .limit(page.limit);
}

export type SettingsAuditRow = Awaited<ReturnType<typeof listSettingsAudit>>[number];
