import { and, asc, eq, gte, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { dataAsOf, type FeedReceipt, type FeedStore, type StoreFeed } from "../../engines/freshness";
import type { OutcomeDecision, OutcomeSettings, WindowFigures } from "../../engines/lender-routing/outcome-shift";
import type { BriefingTightening } from "../../engines/reports/signals";
import type { Database, SqliteReader } from "../client";
import { deals, lenderDecisions, lenderOutcomeEpisodes, storeFeeds, stores } from "../org-schema";
import { lenderOutcomeSettings, lenderPrograms } from "../schema";

// --- feed freshness (docs/ingestion.md#when-a-feed-stops) ----------------------------------------

/** The organization's stores (all, or those named) with their thresholds, and when each feed last delivered. */
export type FeedReceipts = { stores: FeedStore[]; receipts: FeedReceipt[] };

/** The two reads of the receipts; the same on D1 and in the organization's object, which keeps its stores' thresholds beside its deliveries. */
function feedReceiptQueries(db: SqliteReader, orgId: string, storeIds?: readonly string[]) {
  return [
    db
      .select({ id: stores.id, name: stores.name, inventoryStaleHours: stores.inventoryStaleHours, dealsStaleHours: stores.dealsStaleHours })
      .from(stores)
      .where(and(eq(stores.orgId, orgId), storeIds === undefined ? undefined : inArray(stores.id, [...storeIds])))
      .orderBy(asc(stores.id)),
    db
      .select({ storeId: storeFeeds.storeId, feed: storeFeeds.feed, receivedAt: storeFeeds.receivedAt })
      .from(storeFeeds)
      .where(and(eq(storeFeeds.orgId, orgId), storeIds === undefined ? undefined : inArray(storeFeeds.storeId, [...storeIds]))),
  ] as const;
}

/** The receipts in the organization's object, whose SQLite answers each read at once (no batch there). */
export async function readFeedReceipts(db: SqliteReader, orgId: string, storeIds?: readonly string[]): Promise<FeedReceipts> {
  const [storeRows, receipts] = feedReceiptQueries(db, orgId, storeIds);
  return { stores: await storeRows, receipts: await receipts };
}

/** The stores of `storeIds` whose `feed` has an open stale episode, with when it opened. */
export async function findStaleFeeds(db: SqliteReader, orgId: string, storeIds: readonly string[], feed: StoreFeed) {
  if (storeIds.length === 0) return [];
  return db
    .select({ storeId: storeFeeds.storeId, staleSince: storeFeeds.staleSince, receivedAt: storeFeeds.receivedAt })
    .from(storeFeeds)
    .where(
      and(
        eq(storeFeeds.orgId, orgId),
        inArray(storeFeeds.storeId, [...storeIds]),
        eq(storeFeeds.feed, feed),
        sql`${storeFeeds.staleSince} IS NOT NULL`,
      ),
    );
}

/** The `store.feed_resumed` of each store whose feed had an open episode, delivering at `now`: the delivery closes it. */
export function feedResumedEvents(
  orgId: string,
  feed: StoreFeed,
  stale: readonly { storeId: string; staleSince: string | null; receivedAt: string }[],
  now: Date,
) {
  return stale.map((s) => ({
    event: "store.feed_resumed" as const,
    orgId,
    storeId: s.storeId,
    data: {
      feed,
      stale_since: s.staleSince,
      last_received_at: s.receivedAt,
      received_at: now.toISOString(),
      gap_hours: Number(((now.getTime() - Date.parse(s.receivedAt)) / 3_600_000).toFixed(1)),
    },
  }));
}

/** A delivery of `feed` for each store: received now, and any stale episode closed. */
export function recordFeedDeliveries(
  db: SqliteReader,
  orgId: string,
  storeIds: readonly string[],
  feed: StoreFeed,
  at: string,
): BatchItem<"sqlite">[] {
  return storeIds.map(
    (storeId) =>
      db
        .insert(storeFeeds)
        .values({ orgId, storeId, feed, receivedAt: at, staleSince: null })
        .onConflictDoUpdate({
          target: [storeFeeds.storeId, storeFeeds.feed],
          set: { receivedAt: at, staleSince: null },
        }) as unknown as BatchItem<"sqlite">,
  );
}

/** Feeds one stale check opens episodes for; more wait for the next (the object's alarm, at once). */
export const STALE_FEEDS_PER_CHECK = 200;

/** A feed's threshold in hours: its store's setting for that feed. */
const feedThresholdHours = sql`CASE WHEN ${storeFeeds.feed} = 'inventory' THEN ${stores.inventoryStaleHours} ELSE ${stores.dealsStaleHours} END`;

/**
 * Feeds past their store's threshold with no open episode, oldest delivery first, at most `limit`:
 * what the stale check raises `store.feed_stale` for. `scope` narrows them to the organization's (an object's own).
 */
export async function listNewlyStaleFeeds(db: SqliteReader, now: string, limit: number, scope: SQL) {
  return db
    .select({
      orgId: storeFeeds.orgId,
      storeId: storeFeeds.storeId,
      feed: storeFeeds.feed,
      receivedAt: storeFeeds.receivedAt,
      store: { id: stores.id, name: stores.name, inventoryStaleHours: stores.inventoryStaleHours, dealsStaleHours: stores.dealsStaleHours },
    })
    .from(storeFeeds)
    .innerJoin(stores, and(eq(stores.id, storeFeeds.storeId), eq(stores.orgId, storeFeeds.orgId)))
    .where(
      and(
        scope,
        isNull(storeFeeds.staleSince),
        sql`${storeFeeds.receivedAt} < strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '-' || ${feedThresholdHours} || ' hours')`,
      ),
    )
    .orderBy(asc(storeFeeds.receivedAt))
    .limit(limit);
}

/** When the first of the organization's feeds with no open episode goes past its threshold (ISO-8601), or null: when an object's stale check is next due. */
export async function nextFeedStaleAt(db: SqliteReader, orgId: string): Promise<string | null> {
  const [row] = await db
    .select({ at: sql<string | null>`min(strftime('%Y-%m-%dT%H:%M:%fZ', ${storeFeeds.receivedAt}, '+' || ${feedThresholdHours} || ' hours'))` })
    .from(storeFeeds)
    .innerJoin(stores, and(eq(stores.id, storeFeeds.storeId), eq(stores.orgId, storeFeeds.orgId)))
    .where(and(eq(storeFeeds.orgId, orgId), isNull(storeFeeds.staleSince)));
  return row?.at ?? null;
}

type NewlyStaleFeed = Awaited<ReturnType<typeof listNewlyStaleFeeds>>[number];

/** A feed's `store.feed_stale`, in the warning's words (docs/ingestion.md#when-a-feed-stops). */
export function feedStaleEvent(row: NewlyStaleFeed, now: Date) {
  const [entry] = dataAsOf([row.store], [{ storeId: row.storeId, feed: row.feed, receivedAt: row.receivedAt }], [row.feed], now);
  return {
    event: "store.feed_stale" as const,
    orgId: row.orgId,
    storeId: row.storeId,
    data: {
      feed: row.feed,
      store_name: row.store.name,
      last_received_at: row.receivedAt,
      age_hours: entry.age_hours,
      stale_after_hours: entry.stale_after_hours,
      summary: entry.warning,
    },
  };
}

/** Opens the episode, only while the feed still has not delivered since it was read (a delivery meanwhile wins). */
export function markFeedStale(
  db: SqliteReader,
  row: { orgId: string; storeId: string; feed: StoreFeed; receivedAt: string },
  at: string,
): BatchItem<"sqlite"> {
  return db
    .update(storeFeeds)
    .set({ staleSince: at })
    .where(
      and(
        eq(storeFeeds.orgId, row.orgId),
        eq(storeFeeds.storeId, row.storeId),
        eq(storeFeeds.feed, row.feed),
        eq(storeFeeds.receivedAt, row.receivedAt),
        isNull(storeFeeds.staleSince),
      ),
    ) as unknown as BatchItem<"sqlite">;
}

// --- a lender tightening in the store's own decisions ---------------------------------------------

export async function loadOutcomeSettings(db: Database): Promise<OutcomeSettings | null> {
  const rows = await db.select().from(lenderOutcomeSettings).where(eq(lenderOutcomeSettings.id, "default")).limit(1);
  return rows[0] ?? null;
}

/**
 * The organization's decisions submitted on or after `sinceDay`, with the stips asked and the
 * linked deal's days to fund, in the organization's object, which holds its deals and decisions together.
 */
export async function listOutcomeDecisions(db: SqliteReader, orgId: string, sinceDay: string): Promise<OutcomeDecision[]> {
  const rows = await db
    .select({
      storeId: lenderDecisions.storeId,
      programId: lenderDecisions.programId,
      submittedOn: lenderDecisions.submittedOn,
      decision: lenderDecisions.decision,
      stipsAsked: sql<number>`json_array_length(${lenderDecisions.stipsAsked})`,
      turnaroundHours: lenderDecisions.turnaroundHours,
      fundingDays: sql<number | null>`julianday(${deals.fundedOn}) - julianday(${lenderDecisions.submittedOn})`,
    })
    .from(lenderDecisions)
    .leftJoin(deals, and(eq(deals.id, lenderDecisions.dealId), eq(deals.orgId, lenderDecisions.orgId)))
    .where(and(eq(lenderDecisions.orgId, orgId), gte(lenderDecisions.submittedOn, sinceDay)));
  return rows.map((r) => ({ ...r, stipsAsked: Number(r.stipsAsked), fundingDays: r.fundingDays === null ? null : Number(r.fundingDays) }));
}

/**
 * Open tightening episodes of the organization (or one store), by lender: the same query on D1
 * and in the organization's object. The lender's name is the one its figures were raised with
 * (the object holds no program matrix to join).
 */
export function openEpisodesQuery(db: SqliteReader, orgId: string, storeId?: string) {
  const e = lenderOutcomeEpisodes;
  return db
    .select({ id: e.id, storeId: e.storeId, programId: e.programId, openedAt: e.openedAt, figures: e.figures })
    .from(e)
    .where(and(eq(e.orgId, orgId), storeId === undefined ? undefined : eq(e.storeId, storeId), isNull(e.closedAt)))
    .orderBy(sql`json_extract(${e.figures}, '$.lender')`, asc(e.programId));
}

export type OpenEpisodeRow = Awaited<ReturnType<typeof openEpisodesQuery>>[number];

/** The rows of `openEpisodesQuery` with their lender's name and figures read. */
export const openEpisodes = (rows: readonly OpenEpisodeRow[]) =>
  rows.map((r) => {
    const figures = r.figures as unknown as StoredShiftFigures;
    return { ...r, lender: figures.lender ?? r.programId, figures };
  });

export type OpenEpisode = ReturnType<typeof openEpisodes>[number];

export async function listOpenEpisodes(db: SqliteReader, orgId: string, storeId?: string): Promise<OpenEpisode[]> {
  return openEpisodes(await openEpisodesQuery(db, orgId, storeId));
}

/** A store's open episodes as its briefing names them. */
export const briefingTightenings = (episodes: readonly OpenEpisode[]): BriefingTightening[] =>
  episodes.map((e) => ({
    lender: e.lender,
    since: e.openedAt.slice(0, 10),
    summary: e.figures.summary,
    before: e.figures.before.approval_rate ?? 0,
    after: e.figures.after.approval_rate ?? 0,
  }));

/** What an episode stores when it opens: the event's figures. */
interface StoredShiftFigures {
  lender?: string;
  before: WindowFigures;
  after: WindowFigures;
  window_days: number;
  p_value: number;
  summary: string;
}

/** An episode opened, run in the organization's object. */
export function insertEpisode(
  db: SqliteReader,
  row: { id: string; orgId: string; storeId: string; programId: string; openedAt: string; figures: Record<string, unknown> },
): BatchItem<"sqlite"> {
  return db.insert(lenderOutcomeEpisodes).values(row);
}

/** Every program's name by id (reference rows): what an event names the lender by. */
export async function listProgramNames(db: Database): Promise<Map<string, string>> {
  const rows = await db.select({ id: lenderPrograms.id, name: lenderPrograms.name }).from(lenderPrograms);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Closes an open episode; a closed one is left as it is. */
export function closeEpisode(db: SqliteReader, orgId: string, id: string, at: string): BatchItem<"sqlite"> {
  return db
    .update(lenderOutcomeEpisodes)
    .set({ closedAt: at })
    .where(and(eq(lenderOutcomeEpisodes.orgId, orgId), eq(lenderOutcomeEpisodes.id, id), isNull(lenderOutcomeEpisodes.closedAt)));
}

/** An episode as the lender-outcome job opens it. */
export type NewEpisode = Parameters<typeof insertEpisode>[1];

/**
 * The lender-outcome job's reads and writes of an organization's decisions and episodes in its
 * object (src/db/org-store.ts `outcomeStore`, on its alarm).
 */
export interface OutcomeStore {
  read(sinceDay: string): Promise<{ decisions: OutcomeDecision[]; open: OpenEpisode[] }>;
  /**
   * Opens and closes episodes, and records their events in the object's outbox, in one transaction
   * (the object relays them to D1); the unique open-episode index refuses a second opening.
   */
  write(
    opened: readonly NewEpisode[],
    closedIds: readonly string[],
    at: string,
    events: readonly { event: string; orgId: string; storeId: string | null; data: Record<string, unknown> }[],
  ): void;
}
