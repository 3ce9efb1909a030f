import { and, asc, desc, eq, lt, or, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import { newId } from "../../lib/ids";
import { type Database, readRowArrays, type SqliteReader, type SqlTemplate } from "../client";
import { settingsAudit, storeLenderPanel, stores } from "../org-schema";
import { complianceSettings, lenderPrograms } from "../schema";

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
  inventoryStaleHours: stores.inventoryStaleHours,
  dealsStaleHours: stores.dealsStaleHours,
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
export async function listStoreSettings(db: SqliteReader, orgId: string): Promise<StoreSettingsRow[]> {
  listStoreSettingsStatement ??= new QueryBuilder()
    .select(storeSettingsColumns)
    .from(stores)
    .where(eq(stores.orgId, sql.placeholder("orgId")))
    .orderBy(asc(stores.id))
    .toSQL();
  const rows = await readRowArrays<unknown[]>(db, listStoreSettingsStatement, { orgId });
  return rows.map((row) => Object.fromEntries(STORE_SETTINGS_KEYS.map((key, i) => [key, row[i]])) as StoreSettingsRow);
}

/** One store's settings, unexecuted: D1 awaits it, the organization's object runs it inside its write's transaction. */
export const storeSettingsQuery = (db: SqliteReader, orgId: string, storeId: string) =>
  db
    .select(storeSettingsColumns)
    .from(stores)
    .where(and(eq(stores.orgId, orgId), eq(stores.id, storeId)))
    .limit(1);

export async function findStoreSettings(db: SqliteReader, orgId: string, storeId: string) {
  const [row] = await storeSettingsQuery(db, orgId, storeId);
  return row ?? null;
}

/** A changed setting as a request names it: its field in the API, its column, its new value. */
export interface SettingChange {
  field: string;
  column: keyof StoreSettingsPatch;
  value: number;
}

/** One audit row of a change: the values before and after as JSON. */
const auditEntry = (
  storeId: string | null,
  area: AuditEntry["area"],
  field: string,
  oldValue: unknown,
  newValue: unknown,
  actor: string,
  changedAt: string,
): AuditEntry => ({
  id: newId("set"),
  storeId,
  area,
  field,
  oldValue: JSON.stringify(oldValue),
  newValue: JSON.stringify(newValue),
  actor,
  changedAt,
});

/**
 * What a change does to the store's settings `before`: the columns whose value differs, each with
 * its audit row recording the value it replaces (a field sent unchanged writes nothing); the
 * organization's object applies it (`changeStoreSettings`).
 */
export function planStoreSettingsChange(before: StoreSettingsRow, fields: readonly SettingChange[], actor: string, changedAt: string) {
  const changes: StoreSettingsPatch = {};
  const entries: AuditEntry[] = [];
  for (const { field, column, value } of fields) {
    if (value === before[column]) continue;
    changes[column] = value;
    entries.push(auditEntry(before.id, "store", field, before[column], value, actor, changedAt));
  }
  return { changes, entries };
}

/** The settings columns, without the store's id and name. */
export const STORE_SETTING_KEYS = STORE_SETTINGS_KEYS.filter((key): key is keyof StoreSettingsPatch => key !== "id" && key !== "name");

/** Every program of the shared matrix, to resolve names and ids against (53 rows). */
export async function listLenderProgramNames(db: Database) {
  return db.select({ id: lenderPrograms.id, name: lenderPrograms.name, type: lenderPrograms.type }).from(lenderPrograms);
}

const panelWhere = (orgId: string, storeId: string) => and(eq(storeLenderPanel.orgId, orgId), eq(storeLenderPanel.storeId, storeId));

/** The program ids of a store's panel, sorted, unexecuted: D1 awaits it, the organization's object runs it inside its write's transaction. */
export const panelIdsQuery = (db: SqliteReader, orgId: string, storeId: string) =>
  db
    .select({ programId: storeLenderPanel.programId })
    .from(storeLenderPanel)
    .where(panelWhere(orgId, storeId))
    .orderBy(asc(storeLenderPanel.programId));

/** The audit row of a panel change (the sorted ids before and after), or null when the panel stays as it is. */
export function planLenderPanelChange(storeId: string, beforeIds: readonly string[], afterIds: readonly string[], actor: string, changedAt: string) {
  if (JSON.stringify(beforeIds) === JSON.stringify(afterIds)) return null;
  return auditEntry(storeId, "lender_panel", "programs", beforeIds, afterIds, actor, changedAt);
}

const COMPLIANCE_VALUE_KEYS = ["holdScore", "flagScore", "maxListAgeDays", "minimumAge", "maximumAge"] as const;
type ComplianceSettingsRow = typeof complianceSettings.$inferSelect;
export type ComplianceSettingsValues = Pick<ComplianceSettingsRow, (typeof COMPLIANCE_VALUE_KEYS)[number]>;

/** The thresholds of a row, without its organization and time. */
export const complianceValuesOf = (row: ComplianceSettingsValues): ComplianceSettingsValues =>
  Object.fromEntries(COMPLIANCE_VALUE_KEYS.map((key) => [key, row[key]])) as ComplianceSettingsValues;

/** The default thresholds (D1's '*' row, reference data): those in force for an organization whose object holds none of its own. */
export async function getComplianceDefaults(db: Database): Promise<ComplianceSettingsValues | null> {
  const [row] = await db.select().from(complianceSettings).where(eq(complianceSettings.orgId, "*")).limit(1);
  return row ? complianceValuesOf(row) : null;
}

export const sameComplianceValues = (a: ComplianceSettingsValues, b: ComplianceSettingsValues) =>
  COMPLIANCE_VALUE_KEYS.every((key) => a[key] === b[key]);

/** A changed threshold as a request names it: its field in the API, its column, its new value. */
export interface ComplianceChange {
  field: string;
  column: keyof ComplianceSettingsValues;
  value: number;
}

/**
 * What a change does to the thresholds in force (`effective`: the organization's row, else the
 * defaults): the values after, and an audit row per value that differs; the organization's object
 * refuses `holdBelowFlag` before anything is written.
 */
export function planComplianceChange(effective: ComplianceSettingsValues, fields: readonly ComplianceChange[], actor: string, changedAt: string) {
  const next = complianceValuesOf(effective);
  const entries: AuditEntry[] = [];
  for (const { field, column, value } of fields) {
    if (value === effective[column]) continue;
    next[column] = value;
    entries.push(auditEntry(null, "compliance", field, effective[column], value, actor, changedAt));
  }
  return { next, entries, holdBelowFlag: next.holdScore < next.flagScore };
}

/** The organization's own thresholds row, unexecuted: the organization's object runs it inside its transaction. */
export const ownComplianceSettingsQuery = (db: SqliteReader, orgId: string) =>
  db.select().from(complianceSettings).where(eq(complianceSettings.orgId, orgId)).limit(1);

export interface AuditCursor {
  changedAt: string;
  id: string;
}

/** Newest first; `after` is the last row of the previous page. */
export async function listSettingsAudit(db: SqliteReader, orgId: string, page: { limit: number; after?: AuditCursor }) {
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
