import { and, asc, eq, gte, inArray, ne, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { PIPELINE_STATUSES } from "../../engines/deal-math/vocabulary";
import type { AlertUnit } from "../../engines/reports/alerts";
import type { BriefingDeal, OpenStip, Role } from "../../engines/reports/briefings";
import type { FeedEntry, Observation } from "../../engines/reports/market";
import type { SeriesHistory } from "../../engines/reports/pulse";
import { inChunks } from "../batch";
import type { Database, SqliteReader } from "../client";
import { dealStips, deals, inventoryUnits, morningBriefings, unitMarketValues } from "../org-schema";
import { marketFeedEntries, marketObservations, marketRefreshFailures, marketRefreshRuns, marketSeries, organizations, stores } from "../schema";
import { newestFeedEntries } from "./market-feed";
import { findStoreSettings, type StoreSettingsRow, storeSettingsColumns } from "./settings";
import { briefingTightenings, type FeedReceipts, type OpenEpisodeRow, openEpisodes, openEpisodesQuery } from "./signals";

const alertUnitColumns = {
  stockNumber: inventoryUnits.stockNumber,
  storeId: inventoryUnits.storeId,
  year: inventoryUnits.year,
  make: inventoryUnits.make,
  model: inventoryUnits.model,
  trim: inventoryUnits.trim,
  condition: inventoryUnits.condition,
  vehicleType: inventoryUnits.vehicleType,
  stockedOn: inventoryUnits.stockedOn,
  cost: inventoryUnits.cost,
  askingPrice: inventoryUnits.askingPrice,
  marketValue: unitMarketValues.marketValue,
};

/** A unit in stock as the alerts, their totals and the briefings read it (on D1 or in the organization's object). */
export type AlertUnitRow = AlertUnit;

/** The organization's units in stock, every store's or one store's: a statement D1 batches, or the object runs. */
export function unitsInStock(db: SqliteReader, orgId: string, storeId?: string) {
  return db
    .select(alertUnitColumns)
    .from(inventoryUnits)
    .leftJoin(unitMarketValues, and(eq(unitMarketValues.unitId, inventoryUnits.id), eq(unitMarketValues.orgId, inventoryUnits.orgId)))
    .where(
      and(
        eq(inventoryUnits.orgId, orgId),
        eq(inventoryUnits.status, "in_stock"),
        storeId === undefined ? undefined : eq(inventoryUnits.storeId, storeId),
      ),
    );
}

/** The last unit of the previous page of the alert report, in its page order. */
export interface AlertPageAfter {
  stockedOn: string;
  stockNumber: string;
}

/**
 * Up to `limit` of the organization's units in stock after `after`, oldest in stock first, then by
 * stock number (unique in an organization): one range of inventory_org_status_stocked_stock_idx,
 * the inventory feed's order. Runs in the organization's object.
 */
export async function alertUnitPage(
  db: SqliteReader,
  orgId: string,
  limit: number,
  after?: AlertPageAfter,
  storeId?: string,
): Promise<AlertUnitRow[]> {
  const u = inventoryUnits;
  return (await db
    .select(alertUnitColumns)
    .from(u)
    .leftJoin(unitMarketValues, and(eq(unitMarketValues.unitId, u.id), eq(unitMarketValues.orgId, u.orgId)))
    .where(
      and(
        eq(u.orgId, orgId),
        eq(u.status, "in_stock"),
        storeId === undefined ? undefined : eq(u.storeId, storeId),
        after ? sql`(${u.stockedOn}, ${u.stockNumber}) > (${after.stockedOn}, ${after.stockNumber})` : undefined,
      ),
    )
    .orderBy(asc(u.stockedOn), asc(u.stockNumber))
    .limit(limit)) as AlertUnitRow[];
}

/** The settings of the organization's stores (or one store's), by store id, as its object keeps them. */
export async function readStoreSettings(db: SqliteReader, orgId: string, storeId?: string) {
  const rows = await db
    .select(storeSettingsColumns)
    .from(stores)
    .where(and(eq(stores.orgId, orgId), storeId === undefined ? undefined : eq(stores.id, storeId)));
  return new Map(rows.map((s) => [s.id, s] as const));
}

export type StoreSettingsById = Awaited<ReturnType<typeof readStoreSettings>>;

/** The organization's store `storeId`, or its primary store when none is named; null when it is not the org's. */
export async function findOrgStore(db: Database, orgId: string, storeId: string | undefined) {
  const rows = await db
    .select({ id: stores.id })
    .from(stores)
    .where(and(eq(stores.orgId, orgId), storeId ? eq(stores.id, storeId) : eq(stores.isPrimary, true)))
    .orderBy(asc(stores.id))
    .limit(1);
  return rows[0] ?? null;
}

/** The stored briefing's query, unexecuted, so it can follow the briefing's insert in one batch (D1), or run in the object. */
export function briefingQuery(db: SqliteReader, orgId: string, storeId: string, role: Role, day: string) {
  return db
    .select({ body: morningBriefings.body })
    .from(morningBriefings)
    .where(
      and(eq(morningBriefings.orgId, orgId), eq(morningBriefings.storeId, storeId), eq(morningBriefings.role, role), eq(morningBriefings.day, day)),
    )
    .limit(1);
}

export async function findBriefing(db: SqliteReader, orgId: string, storeId: string, role: Role, day: string) {
  const rows = await briefingQuery(db, orgId, storeId, role, day);
  return rows[0]?.body ?? null;
}

/** Roles whose briefing for the day already exists at the store. */
export async function existingBriefingRoles(db: SqliteReader, orgId: string, storeId: string, day: string): Promise<Set<Role>> {
  const rows = await db
    .select({ role: morningBriefings.role })
    .from(morningBriefings)
    .where(and(eq(morningBriefings.orgId, orgId), eq(morningBriefings.storeId, storeId), eq(morningBriefings.day, day)));
  return new Set(rows.map((r) => r.role));
}

export type BriefingRow = { orgId: string; storeId: string; role: Role; day: string; generatedAt: string; body: unknown };

/** The first briefing stored for (store, role, day) stands: a second build the same day adds nothing. */
export function insertBriefing(db: SqliteReader, row: BriefingRow) {
  return db.insert(morningBriefings).values(row).onConflictDoNothing();
}

/** What a store's briefings read of the organization's deals and units: wherever they live. */
export interface BriefingRows {
  units: AlertUnitRow[];
  deals: BriefingDeal[];
  openStips: OpenStip[];
  /** The store's open lender tightenings (the lender decisions group's episodes). */
  episodes: OpenEpisodeRow[];
  /** The store's settings; absent for a store the object does not hold. */
  store?: StoreSettingsRow;
}

/** The briefing's reads of a store's deals, open stips, units in stock and open tightenings: the same on D1 and in the organization's object. */
function briefingReads(db: SqliteReader, orgId: string, storeId: string, dealsSince: string) {
  return [
    db
      .select({
        dealNumber: deals.dealNumber,
        soldOn: deals.soldOn,
        status: deals.status,
        condition: deals.condition,
        make: deals.make,
        model: deals.model,
        sellingPrice: deals.sellingPrice,
        lender: deals.lender,
        beacon: deals.beacon,
        amountFinanced: deals.amountFinanced,
        frontGross: deals.frontGross,
        backGross: deals.backGross,
      })
      .from(deals)
      .where(
        // Each branch whole, so SQLite reads the two index ranges (recent sales, the funding pipeline)
        // instead of every deal the store ever sold.
        or(
          and(eq(deals.orgId, orgId), eq(deals.storeId, storeId), gte(deals.soldOn, dealsSince)),
          and(eq(deals.orgId, orgId), eq(deals.storeId, storeId), inArray(deals.status, [...PIPELINE_STATUSES])),
        ),
      ),
    db
      .select({ dealNumber: deals.dealNumber, stip: dealStips.stip, state: dealStips.state, requestedOn: dealStips.requestedOn })
      .from(dealStips)
      .innerJoin(deals, and(eq(deals.id, dealStips.dealId), eq(deals.orgId, dealStips.orgId)))
      // The literal condition lets SQLite use the open-stips partial index (deal_stips_org_open_idx).
      .where(and(eq(dealStips.orgId, orgId), eq(deals.storeId, storeId), sql`${dealStips.state} <> 'cleared'`, ne(deals.status, "unwound"))),
    unitsInStock(db, orgId, storeId),
    openEpisodesQuery(db, orgId, storeId),
  ] as const;
}

/** A store's briefing rows in one call to the organization's object, with the store's settings there. */
export async function briefingRows(db: SqliteReader, orgId: string, storeId: string, dealsSince: string): Promise<BriefingRows> {
  const [[dealRows, openStips, units, episodes], store] = await Promise.all([
    Promise.all(briefingReads(db, orgId, storeId, dealsSince)),
    findStoreSettings(db, orgId, storeId),
  ]);
  return { units, deals: dealRows as BriefingDeal[], openStips: openStips as OpenStip[], episodes, ...(store && { store }) };
}

/** Reads a store's briefing rows in the organization's object. */
type BriefingRowsReader = (storeId: string, dealsSince: string) => Promise<BriefingRows>;

/** What a store's briefings are built from, read in its organization's object: its settings and rows; null for a store the object does not hold. */
export function briefingData(rows: BriefingRows) {
  if (!rows.store) return null;
  const tightenings = briefingTightenings(openEpisodes(rows.episodes));
  return { store: rows.store, units: rows.units as AlertUnit[], deals: rows.deals, openStips: rows.openStips, tightenings };
}

export type BriefingData = NonNullable<ReturnType<typeof briefingData>>;

/**
 * The organization's briefings where they are stored, its object (src/db/org-store.ts
 * `briefingStore`, on its alarm): the roles a store's day holds, the store's rows, and the day's new
 * briefings written with their events in one transaction (the object relays the events to D1).
 */
export interface BriefingStore {
  existingRoles(storeId: string, day: string): Promise<Set<Role>>;
  rows: BriefingRowsReader;
  /** The store's feeds' receipts (its briefing's `data_as_of`), kept beside its rows. */
  feeds(storeId: string): Promise<FeedReceipts>;
  /** Stores what no earlier build stored, and records the events of those only: the roles it stored. */
  write(
    briefings: readonly BriefingRow[],
    events: readonly { event: string; orgId: string; storeId: string | null; data: Record<string, unknown> }[],
    at: string,
  ): Role[];
}

// --- public market data (not owned by any organization) -----------------------------------------

const seriesColumns = {
  id: marketSeries.id,
  provider: marketSeries.provider,
  name: marketSeries.name,
  category: marketSeries.category,
  unit: marketSeries.unit,
  frequency: marketSeries.frequency,
  fallbackFor: marketSeries.fallbackFor,
  source: marketSeries.source,
};

function listEnabledSeries(db: Database) {
  return db.select(seriesColumns).from(marketSeries).where(eq(marketSeries.enabled, true)).orderBy(asc(marketSeries.id));
}

/**
 * Each enabled series with its newest `perSeries` readings (oldest first), and the newest feed
 * entries: everything the pulse and the refresh read, in one round trip.
 */
export async function loadMarketData(db: Database, perSeries: number, feedLimit: number): Promise<{ histories: SeriesHistory[]; feed: FeedEntry[] }> {
  const ranked = db.$with("ranked").as(
    db
      .select({
        seriesId: marketObservations.seriesId,
        date: marketObservations.date,
        value: marketObservations.value,
        demo: marketObservations.isDemo,
        rank: sql<number>`row_number() over (partition by ${marketObservations.seriesId} order by ${marketObservations.date} desc)`.as("rank"),
      })
      .from(marketObservations),
  );
  const [series, observations, feed] = await db.batch([
    listEnabledSeries(db),
    db
      .with(ranked)
      .select({ seriesId: ranked.seriesId, date: ranked.date, value: ranked.value, demo: ranked.demo })
      .from(ranked)
      .where(sql`${ranked.rank} <= ${perSeries}`)
      .orderBy(asc(ranked.seriesId), asc(ranked.date)),
    newestFeedEntries(db, feedLimit),
  ]);
  const bySeries = new Map<string, Observation[]>();
  for (const o of observations) bySeries.set(o.seriesId, [...(bySeries.get(o.seriesId) ?? []), { date: o.date, value: o.value, demo: o.demo }]);
  return { histories: series.map((s) => ({ series: s, observations: bySeries.get(s.id) ?? [] })), feed };
}

/** A new reading, or a revised value; an unchanged reading is left alone so a re-run writes nothing. */
export function upsertObservation(db: Database, seriesId: string, observation: Observation, fetchedAt: string): BatchItem<"sqlite"> {
  return db
    .insert(marketObservations)
    .values({ seriesId, date: observation.date, value: observation.value, fetchedAt })
    .onConflictDoUpdate({
      target: [marketObservations.seriesId, marketObservations.date],
      // A published reading replaces a seeded demo one even at the same value.
      set: { value: observation.value, fetchedAt, isDemo: false },
      setWhere: sql`${marketObservations.value} <> excluded.value or ${marketObservations.isDemo} = 1`,
    });
}

/** Feed entry ids are derived from their reading, so an entry is written once. */
export function insertFeedEntries(db: Database, entries: readonly FeedEntry[], refreshedAt: string): BatchItem<"sqlite">[] {
  return inChunks(
    entries.map(({ demo, ...e }) => ({ ...e, isDemo: demo, refreshedAt })),
    (part) => db.insert(marketFeedEntries).values(part).onConflictDoNothing(),
  );
}

export function insertRefreshRun(
  db: Database,
  run: { id: string; startedAt: string; finishedAt: string; status: "ok" | "partial"; observationsAdded: number; entriesAdded: number },
  failures: readonly { id: string; seriesId: string; reason: string }[],
): BatchItem<"sqlite">[] {
  return [
    db.insert(marketRefreshRuns).values(run),
    ...inChunks(
      failures.map((f) => ({ ...f, runId: run.id, occurredAt: run.finishedAt })),
      (part) => db.insert(marketRefreshFailures).values(part),
    ),
  ];
}

/** Existing feed entry ids among `ids` (to count what a run really adds). */
export async function existingFeedEntryIds(db: Database, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const selects = inChunks(ids, (part) => db.select({ id: marketFeedEntries.id }).from(marketFeedEntries).where(inArray(marketFeedEntries.id, part)));
  for (const select of selects) for (const r of await select) found.add(r.id);
  return found;
}

// --- jobs: work across organizations --------------------------------------------------------------

/** Every organization's id, for events every organization receives (the lender environment). */
export async function listOrganizationIds(db: Database): Promise<string[]> {
  const rows = await db.select({ id: organizations.id }).from(organizations).orderBy(asc(organizations.id));
  return rows.map((r) => r.id);
}

/** An organization's store ids, for its nightly briefings. */
export async function listStoreIds(db: Database, orgId: string): Promise<string[]> {
  return (await db.select({ id: stores.id }).from(stores).where(eq(stores.orgId, orgId)).orderBy(asc(stores.id))).map((r) => r.id);
}
