import { and, asc, eq, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { DAY_MS } from "../../engines/dates";
import type { FeedReceipt, FeedStore, StoreFeed } from "../../engines/freshness";
import type { OutcomeDecision, OutcomeSettings, WindowFigures } from "../../engines/lender-routing/outcome-shift";
import { chunk, MAX_BOUND_PARAMETERS } from "../batch";
import type { Database, SqliteReader } from "../client";
import { unlessStillAsRead } from "../guarded";
import { deals, lenderDecisions, lenderOutcomeEpisodes, lenderOutcomeSettings, lenderPrograms, storeFeeds, stores } from "../schema";

// --- feed freshness (docs/ingestion.md#when-a-feed-stops) ----------------------------------------

/** The organization's stores (all, or those named) with their thresholds, and when each feed last delivered. */
export async function loadFeedReceipts(
  db: Database,
  orgId: string,
  storeIds?: readonly string[],
): Promise<{ stores: FeedStore[]; receipts: FeedReceipt[] }> {
  const scope = storeIds === undefined ? undefined : inArray(stores.id, [...storeIds]);
  const [storeRows, receipts] = await db.batch([
    db
      .select({ id: stores.id, name: stores.name, inventoryStaleHours: stores.inventoryStaleHours, dealsStaleHours: stores.dealsStaleHours })
      .from(stores)
      .where(and(eq(stores.orgId, orgId), scope))
      .orderBy(asc(stores.id)),
    db
      .select({ storeId: storeFeeds.storeId, feed: storeFeeds.feed, receivedAt: storeFeeds.receivedAt })
      .from(storeFeeds)
      .where(and(eq(storeFeeds.orgId, orgId), storeIds === undefined ? undefined : inArray(storeFeeds.storeId, [...storeIds]))),
  ]);
  return { stores: storeRows, receipts };
}

/** The stores of `storeIds` whose `feed` has an open stale episode, with when it opened. */
export async function findStaleFeeds(db: Database, orgId: string, storeIds: readonly string[], feed: StoreFeed) {
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

/**
 * The head of a delivery's batch when it closes stale episodes: it fails the batch unless those
 * episodes are still open as read, so of two deliveries at once only one closes an episode and
 * raises `store.feed_resumed`; the other reads again and finds it closed.
 */
export function unlessFeedEpisodesChanged(
  db: Database,
  orgId: string,
  feed: StoreFeed,
  open: readonly { storeId: string; staleSince: string | null }[],
) {
  const stillOpen = sql`(select count(*) from json_each(${JSON.stringify(open)}) j join ${storeFeeds} f
      on f.org_id = ${orgId} and f.feed = ${feed} and f.store_id = json_extract(j.value, '$.storeId')
     and f.stale_since = json_extract(j.value, '$.staleSince')) = ${open.length}`;
  return unlessStillAsRead(db, orgId, stillOpen, "feed episodes");
}

/** A delivery of `feed` for each store: received now, and any stale episode closed. */
export function recordFeedDeliveries(db: Database, orgId: string, storeIds: readonly string[], feed: StoreFeed, at: string): BatchItem<"sqlite">[] {
  return storeIds.map((storeId) =>
    db
      .insert(storeFeeds)
      .values({ orgId, storeId, feed, receivedAt: at, staleSince: null })
      .onConflictDoUpdate({ target: [storeFeeds.storeId, storeFeeds.feed], set: { receivedAt: at, staleSince: null } }),
  );
}

/**
 * Feeds of every organization past their store's threshold with no open episode, oldest delivery
 * first, at most `limit`: what the stale-feed job raises `store.feed_stale` for.
 */
export async function listNewlyStaleFeeds(db: Database, now: string, limit: number) {
  const threshold = sql`CASE WHEN ${storeFeeds.feed} = 'inventory' THEN ${stores.inventoryStaleHours} ELSE ${stores.dealsStaleHours} END`;
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
      and(isNull(storeFeeds.staleSince), sql`${storeFeeds.receivedAt} < strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '-' || ${threshold} || ' hours')`),
    )
    .orderBy(asc(storeFeeds.receivedAt))
    .limit(limit);
}

/** Opens the episode, only while the feed still has not delivered since it was read (a delivery meanwhile wins). */
export function markFeedStale(
  db: Database,
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
    );
}

// --- a lender tightening in the store's own decisions ---------------------------------------------

export async function loadOutcomeSettings(db: Database): Promise<OutcomeSettings | null> {
  const rows = await db.select().from(lenderOutcomeSettings).where(eq(lenderOutcomeSettings.id, "default")).limit(1);
  return rows[0] ?? null;
}

/** The funding day of each of these deals that has one, by id: what the decisions of an organization whose deals are in its object join in memory. */
export async function readFundedOn(db: SqliteReader, orgId: string, dealIds: readonly string[]): Promise<Record<string, string>> {
  const parts = await Promise.all(
    chunk([...new Set(dealIds)], MAX_BOUND_PARAMETERS - 1).map((part) =>
      db
        .select({ id: deals.id, fundedOn: deals.fundedOn })
        .from(deals)
        .where(and(eq(deals.orgId, orgId), inArray(deals.id, part), isNotNull(deals.fundedOn))),
    ),
  );
  return Object.fromEntries(parts.flat().flatMap((d) => (d.fundedOn === null ? [] : [[d.id, d.fundedOn]])));
}

/**
 * The organization's decisions submitted on or after `sinceDay`, with the stips asked and the
 * linked deal's days to fund: joined in D1, or, when its deals are in its object, read there by
 * `fundedOn` (one call) and joined here, the same days (julianday's difference of two dates).
 */
export async function listOutcomeDecisions(
  db: Database,
  orgId: string,
  sinceDay: string,
  fundedOn?: (dealIds: string[]) => Promise<Record<string, string>>,
): Promise<OutcomeDecision[]> {
  const columns = {
    storeId: lenderDecisions.storeId,
    programId: lenderDecisions.programId,
    submittedOn: lenderDecisions.submittedOn,
    decision: lenderDecisions.decision,
    stipsAsked: sql<number>`json_array_length(${lenderDecisions.stipsAsked})`,
    turnaroundHours: lenderDecisions.turnaroundHours,
  };
  const mine = and(eq(lenderDecisions.orgId, orgId), gte(lenderDecisions.submittedOn, sinceDay));
  let rows: (Omit<OutcomeDecision, "fundingDays"> & { fundingDays: number | null })[];
  if (fundedOn) {
    const read = await db
      .select({ ...columns, dealId: lenderDecisions.dealId })
      .from(lenderDecisions)
      .where(mine);
    const funded = await fundedOn(read.flatMap((r) => (r.dealId ? [r.dealId] : [])));
    rows = read.map(({ dealId, ...r }) => {
      const day = dealId ? funded[dealId] : undefined;
      return { ...r, fundingDays: day === undefined ? null : (Date.parse(day) - Date.parse(r.submittedOn)) / DAY_MS };
    });
  } else {
    rows = await db
      .select({ ...columns, fundingDays: sql<number | null>`julianday(${deals.fundedOn}) - julianday(${lenderDecisions.submittedOn})` })
      .from(lenderDecisions)
      .leftJoin(deals, and(eq(deals.id, lenderDecisions.dealId), eq(deals.orgId, lenderDecisions.orgId)))
      .where(mine);
  }
  return rows.map((r) => ({ ...r, stipsAsked: Number(r.stipsAsked), fundingDays: r.fundingDays === null ? null : Number(r.fundingDays) }));
}

/** Open tightening episodes of the organization (or one store), with the program's name. */
export async function listOpenEpisodes(db: Database, orgId: string, storeId?: string) {
  const rows = await db
    .select({
      id: lenderOutcomeEpisodes.id,
      storeId: lenderOutcomeEpisodes.storeId,
      programId: lenderOutcomeEpisodes.programId,
      lender: lenderPrograms.name,
      openedAt: lenderOutcomeEpisodes.openedAt,
      figures: lenderOutcomeEpisodes.figures,
    })
    .from(lenderOutcomeEpisodes)
    .innerJoin(lenderPrograms, eq(lenderPrograms.id, lenderOutcomeEpisodes.programId))
    .where(
      and(
        eq(lenderOutcomeEpisodes.orgId, orgId),
        storeId === undefined ? undefined : eq(lenderOutcomeEpisodes.storeId, storeId),
        isNull(lenderOutcomeEpisodes.closedAt),
      ),
    )
    .orderBy(asc(lenderPrograms.name));
  return rows.map((r) => ({ ...r, figures: r.figures as unknown as StoredShiftFigures }));
}

/** What an episode stores when it opens: the event's figures. */
interface StoredShiftFigures {
  before: WindowFigures;
  after: WindowFigures;
  window_days: number;
  p_value: number;
  summary: string;
}

export function insertEpisode(
  db: Database,
  row: { id: string; orgId: string; storeId: string; programId: string; openedAt: string; figures: Record<string, unknown> },
): BatchItem<"sqlite"> {
  return db.insert(lenderOutcomeEpisodes).values(row);
}

/** Every program's name by id (reference rows): what an event names the lender by. */
export async function listProgramNames(db: Database): Promise<Map<string, string>> {
  const rows = await db.select({ id: lenderPrograms.id, name: lenderPrograms.name }).from(lenderPrograms);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * The head of a recovery's batch: it fails the batch unless every episode it closes is still open,
 * so two runs at once (a duplicated message) close an episode, and say it recovered, once.
 */
export function unlessEpisodesOpen(db: Database, orgId: string, ids: readonly string[]) {
  const stillOpen = sql`(select count(*) from ${lenderOutcomeEpisodes} where ${lenderOutcomeEpisodes.orgId} = ${orgId}
      and ${lenderOutcomeEpisodes.id} in (select value from json_each(${JSON.stringify(ids)})) and ${lenderOutcomeEpisodes.closedAt} is null) = ${ids.length}`;
  return unlessStillAsRead(db, orgId, stillOpen, "episodes");
}

/** Closes an open episode; a closed one is left as it is (a repeated message closes nothing twice: its batch changes no row). */
export function closeEpisode(db: Database, orgId: string, id: string, at: string): BatchItem<"sqlite"> {
  return db
    .update(lenderOutcomeEpisodes)
    .set({ closedAt: at })
    .where(and(eq(lenderOutcomeEpisodes.orgId, orgId), eq(lenderOutcomeEpisodes.id, id), isNull(lenderOutcomeEpisodes.closedAt)));
}

/** What a store's briefing reads of its signals: its feeds' deliveries and its open tightenings. */
export async function loadStoreSignals(db: Database, orgId: string, storeId: string) {
  const [feeds, episodes] = await Promise.all([loadFeedReceipts(db, orgId, [storeId]), listOpenEpisodes(db, orgId, storeId)]);
  return {
    feeds,
    tightenings: episodes.map((e) => ({
      lender: e.lender,
      since: e.openedAt.slice(0, 10),
      summary: e.figures.summary,
      before: e.figures.before.approval_rate ?? 0,
      after: e.figures.after.approval_rate ?? 0,
    })),
  };
}
