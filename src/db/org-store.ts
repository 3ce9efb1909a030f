/**
 * An organization's own SQLite, inside its storage object (src/durable-objects/org-storage.ts,
 * docs/scaling.md): opened and migrated when the object starts, then read and written by the same
 * query modules as D1. Everything here is synchronous SQLite under the hood, so an operation runs
 * whole before the object takes its next call.
 */
import { and, asc, eq, inArray, isNull, lt, notExists, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations-org/migrations";
import { DAY_MS } from "../engines/dates";
import type { StoreFeed } from "../engines/freshness";
import type { SnapshotSafety } from "../engines/ingest";
import type { Role } from "../engines/reports/briefings";
import { newId } from "../lib/ids";
import { chunk, MAX_BOUND_PARAMETERS } from "./batch";
import {
  agedInventoryAlerts,
  complianceSettings,
  dealStips,
  deals,
  eventOutbox,
  inventoryUnits,
  lenderDecisions,
  morningBriefings,
  settingsAudit,
  storageOwner,
  storeFeeds,
  storeLenderPanel,
  stores,
  unitMarketValues,
  webhookDeliveries,
} from "./org-schema";
import type { AgedAlertStore } from "./queries/aged-alerts";
import { type HistoryOutcome, type NewComplianceCheck, recordComplianceCheck } from "./queries/compliance";
import type { RecordedEvent } from "./queries/events";
import {
  type AppliedDeals,
  markAbsentUnitsSold,
  type PushedDeal,
  planDeals,
  planSnapshot,
  type SnapshotUnit,
  upsertDeals,
  upsertStips,
  upsertUnits,
} from "./queries/ingest";
import { type BriefingRow, type BriefingStore, briefingQuery, briefingRows, existingBriefingRoles, insertBriefing } from "./queries/reports";
import {
  AGED_ALERTS_RETENTION,
  COMPLIANCE_CHECKS_RETENTION,
  EXPIRED_ROWS_PER_STATEMENT,
  expiredRowsDeletion,
  FANNED_OUT_EVENTS_RETENTION,
  MORNING_BRIEFINGS_RETENTION,
  type RetentionRule,
  WEBHOOK_DELIVERIES_RETENTION,
} from "./queries/retention";
import {
  type ComplianceChange,
  type ComplianceSettingsValues,
  ownComplianceSettingsQuery,
  panelIdsQuery,
  planComplianceChange,
  planLenderPanelChange,
  planStoreSettingsChange,
  type SettingChange,
  STORE_SETTING_KEYS,
  type StoreSettingsPatch,
  type StoreSettingsRow,
  storeSettingsQuery,
} from "./queries/settings";
import {
  closeEpisode,
  feedResumedEvents,
  feedStaleEvent,
  findStaleFeeds,
  insertEpisode,
  listNewlyStaleFeeds,
  listOpenEpisodes,
  listOutcomeDecisions,
  markFeedStale,
  type OutcomeStore,
  readFeedReceipts,
  recordFeedDeliveries,
  STALE_FEEDS_PER_CHECK,
} from "./queries/signals";
import { attemptBodiesPurge, type WebhookStore } from "./queries/webhooks";

export { comparablesOf } from "./queries/appraisal";
// The object loads this one module when it starts: what it runs, on its own SQLite.
export { listInventory, salesSummary } from "./queries/feeds";
export { briefingRows, readStoreSettings, unitsInStock } from "./queries/reports";

export type OrgStoreDb = DrizzleSqliteDODatabase;

/** A new store's settings: its id and name, and the settings it was created with (the others take their defaults). */
export type NewStoreSettings = Pick<StoreSettingsRow, "id" | "name"> & Partial<StoreSettingsRow>;

/** Rows as a seed makes them (columns with defaults may be left out). */
export type UnitToLoad = typeof inventoryUnits.$inferInsert;
export type MarketValueToLoad = typeof unitMarketValues.$inferInsert;
export type DealToLoad = typeof deals.$inferInsert;
export type StipToLoad = typeof dealStips.$inferInsert;
export type DecisionToLoad = typeof lenderDecisions.$inferInsert;
/** A store's lender panel row, and the organization's own screening thresholds, as the object holds them. */
export type StoredPanelRow = typeof storeLenderPanel.$inferSelect;
export type StoredThresholds = typeof complianceSettings.$inferSelect;

/** The client on the object's storage, its schema brought to the bundled version (migrations-org/). */
export async function openOrgStore(storage: DurableObjectStorage, journal = migrations): Promise<OrgStoreDb> {
  const db = drizzle(storage);
  await migrate(db, journal);
  return db;
}

/** Whose object this is and whether it serves; undefined before its first call. */
export function readOwner(db: OrgStoreDb): { orgId: string; active: boolean } | undefined {
  return db.select().from(storageOwner).get();
}

export function claimOwner(db: OrgStoreDb, orgId: string): void {
  db.insert(storageOwner).values({ orgId, active: false }).run();
}

/** A new organization's first rows (`OrganizationStore.seed`): none for one created empty. */
export interface SeedRows {
  stores: readonly StoreSettingsRow[];
  units: readonly UnitToLoad[];
  values: readonly MarketValueToLoad[];
  deals: readonly DealToLoad[];
  stips: readonly StipToLoad[];
  decisions: readonly DecisionToLoad[];
  panels: readonly StoredPanelRow[];
}

/**
 * Writes the seed's rows and opens the object in one transaction, so a seed that fails leaves it
 * closed and empty, to be seeded again. The sales rollup's triggers build its months from the deals.
 */
export function seedRows(db: OrgStoreDb, orgId: string, rows: SeedRows): void {
  db.transaction(() => {
    for (const store of rows.stores)
      db.insert(stores)
        .values({ ...store, orgId })
        .run();
    for (const unit of rows.units) db.insert(inventoryUnits).values(unit).run();
    for (const value of rows.values) db.insert(unitMarketValues).values(value).run();
    for (const deal of rows.deals) db.insert(deals).values(deal).run();
    for (const stip of rows.stips) db.insert(dealStips).values(stip).run();
    for (const decision of rows.decisions) db.insert(lenderDecisions).values(decision).run();
    for (const row of rows.panels) db.insert(storeLenderPanel).values(row).run();
    db.update(storageOwner).set({ active: true }).run();
  });
}

/**
 * The object's copy of the directory's stores brought to `names` (the feed joins them): a store
 * the directory no longer lists goes, a name follows the directory's, and each store's settings,
 * which live here (the settings group), stay as they are.
 */
function replaceStores(db: OrgStoreDb, orgId: string, names: readonly { id: string; name: string }[]): void {
  db.delete(stores)
    .where(sql`${stores.id} NOT IN (SELECT value FROM json_each(${JSON.stringify(names.map((store) => store.id))}))`)
    .run();
  for (const store of names)
    db.insert(stores)
      .values({ id: store.id, orgId, name: store.name })
      .onConflictDoUpdate({ target: stores.id, set: { name: store.name } })
      .run();
}

/**
 * A snapshot of one store applied here, as D1's ingestion applies it (src/db/queries/ingest.ts):
 * refused with the same counts, or written in one transaction with the directory's store names.
 */
export async function applySnapshot(
  db: OrgStoreDb,
  orgId: string,
  names: readonly { id: string; name: string }[],
  storeId: string,
  units: SnapshotUnit[],
  safety: SnapshotSafety,
  receivedAt: Date,
) {
  const plan = await planSnapshot(db, orgId, storeId, units, safety);
  if (plan.refusal) return plan;
  const delivery = await planDelivery(db, orgId, [storeId], "inventory", receivedAt);
  return db.transaction(() => {
    replaceStores(db, orgId, names);
    const sold = (markAbsentUnitsSold(db, orgId, storeId, plan.listed) as unknown as { all(): unknown[] }).all();
    for (const statement of upsertUnits(db, orgId, storeId, plan.changed)) (statement as unknown as { run(): void }).run();
    return { refusal: null, created: plan.created, updated: plan.updated, removed: sold.length, events: writeDelivery(db, delivery) };
  });
}

/**
 * A push of deals applied here, as D1's ingestion applies it (src/routes/ingest/ingest.service.ts):
 * read and compared, then written in one transaction with its stip alerts in the object's outbox,
 * before the object takes another call (its SQLite is synchronous), so no guard is needed; the
 * counts and the recorded alerts go back to the caller, which relays them to D1.
 */
export async function applyDeals(
  db: OrgStoreDb,
  orgId: string,
  names: readonly { id: string; name: string }[],
  pushed: PushedDeal[],
  today: string,
  occurredAt: string,
): Promise<AppliedDeals & { events: RecordedEvent[] }> {
  const plan = await planDeals(db, orgId, pushed, today);
  const delivery = await planDelivery(db, orgId, [...new Set(pushed.map((d) => d.store_id))], "deals", new Date(occurredAt));
  const events = db.transaction(() => {
    // The directory's names with the deals, as a snapshot writes them: the sales summary joins them.
    replaceStores(db, orgId, names);
    for (const statement of [...upsertDeals(db, orgId, plan.dealRows), ...upsertStips(db, orgId, plan.stipRows)])
      (statement as unknown as { run(): void }).run();
    return [...recordEvents(db, plan.alerts, occurredAt), ...writeDelivery(db, delivery)];
  });
  return { created: plan.created, updated: plan.updated, alerts: plan.alerts, events };
}

// --- the object's outbox (docs/scaling.md#an-object-write-and-its-events) -----------------------

/** An event as a write raises it (src/events/emit.ts's `DomainEvent`, which this layer cannot import). */
export interface EventToRecord {
  event: string;
  orgId: string;
  storeId: string | null;
  data: Record<string, unknown>;
}

/**
 * Records a write's events in the object's outbox, with their ids and time: call it inside the
 * write's transaction, so the events land with the change or not at all. Returns them as recorded,
 * for the caller to relay (`commitWithEvents`'s `recorded`).
 */
export function recordEvents(db: OrgStoreDb, events: readonly EventToRecord[], occurredAt: string): RecordedEvent[] {
  const rows = events.map((e) => ({ id: newId("evt"), orgId: e.orgId, storeId: e.storeId, event: e.event, data: e.data, occurredAt }));
  for (const row of rows) db.insert(eventOutbox).values(row).run();
  // Stored as JSON text, so JSON is what it holds.
  return rows as RecordedEvent[];
}

/** The oldest events not relayed yet. */
export function unrelayedEvents(db: OrgStoreDb, limit: number): RecordedEvent[] {
  const { id, orgId, storeId, event, data, occurredAt } = eventOutbox;
  // `data` is what recordEvents stored: JSON.
  return db
    .select({ id, orgId, storeId, event, data, occurredAt })
    .from(eventOutbox)
    .where(isNull(eventOutbox.relayedAt))
    .orderBy(asc(occurredAt), asc(id))
    .limit(limit)
    .all() as RecordedEvent[];
}

/** Ids per update: the object's SQLite binds at most as many parameters as D1, and the time takes one. */
const IDS_PER_STATEMENT = MAX_BOUND_PARAMETERS - 1;

/**
 * Marks these events relayed (D1 holds them) and deletes those relayed over a day before `at`.
 * Returns whether any event is still waiting to be relayed.
 */
export function markRelayed(db: OrgStoreDb, ids: readonly string[], at: Date): boolean {
  return db.transaction(() => {
    for (const part of chunk(ids, IDS_PER_STATEMENT))
      db.update(eventOutbox)
        .set({ relayedAt: at.toISOString() })
        .where(and(inArray(eventOutbox.id, part), isNull(eventOutbox.relayedAt)))
        .run();
    // An event a webhook delivery refers to stays with it (its body, its log): the deliveries' retention ends it.
    const delivered = db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventOutbox.id));
    db.delete(eventOutbox)
      .where(and(lt(eventOutbox.relayedAt, new Date(at.getTime() - DAY_MS).toISOString()), notExists(delivered)))
      .run();
    return db.select({ id: eventOutbox.id }).from(eventOutbox).where(isNull(eventOutbox.relayedAt)).limit(1).get() !== undefined;
  });
}

// --- the compliance checks group (compliance_checks; docs/scaling.md) ------------------------------

export { getComplianceCheck } from "./queries/compliance";

/** The client's own storage: a built statement runs on it as drizzle's driver would run it. */
const sqlOf = (db: OrgStoreDb) => (db as unknown as { $client: DurableObjectStorage }).$client.sql;

/**
 * A screening's audit row recorded here with D1's own statement (`recordComplianceCheck`): the
 * organization's history is read and the check written in that one statement, so of two checks
 * the later always sees the earlier; a hold's event is recorded in the outbox in the same
 * transaction. The index of the outcome the history chose, and the events as recorded.
 */
export function recordCheck(
  db: OrgStoreDb,
  orgId: string,
  check: NewComplianceCheck,
  outcomes: readonly HistoryOutcome[],
  raised: readonly EventToRecord[],
  occurredAt: string,
): { outcome: number; events: RecordedEvent[] } {
  const call = recordComplianceCheck(db, orgId, check, outcomes);
  return db.transaction(() => {
    const rows = sqlOf(db)
      .exec(call.sql, ...(call.params as SqlStorageValue[]))
      .toArray();
    const [{ outcome }] = call.read(rows);
    return { outcome, events: recordEvents(db, raised, occurredAt) };
  });
}

/** The organization's checks older than the audit trail's retention (`COMPLIANCE_CHECKS_RETENTION`, D1's rule) deleted, oldest first: how many. */
export function deleteExpiredChecks(db: OrgStoreDb, now: Date): number {
  return deleteExpiredRowsOf(db, COMPLIANCE_CHECKS_RETENTION, now);
}

/** A retention rule (D1's own, `RETENTION_RULES`) applied to the object's copy of its table, EXPIRED_ROWS_PER_STATEMENT at a time, oldest first: how many. */
function deleteExpiredRowsOf(db: OrgStoreDb, rule: RetentionRule, now: Date): number {
  let deleted = 0;
  for (;;) {
    db.run(expiredRowsDeletion(rule, now, EXPIRED_ROWS_PER_STATEMENT));
    const removed = sqlOf(db).exec<{ n: number }>("SELECT changes() AS n").one().n;
    deleted += removed;
    if (removed < EXPIRED_ROWS_PER_STATEMENT) return deleted;
  }
}

// --- the lender decisions group (lender_decisions, lender_outcome_episodes; docs/scaling.md) ----

export { storeLenderHistory } from "./queries/deal-desk";

/** The lender-outcome job's reads and writes on the object's own SQLite, for its alarm (src/jobs/lender-outcomes.ts `raiseOutcomeShiftsOf`). */
export function outcomeStore(db: OrgStoreDb, orgId: string): OutcomeStore {
  return {
    read: async (sinceDay) => {
      const [decisions, open] = await Promise.all([listOutcomeDecisions(db, orgId, sinceDay), listOpenEpisodes(db, orgId)]);
      return { decisions, open };
    },
    write: (opened, closedIds, at, events) =>
      db.transaction(() => {
        for (const id of closedIds) (closeEpisode(db, orgId, id, at) as unknown as { run(): void }).run();
        for (const episode of opened) (insertEpisode(db, episode) as unknown as { run(): void }).run();
        recordEvents(db, events, at);
      }),
  };
}

// --- the settings group (the settings columns of `stores`, settings_audit; docs/scaling.md) ------

export { findStoreSettings, listSettingsAudit, listStoreSettings } from "./queries/settings";

/** What a settings change found and did here: null, no such store; `written` false, the store's settings were no longer `expected`. */
export type StoreSettingsChanged = { before: StoreSettingsRow; changes: StoreSettingsPatch; written: boolean } | null;

/**
 * A store's settings change applied here: its settings read, the change planned from them
 * (`planStoreSettingsChange`, D1's own) and written with its audit rows, in one transaction, so
 * each audit row records exactly the value it replaced and no other change comes between. With
 * `expected` (an If-Match the caller checked against it), nothing is written unless the settings
 * are still those.
 */
export function changeStoreSettings(
  db: OrgStoreDb,
  orgId: string,
  storeId: string,
  fields: readonly SettingChange[],
  actor: string,
  changedAt: string,
  expected?: StoreSettingsRow,
): StoreSettingsChanged {
  return db.transaction(() => {
    // The object's SQLite answers at once: the query's type allows D1's promise too.
    const before = storeSettingsQuery(db, orgId, storeId).get() as StoreSettingsRow | undefined;
    if (before === undefined) return null;
    const { changes, entries } = planStoreSettingsChange(before, fields, actor, changedAt);
    if (expected !== undefined && STORE_SETTING_KEYS.some((key) => before[key] !== expected[key])) return { before, changes, written: false };
    if (entries.length === 0) return { before, changes, written: true };
    for (const entry of entries)
      db.insert(settingsAudit)
        .values({ ...entry, orgId })
        .run();
    db.update(stores)
      .set(changes)
      .where(and(eq(stores.orgId, orgId), eq(stores.id, storeId)))
      .run();
    return { before, changes, written: true };
  });
}

/** A store the directory opened, with the settings it was created with, the others at their defaults (the operator's create-store): its settings as stored. */
export function addStore(db: OrgStoreDb, store: NewStoreSettings & { orgId: string }): StoreSettingsRow {
  db.insert(stores).values(store).onConflictDoNothing().run();
  // The object's SQLite answers at once: the query's type allows D1's promise too.
  return storeSettingsQuery(db, store.orgId, store.id).get() as StoreSettingsRow;
}

// --- the settings group's lender panels and screening thresholds (store_lender_panel, compliance_settings; docs/scaling.md) --

export { loadStorePanel } from "./queries/deal-desk";
export { complianceValuesOf, sameComplianceValues } from "./queries/settings";

/** What a panel change found and did here: null, no such store; `changed`, the panel differed and was replaced, with its audit row. */
export type LenderPanelChanged = { changed: boolean } | null;

/**
 * A store's panel replaced here: the store checked, its panel read, the change planned
 * (`planLenderPanelChange`, D1's own) and written with its audit row, in one transaction, so the
 * row records exactly the panel it replaced. `programIds` sorted, as the audit row lists them.
 */
export function changeLenderPanel(
  db: OrgStoreDb,
  orgId: string,
  storeId: string,
  programIds: readonly string[],
  actor: string,
  changedAt: string,
): LenderPanelChanged {
  return db.transaction(() => {
    if (storeSettingsQuery(db, orgId, storeId).get() === undefined) return null;
    const before = (panelIdsQuery(db, orgId, storeId).all() as { programId: string }[]).map((row) => row.programId);
    const entry = planLenderPanelChange(storeId, before, programIds, actor, changedAt);
    if (entry === null) return { changed: false };
    db.insert(settingsAudit)
      .values({ ...entry, orgId })
      .run();
    db.delete(storeLenderPanel)
      .where(and(eq(storeLenderPanel.orgId, orgId), eq(storeLenderPanel.storeId, storeId)))
      .run();
    for (const programId of programIds) db.insert(storeLenderPanel).values({ orgId, storeId, programId }).run();
    return { changed: true };
  });
}

/** The organization's own thresholds row here, or null (it uses the defaults, D1's '*' row). */
export function readOwnThresholds(db: OrgStoreDb, orgId: string): StoredThresholds | null {
  return (ownComplianceSettingsQuery(db, orgId).get() as StoredThresholds | undefined) ?? null;
}

/** What a thresholds change found and did here: the row before (null: the defaults were in force), the values after, and whether it wrote. */
export type ThresholdsChanged = { own: StoredThresholds | null; next: ComplianceSettingsValues; holdBelowFlag: boolean; written: boolean };

/**
 * The organization's thresholds changed here: its row read (else the `defaults`, D1's, in force),
 * the change planned (`planComplianceChange`, D1's own) and, unless it would put the hold line below
 * the flag line, written whole with its audit rows in one transaction.
 */
export function changeThresholds(
  db: OrgStoreDb,
  orgId: string,
  defaults: ComplianceSettingsValues,
  fields: readonly ComplianceChange[],
  actor: string,
  changedAt: string,
): ThresholdsChanged {
  return db.transaction(() => {
    const own = readOwnThresholds(db, orgId);
    const { next, entries, holdBelowFlag } = planComplianceChange(own ?? defaults, fields, actor, changedAt);
    if (holdBelowFlag || entries.length === 0) return { own, next, holdBelowFlag, written: false };
    for (const entry of entries)
      db.insert(settingsAudit)
        .values({ ...entry, orgId })
        .run();
    const row = { orgId, ...next, updatedAt: changedAt };
    db.insert(complianceSettings).values(row).onConflictDoUpdate({ target: complianceSettings.orgId, set: row }).run();
    return { own, next, holdBelowFlag, written: true };
  });
}

/** A store's panel as the directory gave it (an operator's new store routes from its first deal). */
export function addStorePanel(db: OrgStoreDb, orgId: string, storeId: string, programIds: readonly string[]): void {
  db.transaction(() => {
    for (const programId of programIds) db.insert(storeLenderPanel).values({ orgId, storeId, programId }).onConflictDoNothing().run();
  });
}

// --- the webhooks group (webhook_endpoints, webhook_deliveries, webhook_attempts; docs/scaling.md) --

/**
 * The object as the webhooks group's store (src/db/queries/webhooks.ts): a request's writes in one
 * SQLite transaction; the events its deliveries refer to kept in the object's outbox as relayed
 * (D1 holds them, or, for a sample, must never: the relay leaves them).
 */
export function objectWebhookStore(db: OrgStoreDb): WebhookStore {
  return {
    db,
    write: async (statements) => db.transaction(() => statements.map((statement) => (statement as unknown as { all(): unknown[] }).all())),
    keepEvents: (events, at) =>
      events.map(
        (event) =>
          db
            .insert(eventOutbox)
            .values({ ...event, relayedAt: at, fannedOutAt: at })
            .onConflictDoNothing() as unknown as BatchItem<"sqlite">,
      ),
  };
}

/** The attempts' bodies made before `keptFrom` cleared (D1's statement, `attemptBodiesPurge`): how many attempts. */
export function purgeAttemptBodies(db: OrgStoreDb, keptFrom: string): number {
  db.run(attemptBodiesPurge(db, keptFrom));
  return sqlOf(db).exec<{ n: number }>("SELECT changes() AS n").one().n;
}

// --- the webhooks group's jobs (its deliveries' retention, its unsent redeliveries; docs/scaling.md) --

/**
 * The organization's finished deliveries past D1's rule (`WEBHOOK_DELIVERIES_RETENTION`, 90 days)
 * deleted, their attempts with them (ON DELETE CASCADE), then the events only they kept (D1's rule
 * for its outbox, `FANNED_OUT_EVENTS_RETENTION`): how many deliveries.
 */
export function deleteExpiredDeliveries(db: OrgStoreDb, now: Date): number {
  const deleted = deleteExpiredRowsOf(db, WEBHOOK_DELIVERIES_RETENTION, now);
  deleteExpiredRowsOf(db, FANNED_OUT_EVENTS_RETENTION, now);
  return deleted;
}

// --- the briefings group (morning_briefings, aged_inventory_alerts; docs/scaling.md) ------------

export { briefingData, findBriefing } from "./queries/reports";

/** The store's briefings and rows in the object, the day's new briefings written there with their events (src/jobs/build-morning-briefings.ts). */
export function briefingStore(db: OrgStoreDb, orgId: string): BriefingStore {
  return {
    existingRoles: (storeId, day) => existingBriefingRoles(db, orgId, storeId, day),
    rows: (storeId, dealsSince) => briefingRows(db, orgId, storeId, dealsSince),
    feeds: (storeId) => readFeedReceipts(db, orgId, [storeId]),
    write: (briefings, events, at) =>
      db.transaction(() => {
        // A briefing a request stored since the roles were read stands, and raises nothing.
        const stored = briefings.flatMap((row) => {
          const inserted = insertBriefing(db, row).returning({ role: morningBriefings.role }) as unknown as { all(): unknown[] };
          return inserted.all().length > 0 ? [row.role] : [];
        });
        recordEvents(
          db,
          events.filter((e) => stored.includes(e.data.role as Role)),
          at,
        );
        return stored;
      }),
  };
}

/** A request's briefing stored in the object unless one is already (the first stored stands): the day's briefing. */
export function keepBriefing(db: OrgStoreDb, row: BriefingRow): unknown {
  return db.transaction(() => {
    (insertBriefing(db, row) as unknown as { run(): void }).run();
    return (briefingQuery(db, row.orgId, row.storeId, row.role, row.day) as unknown as { get(): { body: unknown } | undefined }).get()?.body;
  });
}

/** The aged crossings' markers in the object, each written with its event, a marked one skipped (src/jobs/aged-inventory-alerts.ts). */
export function agedAlertStore(db: OrgStoreDb, orgId: string): AgedAlertStore {
  return {
    record: (crossings, at) =>
      db.transaction(() => {
        const marked = crossings.filter(
          (c) =>
            db
              .insert(agedInventoryAlerts)
              .values({ orgId, stockNumber: c.stockNumber, stockedOn: c.stockedOn, alertedAt: at })
              .onConflictDoNothing()
              .returning({ stockNumber: agedInventoryAlerts.stockNumber })
              .all().length > 0,
        );
        recordEvents(
          db,
          marked.map((c) => c.event),
          at,
        );
        return marked.length;
      }),
  };
}

/** The organization's briefings and markers past their retention (D1's rules, `MORNING_BRIEFINGS_RETENTION`, `AGED_ALERTS_RETENTION`) deleted: how many. */
export function deleteExpiredBriefings(db: OrgStoreDb, now: Date): number {
  return deleteExpiredRowsOf(db, MORNING_BRIEFINGS_RETENTION, now) + deleteExpiredRowsOf(db, AGED_ALERTS_RETENTION, now);
}

// --- the store feeds group (store_feeds; docs/scaling.md) ------------------------------------------

export { nextFeedStaleAt, readFeedReceipts } from "./queries/signals";

/** A delivery of `feed` for `storeIds` at `at`, and the `store.feed_resumed` of each open episode it closes (read before its write's transaction). */
interface Delivery {
  orgId: string;
  storeIds: readonly string[];
  feed: StoreFeed;
  at: Date;
  resumed: EventToRecord[];
}

async function planDelivery(db: OrgStoreDb, orgId: string, storeIds: readonly string[], feed: StoreFeed, at: Date): Promise<Delivery> {
  return { orgId, storeIds, feed, at, resumed: feedResumedEvents(orgId, feed, await findStaleFeeds(db, orgId, storeIds, feed), at) };
}

/**
 * Inside the snapshot's or the push's transaction: each store's feed received, its open episode
 * closed and its `store.feed_resumed` in the outbox. No other call comes between the read and this
 * write (the object's SQLite is synchronous), so an episode closes, and raises, once.
 */
function writeDelivery(db: OrgStoreDb, delivery: Delivery): RecordedEvent[] {
  const at = delivery.at.toISOString();
  for (const statement of recordFeedDeliveries(db, delivery.orgId, delivery.storeIds, delivery.feed, at))
    (statement as unknown as { run(): void }).run();
  return recordEvents(db, delivery.resumed, at);
}

/**
 * The stale check where the data is (the object's alarm): each feed past its store's threshold with
 * no open episode gets one, and its `store.feed_stale` in the outbox, in one transaction; a feed
 * marked is not found again until a delivery clears it. The events, for the alarm to relay.
 */
export async function markStaleFeeds(db: OrgStoreDb, orgId: string, now: Date): Promise<RecordedEvent[]> {
  const at = now.toISOString();
  const rows = await listNewlyStaleFeeds(db, at, STALE_FEEDS_PER_CHECK, eq(storeFeeds.orgId, orgId));
  if (rows.length === 0) return [];
  return db.transaction(() => {
    for (const row of rows) (markFeedStale(db, row, at) as unknown as { run(): void }).run();
    return recordEvents(
      db,
      rows.map((row) => feedStaleEvent(row, now)),
      at,
    );
  });
}
