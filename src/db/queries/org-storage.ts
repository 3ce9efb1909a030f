import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { and, asc, eq, getTableColumns, gt, isNotNull, lte, notInArray, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable, SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { inChunks } from "../batch";
import type { Database, SqliteReader } from "../client";
import {
  agedInventoryAlerts,
  complianceChecks,
  complianceSettings,
  dealStips,
  deals,
  eventOutbox,
  inventoryUnits,
  lenderDecisions,
  lenderOutcomeEpisodes,
  morningBriefings,
  type OrgStoragePlace,
  organizations,
  salesMonthly,
  settingsAudit,
  storeFeeds,
  storeLenderPanel,
  stores,
  unitMarketValues,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "../schema";
import { listStoreSettings, STORE_SETTING_KEYS, type StoreSettingsRow, storeSettingsColumns } from "./settings";

/**
 * The moved groups' tables (inventory, deals) as a move copies and checks them (docs/scaling.md#how-an-organization-moves-d1--its-object):
 * the same query runs on D1 and on the organization's object, whose tables carry the same names.
 */

/** Where the organization's data lives now, read at the primary: the flag a move flips. */
export async function readOrgStorage(db: Database, orgId: string): Promise<OrgStoragePlace | undefined> {
  const [row] = await db.select({ storage: organizations.storage }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row?.storage;
}

/**
 * Moves the flag from `from` to `to`, only if it still says `from`: whether it did. `movedAt` is
 * the life cycle's stamp with it: a move's flip sets it (the undo window starts), an undo's clears it.
 */
export async function switchOrgStorage(
  db: Database,
  orgId: string,
  from: OrgStoragePlace,
  to: OrgStoragePlace,
  movedAt?: { storageMovedAt: string | null },
): Promise<boolean> {
  const rows = await db
    .update(organizations)
    .set({ storage: to, ...movedAt })
    .where(and(eq(organizations.id, orgId), eq(organizations.storage, from)))
    .returning({ id: organizations.id });
  return rows.length === 1;
}

/** A unit with every column, as a move carries it. */
export type StoredUnit = typeof inventoryUnits.$inferSelect;
const UNIT_COLUMNS = getTableColumns(inventoryUnits);

/** The organization's units after `afterId` (by id), at most `limit`: one page of a copy. */
export function readUnitPage(db: SqliteReader, orgId: string, afterId: string | undefined, limit: number): Promise<StoredUnit[]> {
  return db
    .select(UNIT_COLUMNS)
    .from(inventoryUnits)
    .where(and(eq(inventoryUnits.orgId, orgId), afterId === undefined ? undefined : gt(inventoryUnits.id, afterId)))
    .orderBy(asc(inventoryUnits.id))
    .limit(limit);
}

/** A market value with every column, as a move carries it. */
export type StoredMarketValue = typeof unitMarketValues.$inferSelect;
const MARKET_VALUE_COLUMNS = getTableColumns(unitMarketValues);

/** The market values of the units with ids after `afterId` up to `throughId` (the range of one page of units; open-ended without it). */
export function readMarketValuePage(
  db: SqliteReader,
  orgId: string,
  afterId: string | undefined,
  throughId: string | undefined,
): Promise<StoredMarketValue[]> {
  const v = unitMarketValues;
  return db
    .select(MARKET_VALUE_COLUMNS)
    .from(v)
    .where(
      and(
        eq(v.orgId, orgId),
        afterId === undefined ? undefined : gt(v.unitId, afterId),
        throughId === undefined ? undefined : lte(v.unitId, throughId),
      ),
    )
    .orderBy(asc(v.unitId));
}

/** The organization's stores as the object holds them: id and name (the directory keeps the rest). */
export function readStoreNames(db: SqliteReader, orgId: string): Promise<{ id: string; name: string }[]> {
  return db.select({ id: stores.id, name: stores.name }).from(stores).where(eq(stores.orgId, orgId)).orderBy(asc(stores.id));
}

/** A deal, a stip and a month of the sales rollup with every column, as a move carries them. */
export type StoredDeal = typeof deals.$inferSelect;
export type StoredStip = typeof dealStips.$inferSelect;
export type StoredSalesMonth = typeof salesMonthly.$inferSelect;
const DEAL_COLUMNS = getTableColumns(deals);
const STIP_COLUMNS = getTableColumns(dealStips);

/** The organization's deals after `afterId` (by id), at most `limit`, with their stips: one page of a copy. */
export async function readDealPage(
  db: SqliteReader,
  orgId: string,
  afterId: string | undefined,
  limit: number,
): Promise<{ deals: StoredDeal[]; stips: StoredStip[] }> {
  const page = await db
    .select(DEAL_COLUMNS)
    .from(deals)
    .where(and(eq(deals.orgId, orgId), afterId === undefined ? undefined : gt(deals.id, afterId)))
    .orderBy(asc(deals.id))
    .limit(limit);
  const last = page.length < limit ? undefined : page.at(-1)?.id;
  return { deals: page, stips: await readStipPage(db, orgId, afterId, last) };
}

/** The stips of the deals with ids after `afterId` up to `throughId` (the range of one page of deals; open-ended without it). */
function readStipPage(db: SqliteReader, orgId: string, afterId: string | undefined, throughId: string | undefined): Promise<StoredStip[]> {
  const s = dealStips;
  return db
    .select(STIP_COLUMNS)
    .from(s)
    .where(
      and(
        eq(s.orgId, orgId),
        afterId === undefined ? undefined : gt(s.dealId, afterId),
        throughId === undefined ? undefined : lte(s.dealId, throughId),
      ),
    )
    .orderBy(asc(s.dealId), asc(s.id));
}

/** The organization's monthly sales rollup, whole (a row per store and month: small). */
export function readSalesMonths(db: SqliteReader, orgId: string): Promise<StoredSalesMonth[]> {
  const m = salesMonthly;
  return db.select(getTableColumns(m)).from(m).where(eq(m.orgId, orgId)).orderBy(asc(m.storeId), asc(m.saleMonth));
}

/** Rows and a SHA-256 of them in order: what a move compares per table. */
export interface TableDigest {
  rows: number;
  sha256: string;
}

function digest(rows: readonly object[]): TableDigest {
  const hash = sha256.create();
  for (const row of rows) hash.update(utf8ToBytes(`${JSON.stringify(Object.values(row))}\n`));
  return { rows: rows.length, sha256: bytesToHex(hash.digest()) };
}

/** The moved tables of a digest. */
export type GroupTable = "inventory_units" | "unit_market_values" | "stores" | "deals" | "deal_stips" | "sales_monthly" | ChecksTable;

/**
 * The groups' digest on either side: every unit and market value (every column, by unit id), the
 * stores the feed names, every deal and stip (by id) and the monthly sales rollup.
 */
export async function groupDigest(db: SqliteReader, orgId: string): Promise<Record<GroupTable, TableDigest>> {
  const units = await db.select(UNIT_COLUMNS).from(inventoryUnits).where(eq(inventoryUnits.orgId, orgId)).orderBy(asc(inventoryUnits.id));
  const dealPage = await readDealPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER);
  return {
    inventory_units: digest(units),
    unit_market_values: digest(await readMarketValuePage(db, orgId, undefined, undefined)),
    stores: digest(await readStoreNames(db, orgId)),
    deals: digest(dealPage.deals),
    deal_stips: digest(dealPage.stips),
    sales_monthly: digest(await readSalesMonths(db, orgId)),
    ...(await checksDigest(db, orgId)),
  };
}

/** Writes rows back into D1 (the undo of a move): each as the object holds it, by id. */
function restoreRows<
  T extends
    | typeof inventoryUnits
    | typeof deals
    | typeof dealStips
    | typeof complianceChecks
    | typeof lenderDecisions
    | typeof lenderOutcomeEpisodes
    | typeof webhookEndpoints
    | typeof webhookDeliveries,
>(db: Database, table: T, rows: readonly T["$inferInsert"][]) {
  const { id: _id, ...rest } = getTableColumns(table);
  const set = Object.fromEntries(Object.entries(rest).map(([key, column]) => [key, sql.raw(`excluded.${column.name}`)]));
  return rows.map((row) =>
    db
      .insert(table)
      .values(row)
      .onConflictDoUpdate({ target: table.id, set: set as SQLiteUpdateSetSource<T> }),
  );
}

export const restoreUnits = (db: Database, units: readonly StoredUnit[]) => restoreRows(db, inventoryUnits, units);
/** A page of deals and their stips, the deals first (a stip refers to its deal); D1's triggers rebuild their months of the rollup. */
export const restoreDeals = (db: Database, page: { deals: readonly StoredDeal[]; stips: readonly StoredStip[] }) => [
  ...restoreRows(db, deals, page.deals),
  ...restoreRows(db, dealStips, page.stips),
];

// --- the compliance checks group (compliance_checks) -------------------------------------------

/** A screening's audit row with every column, as a move carries it (its person as keyed hashes only). */
export type StoredCheck = typeof complianceChecks.$inferSelect;
const CHECK_COLUMNS = getTableColumns(complianceChecks);
type ChecksTable = "compliance_checks";

/** The organization's checks after `afterId` (by id), at most `limit`: one page of a copy. */
export function readCheckPage(db: SqliteReader, orgId: string, afterId: string | undefined, limit: number): Promise<StoredCheck[]> {
  const c = complianceChecks;
  return db
    .select(CHECK_COLUMNS)
    .from(c)
    .where(and(eq(c.orgId, orgId), afterId === undefined ? undefined : gt(c.id, afterId)))
    .orderBy(asc(c.id))
    .limit(limit);
}

/** The checks' part of a move's digest: every check, every column, by id. */
async function checksDigest(db: SqliteReader, orgId: string): Promise<Record<ChecksTable, TableDigest>> {
  return { compliance_checks: digest(await readCheckPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER)) };
}

/**
 * A page of the object's checks written back into D1 (the undo of a move), the ids after `afterId`
 * up to `throughId` (open-ended without it): each check by id, and D1's checks of that range the
 * object no longer holds deleted (its alarm's retention deleted them), so both sides verify equal.
 */
export function restoreChecks(
  db: Database,
  orgId: string,
  checks: readonly StoredCheck[],
  afterId: string | undefined,
  throughId: string | undefined,
) {
  const c = complianceChecks;
  const gone = db.delete(c).where(
    and(
      eq(c.orgId, orgId),
      afterId === undefined ? undefined : gt(c.id, afterId),
      throughId === undefined ? undefined : lte(c.id, throughId),
      // One JSON array, not a parameter per id: D1 binds at most 100.
      sql`${c.id} NOT IN (SELECT value FROM json_each(${JSON.stringify(checks.map((check) => check.id))}))`,
    ),
  );
  return [gone, ...restoreRows(db, c, checks)];
}

// --- the lender decisions group (lender_decisions, lender_outcome_episodes) ----------------------

/** A decision and an episode with every column, as a move carries them. */
export type StoredDecision = typeof lenderDecisions.$inferSelect;
export type StoredEpisode = typeof lenderOutcomeEpisodes.$inferSelect;
const DECISION_COLUMNS = getTableColumns(lenderDecisions);

/** The organization's decisions after `afterId` (by id), at most `limit`: one page of a copy. */
export function readDecisionPage(db: SqliteReader, orgId: string, afterId: string | undefined, limit: number): Promise<StoredDecision[]> {
  const d = lenderDecisions;
  return db
    .select(DECISION_COLUMNS)
    .from(d)
    .where(and(eq(d.orgId, orgId), afterId === undefined ? undefined : gt(d.id, afterId)))
    .orderBy(asc(d.id))
    .limit(limit);
}

/** The organization's episodes, whole (a few per store and program at most). */
export function readEpisodes(db: SqliteReader, orgId: string): Promise<StoredEpisode[]> {
  const e = lenderOutcomeEpisodes;
  return db.select(getTableColumns(e)).from(e).where(eq(e.orgId, orgId)).orderBy(asc(e.id));
}

export type LenderTable = "lender_decisions" | "lender_outcome_episodes";

/** The lender decisions group's digest on either side: every decision and episode, every column, by id. */
export async function lenderDigest(db: SqliteReader, orgId: string): Promise<Record<LenderTable, TableDigest>> {
  const [decisions, episodes] = await Promise.all([readDecisionPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER), readEpisodes(db, orgId)]);
  return { lender_decisions: digest(decisions), lender_outcome_episodes: digest(episodes) };
}

/**
 * A page of decisions, and with the last the episodes, written back into D1 (an undo) by id. The
 * closed episodes before the open ones: an episode the object closed frees its store and program
 * for one it opened since (the open-episode index is unique).
 */
export const restoreLenderDecisions = (db: Database, page: { decisions: readonly StoredDecision[]; episodes?: readonly StoredEpisode[] }) => [
  ...restoreRows(db, lenderDecisions, page.decisions),
  ...restoreRows(
    db,
    lenderOutcomeEpisodes,
    [...(page.episodes ?? [])].sort((a, b) => Number(a.closedAt === null) - Number(b.closedAt === null)),
  ),
];

// --- the webhooks group (webhook_endpoints, webhook_deliveries, webhook_attempts) -----------------

/** An endpoint (its secrets as ciphertext), a delivery, an attempt and a delivery's event with every column, as a move carries them. */
export type StoredEndpoint = typeof webhookEndpoints.$inferSelect;
type StoredDelivery = typeof webhookDeliveries.$inferSelect;
type StoredAttempt = typeof webhookAttempts.$inferSelect;
type StoredEvent = typeof eventOutbox.$inferSelect;
export type WebhooksTable = "webhook_endpoints" | "webhook_deliveries" | "webhook_attempts";
export interface WebhookPage {
  deliveries: StoredDelivery[];
  attempts: StoredAttempt[];
  /** The events the page's deliveries refer to (the object keeps them with them; D1 holds them already, a sample's excepted). */
  events: StoredEvent[];
}

/** The organization's endpoints, whole (at most MAX_ENDPOINTS_PER_ORG). */
export function readEndpoints(db: SqliteReader, orgId: string): Promise<StoredEndpoint[]> {
  const e = webhookEndpoints;
  return db.select(getTableColumns(e)).from(e).where(eq(e.orgId, orgId)).orderBy(asc(e.id));
}

/** The organization's deliveries after `afterId` (by id), at most `limit`, with their attempts and events: one page of a copy. */
export async function readDeliveryPage(db: SqliteReader, orgId: string, afterId: string | undefined, limit: number): Promise<WebhookPage> {
  const d = webhookDeliveries;
  const deliveries = await db
    .select(getTableColumns(d))
    .from(d)
    .where(and(eq(d.orgId, orgId), afterId === undefined ? undefined : gt(d.id, afterId)))
    .orderBy(asc(d.id))
    .limit(limit);
  if (deliveries.length === 0) return { deliveries, attempts: [], events: [] };
  // One JSON array, not a parameter per id: D1 binds at most 100.
  const ids = JSON.stringify(deliveries.map((delivery) => delivery.id));
  const a = webhookAttempts;
  const attempts = await db
    .select(getTableColumns(a))
    .from(a)
    .where(and(eq(a.orgId, orgId), sql`${a.deliveryId} IN (SELECT value FROM json_each(${ids}))`))
    .orderBy(asc(a.deliveryId), asc(a.attempt));
  const events = await db
    .select(getTableColumns(eventOutbox))
    .from(eventOutbox)
    .where(
      and(
        eq(eventOutbox.orgId, orgId),
        sql`${eventOutbox.id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(deliveries.map((delivery) => delivery.eventId))])}))`,
      ),
    );
  return { deliveries, attempts, events };
}

/** The webhooks group's digest on either side: every endpoint, delivery and attempt, every column, by id. */
export async function webhooksDigest(db: SqliteReader, orgId: string): Promise<Record<WebhooksTable, TableDigest>> {
  const page = await readDeliveryPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER);
  return {
    webhook_endpoints: digest(await readEndpoints(db, orgId)),
    webhook_deliveries: digest(page.deliveries),
    webhook_attempts: digest(page.attempts),
  };
}

/**
 * The object's endpoints written back into D1 (an undo), by id, and D1's endpoints the object no
 * longer holds deleted (their deliveries and attempts go with them: ON DELETE CASCADE).
 */
export function restoreEndpoints(db: Database, orgId: string, endpoints: readonly StoredEndpoint[]) {
  const e = webhookEndpoints;
  const kept = endpoints.map((endpoint) => endpoint.id);
  return [db.delete(e).where(and(eq(e.orgId, orgId), kept.length === 0 ? undefined : notInArray(e.id, kept))), ...restoreRows(db, e, endpoints)];
}

/** A page of the object's deliveries written back into D1 by id, their events first (a sample's is the object's only), then their attempts. */
export function restoreDeliveries(db: Database, page: WebhookPage) {
  const a = webhookAttempts;
  const { deliveryId: _d, attempt: _a, ...rest } = getTableColumns(a);
  const set = Object.fromEntries(Object.entries(rest).map(([key, column]) => [key, sql.raw(`excluded.${column.name}`)]));
  return [
    ...page.events.map((event) => db.insert(eventOutbox).values(event).onConflictDoNothing()),
    ...restoreRows(db, webhookDeliveries, page.deliveries),
    ...page.attempts.map((attempt) =>
      db
        .insert(a)
        .values(attempt)
        .onConflictDoUpdate({ target: [a.deliveryId, a.attempt], set: set as SQLiteUpdateSetSource<typeof a> }),
    ),
  ];
}

/**
 * The head of a D1 write of the group's tables: it fails the batch unless the organization's data
 * still lives in D1, so a request that read the flag before a move (credentials are cached for up
 * to 60 s) never writes to a copy the move has left. The error names the fence
 * (`isStorageMovedError`); a bad JSON path is a failure no other statement raises.
 */
export function unlessStorageInD1(db: Database, orgId: string) {
  return db
    .select({ fence: sql<number>`case when ${organizations.storage} = 'd1' then 1 else json_extract('{}', '$storage moved') end` })
    .from(organizations)
    .where(eq(organizations.id, orgId));
}

export const isStorageMovedError = (error: unknown) => error instanceof Error && /storage moved/.test(`${error.message} ${error.cause ?? ""}`);

// --- the settings group (the settings columns of `stores`, settings_audit) ---------------------

/** A store's id, name and settings, and an audit row with every column, as a move carries them. */
export type StoredStoreSettings = StoreSettingsRow;
/** A new store's settings: its id and name, and the settings it was created with (the others take their defaults). */
export type NewStoreSettings = Pick<StoreSettingsRow, "id" | "name"> & Partial<StoreSettingsRow>;
export type StoredAudit = typeof settingsAudit.$inferSelect;
export type SettingsTable = "store_settings" | "settings_audit";

/** The organization's audit rows (every area: its stores', panels' and thresholds') after `afterId` (by id), at most `limit`: one page of a copy. */
export function readAuditPage(db: SqliteReader, orgId: string, afterId: string | undefined, limit: number): Promise<StoredAudit[]> {
  const a = settingsAudit;
  return db
    .select(getTableColumns(a))
    .from(a)
    .where(and(eq(a.orgId, orgId), afterId === undefined ? undefined : gt(a.id, afterId)))
    .orderBy(asc(a.id))
    .limit(limit);
}

/** The settings group's digest on either side: every store's settings (by id) and every audit row of them (by id). */
export async function settingsDigest(db: SqliteReader, orgId: string): Promise<Record<SettingsTable, TableDigest>> {
  const [settings, audit] = await Promise.all([listStoreSettings(db, orgId), readAuditPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER)]);
  return { store_settings: digest(settings), settings_audit: digest(audit) };
}

/**
 * The object's settings written back into D1's directory rows (an undo), and a page of its audit
 * rows by id (an audit row never changes, so one D1 already holds is left as it is).
 */
export function restoreSettings(db: Database, orgId: string, settings: readonly StoredStoreSettings[] | undefined, audit: readonly StoredAudit[]) {
  const values = (row: StoredStoreSettings) => Object.fromEntries(STORE_SETTING_KEYS.map((key) => [key, row[key]]));
  return [
    ...(settings ?? []).map((row) =>
      db
        .update(stores)
        .set(values(row))
        .where(and(eq(stores.orgId, orgId), eq(storeSettingsColumns.id, row.id))),
    ),
    ...audit.map((entry) => db.insert(settingsAudit).values(entry).onConflictDoNothing()),
  ];
}

// --- the settings group's lender panels and screening thresholds (store_lender_panel, compliance_settings) --

/** A panel row and the organization's own thresholds row with every column, as a move carries them. */
export type StoredPanelRow = typeof storeLenderPanel.$inferSelect;
export type StoredThresholds = typeof complianceSettings.$inferSelect;
export type PanelsTable = "store_lender_panel" | "compliance_settings";

/** Every panel row of the organization (by store and program: a few dozen per store) and its own thresholds (the defaults, '*', are D1's reference). */
export async function readLenderPanels(db: SqliteReader, orgId: string): Promise<{ panels: StoredPanelRow[]; thresholds: StoredThresholds | null }> {
  const p = storeLenderPanel;
  const [panels, [thresholds]] = await Promise.all([
    db.select(getTableColumns(p)).from(p).where(eq(p.orgId, orgId)).orderBy(asc(p.storeId), asc(p.programId)),
    db.select(getTableColumns(complianceSettings)).from(complianceSettings).where(eq(complianceSettings.orgId, orgId)),
  ]);
  return { panels, thresholds: thresholds ?? null };
}

/** The panels' and thresholds' digest on either side: every row, every column, in key order. */
export async function panelsDigest(db: SqliteReader, orgId: string): Promise<Record<PanelsTable, TableDigest>> {
  const { panels, thresholds } = await readLenderPanels(db, orgId);
  return { store_lender_panel: digest(panels), compliance_settings: digest(thresholds === null ? [] : [thresholds]) };
}

/** The object's panels and thresholds written back into D1 (an undo): D1's copy of the organization's replaced by them, in one batch. */
export function restoreLenderPanels(db: Database, orgId: string, page: { panels: readonly StoredPanelRow[]; thresholds: StoredThresholds | null }) {
  return [
    db.delete(storeLenderPanel).where(eq(storeLenderPanel.orgId, orgId)),
    db.delete(complianceSettings).where(eq(complianceSettings.orgId, orgId)),
    ...inChunks(page.panels, (rows) => db.insert(storeLenderPanel).values(rows)),
    ...(page.thresholds === null ? [] : [db.insert(complianceSettings).values(page.thresholds)]),
  ];
}

// --- the move's life cycle: D1's copy kept for the undo window, then purged ---------------------

/**
 * D1's tables of every moved group, each after the tables that reference it (D1 has no ON DELETE
 * CASCADE here): what the purge after the undo window deletes, with `only` where D1 keeps some of a
 * table's rows (a group that moves adds its tables).
 */
interface MovedD1Table {
  table: SQLiteTable;
  only?: SQL;
  /**
   * The rows of another table these rows name (by the column `by`, that table's id), which the
   * object keeps beside them: a catch-up copies those it lacks with them (a delivery's event).
   */
  carries?: { table: SQLiteTable; by: string };
}

export const MOVED_D1_TABLES: readonly MovedD1Table[] = [
  // First: the rollup its deals' triggers keep, so a catch-up (which writes in the reverse order) writes D1's months after the deals.
  { table: salesMonthly },
  { table: unitMarketValues },
  { table: inventoryUnits },
  { table: dealStips },
  { table: deals },
  { table: complianceChecks },
  { table: lenderOutcomeEpisodes },
  { table: lenderDecisions },
  { table: settingsAudit },
  { table: storeLenderPanel },
  // The organization's own row only: the defaults ('*') are reference data and stay.
  { table: complianceSettings },
  { table: webhookAttempts },
  { table: webhookDeliveries, carries: { table: eventOutbox, by: "event_id" } },
  { table: webhookEndpoints },
  { table: morningBriefings },
  { table: agedInventoryAlerts },
  { table: storeFeeds },
];

/** When D1's copy of the organization's data was purged (an undo is refused from then on), or null while it is kept. */
export async function readD1CopyPurgedAt(db: Database, orgId: string): Promise<string | null> {
  const [row] = await db.select({ at: organizations.d1CopyPurgedAt }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row?.at ?? null;
}

/** Organizations in their object whose move flipped at or before `cutoff` and whose D1 copy is not all deleted yet, oldest flip first. */
export async function listD1CopiesDue(db: Database, cutoff: string, limit: number): Promise<string[]> {
  const o = organizations;
  const rows = await db
    .select({ id: o.id })
    .from(o)
    .where(and(eq(o.storage, "object"), isNotNull(o.storageMovedAt), lte(o.storageMovedAt, cutoff)))
    .orderBy(asc(o.storageMovedAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Claims the purge of D1's copy: stamps when (a purge resumed keeps the first stamp), only while
 * the organization is in its object and its flip is at or before `cutoff`. Whether it may delete.
 * An undo that flips to `returning` first makes this fail; one that flips after it finds the stamp and goes back.
 */
export async function claimD1CopyPurge(db: Database, orgId: string, cutoff: string, at: string): Promise<boolean> {
  const o = organizations;
  const rows = await db
    .update(o)
    .set({ d1CopyPurgedAt: sql`coalesce(${o.d1CopyPurgedAt}, ${at})` })
    .where(and(eq(o.id, orgId), eq(o.storage, "object"), lte(o.storageMovedAt, cutoff)))
    .returning({ id: o.id });
  return rows.length === 1;
}

/**
 * Deletes at most `limit` of the organization's rows of the first moved table that still holds
 * some, only while the organization is in its object: how many (0: D1's copy is gone).
 */
export async function deleteD1CopyRows(db: Database, orgId: string, limit: number): Promise<number> {
  const inObject = sql`(SELECT ${organizations.storage} FROM ${organizations} WHERE ${organizations.id} = ${orgId}) = 'object'`;
  for (const { table, only } of MOVED_D1_TABLES) {
    const rows = only === undefined ? sql`org_id = ${orgId}` : sql`org_id = ${orgId} AND ${only}`;
    const result = await db.run(sql`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${rows} AND ${inObject} LIMIT ${limit})`);
    const deleted = result.meta.changes ?? 0;
    if (deleted > 0) return deleted;
  }
  return 0;
}

/** The purge is done: the organization leaves the purge's list (its stamp stays, for the undo's refusal). */
export async function finishD1CopyPurge(db: Database, orgId: string): Promise<void> {
  await db
    .update(organizations)
    .set({ storageMovedAt: null })
    .where(and(eq(organizations.id, orgId), eq(organizations.storage, "object")));
}

// --- the briefings group (morning_briefings, aged_inventory_alerts) -------------------------------

/** A stored briefing and an aged crossing's marker with every column, as a move carries them. */
export type StoredBriefing = typeof morningBriefings.$inferSelect;
export type StoredAgedAlert = typeof agedInventoryAlerts.$inferSelect;
/** Where a page of briefings ends (their key in page order), and a page of markers. */
export type BriefingKey = Pick<StoredBriefing, "day" | "storeId" | "role">;
export type AgedAlertKey = Pick<StoredAgedAlert, "stockNumber" | "stockedOn">;
export type BriefingsTable = "morning_briefings" | "aged_inventory_alerts";

/** The organization's briefings after `after`, by day, store and role (their key), at most `limit`: one page of a copy. */
export function readBriefingPage(db: SqliteReader, orgId: string, after: BriefingKey | undefined, limit: number): Promise<StoredBriefing[]> {
  const b = morningBriefings;
  return db
    .select(getTableColumns(b))
    .from(b)
    .where(and(eq(b.orgId, orgId), after ? sql`(${b.day}, ${b.storeId}, ${b.role}) > (${after.day}, ${after.storeId}, ${after.role})` : undefined))
    .orderBy(asc(b.day), asc(b.storeId), asc(b.role))
    .limit(limit);
}

/** The organization's aged-alert markers after `after`, by stock number and stocking day (their key), at most `limit`. */
export function readAgedAlertMarkerPage(db: SqliteReader, orgId: string, after: AgedAlertKey | undefined, limit: number): Promise<StoredAgedAlert[]> {
  const a = agedInventoryAlerts;
  return db
    .select(getTableColumns(a))
    .from(a)
    .where(and(eq(a.orgId, orgId), after ? sql`(${a.stockNumber}, ${a.stockedOn}) > (${after.stockNumber}, ${after.stockedOn})` : undefined))
    .orderBy(asc(a.stockNumber), asc(a.stockedOn))
    .limit(limit);
}

/** The briefings group's digest on either side: every briefing and marker, every column, by key. */
export async function briefingsDigest(db: SqliteReader, orgId: string): Promise<Record<BriefingsTable, TableDigest>> {
  const [briefings, markers] = await Promise.all([
    readBriefingPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER),
    readAgedAlertMarkerPage(db, orgId, undefined, Number.MAX_SAFE_INTEGER),
  ]);
  return { morning_briefings: digest(briefings), aged_inventory_alerts: digest(markers) };
}

/**
 * The undo's first step for the group: D1's copy emptied, the object's pages then written back
 * (`restoreBriefings`). Briefings and markers are only ever added and expired, so the object's rows
 * are the whole truth, the ones its retention deleted since the move included.
 */
export const forgetBriefings = (db: Database, orgId: string) => [
  db.delete(morningBriefings).where(eq(morningBriefings.orgId, orgId)),
  db.delete(agedInventoryAlerts).where(eq(agedInventoryAlerts.orgId, orgId)),
];

/** A page of the object's briefings or markers written into D1 (an undo, after `forgetBriefings`). */
export const restoreBriefings = (db: Database, page: { briefings: readonly StoredBriefing[]; markers: readonly StoredAgedAlert[] }) => [
  ...page.briefings.map((row) => db.insert(morningBriefings).values(row)),
  ...page.markers.map((row) => db.insert(agedInventoryAlerts).values(row)),
];

// --- the store feeds group (store_feeds) ----------------------------------------------------------

/** A store's last delivery of a feed and its open episode, every column, as a move carries it. */
export type StoredStoreFeed = typeof storeFeeds.$inferSelect;
export type FeedsTable = "store_feeds";

/** Every feed of the organization, by store and feed: a few rows a store, one page. */
export function readStoreFeeds(db: SqliteReader, orgId: string): Promise<StoredStoreFeed[]> {
  return db
    .select(getTableColumns(storeFeeds))
    .from(storeFeeds)
    .where(eq(storeFeeds.orgId, orgId))
    .orderBy(asc(storeFeeds.storeId), asc(storeFeeds.feed));
}

/** The group's digest on either side: every feed, every column. */
export async function feedsDigest(db: SqliteReader, orgId: string): Promise<Record<FeedsTable, TableDigest>> {
  return { store_feeds: digest(await readStoreFeeds(db, orgId)) };
}

/** The object's feeds written back to D1 in place of D1's (an undo): the object's deliveries and episodes are the whole truth. */
export const restoreStoreFeeds = (db: Database, orgId: string, rows: readonly StoredStoreFeed[]) => [
  db.delete(storeFeeds).where(eq(storeFeeds.orgId, orgId)),
  ...rows.map((row) => db.insert(storeFeeds).values(row)),
];
