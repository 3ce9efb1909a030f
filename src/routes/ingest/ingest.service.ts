import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import type { RecordedEvent } from "../../db/queries/events";
import * as queries from "../../db/queries/ingest";
import { confirmRelayed, orgStore } from "../../durable-objects/org-storage-routing";
import * as rules from "../../engines/ingest";
import { commitWithEvents } from "../../events/emit";
import type { Background } from "../../lib/background";
import { DomainError } from "../../lib/domain-error";
import type { IngestDealSchema, IngestDealsSchema, IngestInventorySchema } from "./ingest.routes";

/**
 * A DMS push: the request's records held to the rules (src/engines/ingest), then read, compared
 * and written by the organization's storage object in one call (one transaction, with the feed's
 * delivery and the events it raises in the object's outbox). CSV bodies are read in ./csv.ts.
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

  // With the directory's store names: the object's feeds join them.
  const names = [...stores].map(([id, name]) => ({ id, name }));
  const applied = await orgStore(env, orgId).applySnapshot(orgId, names, storeId, units, safety, now.toISOString());
  if (applied.refusal) {
    const { refusal, counts } = applied;
    throw new DomainError("invalid", refusal.message, { problems: [refusal], facts: { in_stock: counts.inStock, would_remove: counts.absent } });
  }
  await relayRecorded(env, db, orgId, applied.events, now, background);
  const { created, updated, removed } = applied;
  return { store_id: storeId, received: units.length, created, updated, unchanged: units.length - created - updated, removed };
}

export async function ingestDeals(
  env: Pick<Env, "WEBHOOKS" | "DB" | "ORG_STORE">,
  db: Database,
  orgId: string,
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

  // The object reads, compares and writes the deals in one transaction with the delivery, the stip
  // alerts and any store.feed_resumed in its outbox; the events are then relayed in one D1 batch.
  // Should that batch fail, the object's alarm relays them (docs/scaling.md#an-object-write-and-its-events).
  const names = [...storeIds].map(([id, name]) => ({ id, name }));
  const applied = await orgStore(env, orgId).applyDeals(orgId, names, deals, today, now.toISOString());
  await relayRecorded(env, db, orgId, applied.events, now, background);
  const { created, updated, alerts } = applied;
  return { received: deals.length, created, updated, unchanged: deals.length - created - updated, stip_alerts: alerts.length };
}
