import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { retryingStaleReads } from "../../db/guarded";
import * as queries from "../../db/queries/ingest";
import { findStaleFeeds, recordFeedDeliveries, unlessFeedEpisodesChanged } from "../../db/queries/signals";
import type { StoreFeed } from "../../engines/freshness";
import * as rules from "../../engines/ingest";
import { commitWithEvents, type DomainEvent } from "../../events/emit";
import { refreshAlertTotals } from "../../jobs/alert-totals";
import { DomainError } from "../../lib/domain-error";
import { newId } from "../../lib/ids";
import type { IngestDealSchema, IngestDealsSchema, IngestInventorySchema } from "./ingest.routes";
import { stipChanges } from "./stips";

/**
 * A DMS push: the request's records held to the rules (src/engines/ingest), compared with what is
 * stored, and written in one batch. CSV bodies are read in ./csv.ts, stips compared in ./stips.ts.
 */

type Deal = z.infer<typeof IngestDealSchema>;

/** The deal desk's answer for a store id that is not the organization's, whether it exists elsewhere or not. */
const storeNotFound = (where?: string) => new DomainError("not_found", `This organization has no store with that id${where ? ` (${where})` : ""}.`);

function assertUnique<T>(rows: T[], key: (row: T) => string, listName: string, field: string): void {
  const problems = rules.duplicateRows(rows, key, listName, field);
  if (problems.length > 0) throw new DomainError("invalid", `Each ${field} may appear once per request.`, { problems });
}

function assertStipsUniquePerDeal(deals: Deal[]): void {
  const { names, problems } = rules.repeatedStips(deals);
  if (problems.length > 0)
    throw new DomainError("invalid", `A deal may list each stip once; listed more than once: ${names.join(", ").slice(0, 200)}.`, { problems });
}

/**
 * A delivery of the stores' feed: each store's feed is received now, and a store whose feed had a
 * stale episode open raises `store.feed_resumed` once, closing it (docs/ingestion.md#when-a-feed-stops).
 */
async function feedDelivery(db: Database, orgId: string, storeIds: string[], feed: StoreFeed, now: Date) {
  const at = now.toISOString();
  const stale = await findStaleFeeds(db, orgId, storeIds, feed);
  const events: DomainEvent[] = stale.map((s) => ({
    event: "store.feed_resumed",
    orgId,
    storeId: s.storeId,
    data: {
      feed,
      stale_since: s.staleSince,
      last_received_at: s.receivedAt,
      received_at: at,
      gap_hours: Number(((now.getTime() - Date.parse(s.receivedAt)) / 3_600_000).toFixed(1)),
    },
  }));
  const guard = stale.length > 0 ? [unlessFeedEpisodesChanged(db, orgId, feed, stale)] : [];
  return { statements: [...guard, ...recordFeedDeliveries(db, orgId, storeIds, feed, at)], events };
}

export async function ingestInventory(
  env: Pick<Env, "WEBHOOKS">,
  db: Database,
  orgId: string,
  storeId: string,
  body: z.infer<typeof IngestInventorySchema>,
  safety: rules.SnapshotSafety,
  now: Date,
) {
  if (!(await queries.listStoreIds(db, orgId)).has(storeId)) throw storeNotFound();
  const units = body.units;
  assertUnique(units, (u) => u.stock_number, "units", "stock_number");
  const stockNumbers = units.map((u) => u.stock_number);
  const counts = await queries.countSnapshotRemovals(db, orgId, storeId, stockNumbers);
  const refusal = rules.snapshotRefusal(storeId, units.length, counts, safety);
  if (refusal)
    throw new DomainError("invalid", refusal.message, { problems: [refusal], facts: { in_stock: counts.inStock, would_remove: counts.absent } });
  const existing = new Map((await queries.findUnitsByStockNumber(db, orgId, stockNumbers)).map((u) => [u.stockNumber, u]));

  let created = 0;
  let updated = 0;
  const changed: queries.UnitRow[] = [];
  for (const unit of units) {
    const stored = existing.get(unit.stock_number);
    if (!stored) created++;
    else if (queries.unitChanges(stored, unit, storeId)) updated++;
    else continue;
    changed.push({ ...unit, id: stored?.id ?? newId("unit") });
  }

  // One batch: the snapshot lands whole or not at all, and a concurrent read sees it before or after;
  // the delivery is recorded with it (docs/ingestion.md#when-a-feed-stops).
  // Two deliveries at once: the one whose episode read went stale reads again (unlessFeedEpisodesChanged).
  const commit = async () => {
    const delivery = await feedDelivery(db, orgId, [storeId], "inventory", now);
    const { results } = await commitWithEvents(
      env,
      db,
      [queries.markAbsentUnitsSold(db, orgId, storeId, stockNumbers), ...queries.upsertUnits(db, orgId, storeId, changed), ...delivery.statements],
      delivery.events,
      now,
    );
    return results[0];
  };
  const removedRows = await retryingStaleReads(commit);
  // The inventory-alerts totals of this store, now rather than on the next report's request (docs/reports.md#totals).
  if (created + updated + (removedRows as unknown[]).length > 0) await refreshAlertTotals(db, orgId, now, [storeId]);
  return {
    store_id: storeId,
    received: units.length,
    created,
    updated,
    unchanged: units.length - created - updated,
    removed: (removedRows as unknown[]).length,
  };
}

export async function ingestDeals(env: Pick<Env, "WEBHOOKS">, db: Database, orgId: string, body: z.infer<typeof IngestDealsSchema>, now: Date) {
  const deals = body.deals;
  assertUnique(deals, (d) => d.deal_number, "deals", "deal_number");
  assertStipsUniquePerDeal(deals);
  const storeIds = await queries.listStoreIds(db, orgId);
  const unknownStores = deals.flatMap((d, index) => (storeIds.has(d.store_id) ? [] : [`deals.${index}.store_id`]));
  if (unknownStores.length > 0) {
    const more = unknownStores.length > 5 ? ` and ${unknownStores.length - 5} more` : "";
    throw storeNotFound(`${unknownStores.slice(0, 5).join(", ")}${more}`);
  }

  // Simultaneous posts of the same deals: the write holds only while what was read still stands
  // (unlessDealsChanged, unlessFeedEpisodesChanged), else the post reads again, so a new stip is
  // stored and alerted once, and a closed stale episode raises store.feed_resumed once.
  return retryingStaleReads(() => writeDeals(env, db, orgId, deals, now));
}

async function writeDeals(env: Pick<Env, "WEBHOOKS">, db: Database, orgId: string, deals: Deal[], now: Date) {
  const dealNumbers = deals.map((d) => d.deal_number);
  const read = await queries.findDealsByNumber(db, orgId, dealNumbers);
  const existing = new Map(read.map((d) => [d.dealNumber, d]));
  const readStips = read.flatMap((d) => d.stips.map(({ id, state, requestedOn, clearedOn }) => ({ id, state, requestedOn, clearedOn })));
  const today = now.toISOString().slice(0, 10);
  let created = 0;
  let updated = 0;
  const dealRows: queries.DealRow[] = [];
  const stipRows: queries.StipRow[] = [];
  const events: DomainEvent[] = [];
  for (const deal of deals) {
    const { stips: _stips, ...fields } = deal;
    const stored = existing.get(deal.deal_number);
    const stips = stipChanges(orgId, deal, stored?.stips ?? [], today);
    const dealChanged = !stored || queries.dealChanges(stored, fields);
    if (!stored) created++;
    else if (dealChanged || stips.rows.length > 0) updated++;
    if (dealChanged) dealRows.push({ ...fields, id: stored?.id ?? newId("deal") });
    stipRows.push(...stips.rows);
    events.push(...stips.events);
  }

  const guard = queries.unlessDealsChanged(db, orgId, dealNumbers, read.length, readStips);
  const delivery = await feedDelivery(db, orgId, [...new Set(deals.map((d) => d.store_id))], "deals", now);
  await commitWithEvents(
    env,
    db,
    [guard, ...queries.upsertDeals(db, orgId, dealRows), ...queries.upsertStips(db, orgId, stipRows), ...delivery.statements],
    [...events, ...delivery.events],
    now,
  );
  return { received: deals.length, created, updated, unchanged: deals.length - created - updated, stip_alerts: events.length };
}
