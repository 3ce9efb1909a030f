import type { z } from "@hono/zod-openapi";
import type { Statement } from "../../db/batch";
import type { Database } from "../../db/client";
import { retryingStaleReads } from "../../db/guarded";
import type { RecordedEvent } from "../../db/queries/events";
import * as queries from "../../db/queries/ingest";
import { unlessStorageInD1 } from "../../db/queries/org-storage";
import { feedResumedEvents, findStaleFeeds, recordFeedDeliveries, unlessFeedEpisodesChanged } from "../../db/queries/signals";
import type { OrgStoragePlace } from "../../db/schema";
import { confirmRelayed, onOrgStorage, orgStore } from "../../durable-objects/org-storage-routing";
import type { StoreFeed } from "../../engines/freshness";
import * as rules from "../../engines/ingest";
import { commitWithEvents } from "../../events/emit";
import { refreshAlertTotals } from "../../jobs/alert-totals";
import type { Background } from "../../lib/background";
import { DomainError } from "../../lib/domain-error";
import type { IngestDealSchema, IngestDealsSchema, IngestInventorySchema } from "./ingest.routes";

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
  const stale = await findStaleFeeds(db, orgId, storeIds, feed);
  const guard = stale.length > 0 ? [unlessFeedEpisodesChanged(db, orgId, feed, stale)] : [];
  return {
    statements: [...guard, ...recordFeedDeliveries(db, orgId, storeIds, feed, now.toISOString())],
    events: feedResumedEvents(orgId, feed, stale, now),
  };
}

/** The events an object's write recorded, relayed to D1's outbox and the queue now; the object then leaves them to no alarm (docs/scaling.md#an-object-write-and-its-events). */
async function relayRecorded(
  env: Pick<Env, "WEBHOOKS" | "ORG_STORE">,
  db: Database,
  orgId: string,
  recorded: RecordedEvent[],
  now: Date,
  background: Background,
) {
  if (recorded.length === 0) return;
  await commitWithEvents(env, db, [], [], now, recorded);
  confirmRelayed(env, orgId, recorded, background);
}

export async function ingestInventory(
  env: Pick<Env, "WEBHOOKS" | "DB" | "ORG_STORE">,
  db: Database,
  orgId: string,
  storage: OrgStoragePlace,
  storeId: string,
  body: z.infer<typeof IngestInventorySchema>,
  safety: rules.SnapshotSafety,
  now: Date,
  background: Background,
) {
  const stores = await queries.listStores(db, orgId);
  if (!stores.has(storeId)) throw storeNotFound();
  const units = body.units;
  assertUnique(units, (u) => u.stock_number, "units", "stock_number");

  // One batch: the delivery (and its events) land whole or not at all (docs/ingestion.md#when-a-feed-stops).
  // Two deliveries at once: the one whose episode read went stale reads again (unlessFeedEpisodesChanged).
  const recordDelivery = (unitWrites: Statement[]) =>
    retryingStaleReads(async () => {
      const delivery = await feedDelivery(db, orgId, [storeId], "inventory", now);
      const { results } = await commitWithEvents(env, db, [...unitWrites, ...delivery.statements], delivery.events, now);
      return results;
    });

  // The units are read and written where the organization's data lives (docs/scaling.md): in D1
  // with the delivery, in one batch that D1's fence holds to the flag; in its storage object in one
  // call, with the delivery and its events in the object's outbox, then relayed to D1.
  let inD1 = false;
  const applied = await onOrgStorage(env, orgId, storage, "write", {
    inD1: async () => {
      inD1 = true;
      const plan = await queries.planSnapshot(db, orgId, storeId, units, safety);
      if (plan.refusal) return plan;
      const writes = [
        unlessStorageInD1(db, orgId),
        queries.markAbsentUnitsSold(db, orgId, storeId, plan.listed),
        ...queries.upsertUnits(db, orgId, storeId, plan.changed),
      ];
      const results = await recordDelivery(writes);
      return { refusal: null, created: plan.created, updated: plan.updated, removed: (results[1] as unknown[]).length };
    },
    inObject: async () => {
      const names = [...stores].map(([id, name]) => ({ id, name }));
      inD1 = false;
      const result = await orgStore(env, orgId).applySnapshot(orgId, names, storeId, units, safety, now.toISOString());
      if (!("notServing" in result) && !result.refusal) await relayRecorded(env, db, orgId, result.events, now, background);
      return result;
    },
  });
  if (applied.refusal) {
    const { refusal, counts } = applied;
    throw new DomainError("invalid", refusal.message, { problems: [refusal], facts: { in_stock: counts.inStock, would_remove: counts.absent } });
  }
  const { created, updated, removed } = applied;
  // The inventory-alerts totals of this store, now rather than on the next report's request (docs/reports.md#totals).
  // They are read from D1's units: an organization in its object keeps them until the reports move (docs/scaling.md).
  if (inD1 && created + updated + removed > 0) await refreshAlertTotals(db, orgId, now, [storeId]);
  return { store_id: storeId, received: units.length, created, updated, unchanged: units.length - created - updated, removed };
}

export async function ingestDeals(
  env: Pick<Env, "WEBHOOKS" | "DB" | "ORG_STORE">,
  db: Database,
  orgId: string,
  storage: OrgStoragePlace,
  body: z.infer<typeof IngestDealsSchema>,
  now: Date,
  background: Background,
) {
  const deals = body.deals;
  assertUnique(deals, (d) => d.deal_number, "deals", "deal_number");
  assertStipsUniquePerDeal(deals);
  const storeIds = await queries.listStores(db, orgId);
  const unknownStores = deals.flatMap((d, index) => (storeIds.has(d.store_id) ? [] : [`deals.${index}.store_id`]));
  if (unknownStores.length > 0) {
    const more = unknownStores.length > 5 ? ` and ${unknownStores.length - 5} more` : "";
    throw storeNotFound(`${unknownStores.slice(0, 5).join(", ")}${more}`);
  }
  const today = now.toISOString().slice(0, 10);
  const feedStores = [...new Set(deals.map((d) => d.store_id))];

  // The deals are read and written where the organization's data lives (docs/scaling.md): in D1
  // with the delivery and the events, in one batch that D1's fence holds to the flag; in its
  // storage object in one call (read, compared and written in one transaction with the delivery,
  // the stip alerts and any store.feed_resumed in the object's outbox), then the events relayed in
  // one D1 batch. Should that batch fail, the object's alarm relays them
  // (docs/scaling.md#an-object-write-and-its-events).
  const applied = await onOrgStorage<queries.AppliedDeals>(env, orgId, storage, "write", {
    // Simultaneous posts of the same deals: the write holds only while what was read still stands
    // (unlessDealsChanged, unlessFeedEpisodesChanged), else the post reads again, so a new stip is
    // stored and alerted once, and a closed stale episode raises store.feed_resumed once.
    inD1: () =>
      retryingStaleReads(async () => {
        const plan = await queries.planDeals(db, orgId, deals, today);
        const guard = queries.unlessDealsChanged(db, orgId, plan.dealNumbers, plan.dealCount, plan.readStips);
        const delivery = await feedDelivery(db, orgId, feedStores, "deals", now);
        const writes = [
          unlessStorageInD1(db, orgId),
          guard,
          ...queries.upsertDeals(db, orgId, plan.dealRows),
          ...queries.upsertStips(db, orgId, plan.stipRows),
        ];
        await commitWithEvents(env, db, [...writes, ...delivery.statements], [...plan.alerts, ...delivery.events], now);
        return { created: plan.created, updated: plan.updated, alerts: plan.alerts };
      }),
    inObject: async () => {
      const names = [...storeIds].map(([id, name]) => ({ id, name }));
      const result = await orgStore(env, orgId).applyDeals(orgId, names, deals, today, now.toISOString());
      if ("notServing" in result) return result;
      // An object still on the previous code (a deploy's overlap) recorded nothing: its alerts are raised here, as it expects.
      if (result.events) await relayRecorded(env, db, orgId, result.events, now, background);
      else await commitWithEvents(env, db, [], result.alerts, now);
      return result;
    },
  });
  const { created, updated, alerts } = applied;
  return { received: deals.length, created, updated, unchanged: deals.length - created - updated, stip_alerts: alerts.length };
}
