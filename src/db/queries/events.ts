import { and, asc, desc, eq, getTableColumns, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { inChunks } from "../batch";
import type { Database } from "../client";
import { eventOutbox, stores } from "../schema";

export type OutboxRow = typeof eventOutbox.$inferSelect;
type NewOutboxRow = typeof eventOutbox.$inferInsert;

/** The outbox inserts for these events, chunked under the bound-parameter limit (for the caller's batch). */
export function insertOutboxRows(db: Database, rows: NewOutboxRow[]): BatchItem<"sqlite">[] {
  return inChunks(rows, (part) => db.insert(eventOutbox).values(part));
}

/**
 * An event an organization's storage object recorded with its change (its own outbox), relayed
 * here under its id. Its data is JSON (stored as text), typed as values an RPC answer can carry:
 * the recorded events travel back from the object to the request that relays them.
 */
export type RecordedEvent = Pick<OutboxRow, "id" | "orgId" | "storeId" | "event" | "occurredAt"> & {
  data: Record<string, string | number | boolean | null | object>;
};

/**
 * The outbox inserts of events recorded elsewhere (an object's outbox), each returning its id if it
 * was not here yet: a relay run again inserts nothing, and the caller sends only what it inserted.
 */
export function relayOutboxRows(db: Database, rows: readonly RecordedEvent[]) {
  return inChunks(rows, (part) =>
    db.insert(eventOutbox).values(part).onConflictDoNothing({ target: eventOutbox.id }).returning({ id: eventOutbox.id }),
  );
}

/** An event as a queue message names it: its organization and its id. */
export interface EventRef {
  orgId: string;
  eventId: string;
}

/**
 * The row's organization and event are one of `events`' pairs: each event scoped by its own
 * organization. No events match no row (never a missing WHERE).
 */
export function isOneOfEvents(orgColumn: SQLiteColumn, eventColumn: SQLiteColumn, events: readonly EventRef[]): SQL {
  return or(...events.map((e) => and(eq(orgColumn, e.orgId), eq(eventColumn, e.eventId)))) ?? sql`0`;
}

/**
 * Marks the events fanned out: statements for the batch that creates their deliveries
 * (`createDeliveries`), so the mark costs no round trip of its own. A repeated fan-out keeps the first time.
 */
export function markOutboxFannedOut(db: Database, events: readonly EventRef[], at: string): BatchItem<"sqlite">[] {
  return inChunks(events, (part) =>
    db
      .update(eventOutbox)
      .set({ fannedOutAt: at })
      .where(and(isOneOfEvents(eventOutbox.orgId, eventOutbox.id, part), isNull(eventOutbox.fannedOutAt))),
  );
}

/** The events of D1's outbox that `events` name, as the fan-out carries them to the organization's object; purged ones are left out. */
export async function findOutboxEvents(db: Database, events: readonly EventRef[]) {
  const { fannedOutAt: _, ...columns } = getTableColumns(eventOutbox);
  return (
    await Promise.all(
      inChunks(events, (part) =>
        db
          .select(columns)
          .from(eventOutbox)
          .where(isOneOfEvents(eventOutbox.orgId, eventOutbox.id, part)),
      ),
    )
  ).flat();
}

/** A dead-lettered fan-out message hands its event back to the sweeper. */
export async function clearOutboxFannedOut(db: Database, orgId: string, id: string): Promise<void> {
  await db
    .update(eventOutbox)
    .set({ fannedOutAt: null })
    .where(and(eq(eventOutbox.orgId, orgId), eq(eventOutbox.id, id)));
}

/**
 * Every organization's events not fanned out yet that occurred before `before` (system job: not per
 * org): a lost queue send, a dead-lettered fan-out, or a message still waiting in a backed-up queue.
 */
export async function listOutboxNotFannedOut(db: Database, before: string, limit: number) {
  return db
    .select({ id: eventOutbox.id, orgId: eventOutbox.orgId })
    .from(eventOutbox)
    .where(and(isNull(eventOutbox.fannedOutAt), lt(eventOutbox.occurredAt, before)))
    .orderBy(eventOutbox.occurredAt)
    .limit(limit);
}

/** An organization's events, newest first (the test helper and support use it). */
export async function listOutboxEvents(db: Database, orgId: string, limit: number) {
  return db.select().from(eventOutbox).where(eq(eventOutbox.orgId, orgId)).orderBy(desc(eventOutbox.occurredAt), desc(sql`rowid`)).limit(limit);
}

/**
 * The organization's primary store (`is_primary`, else its oldest store): the `store_id` of an
 * envelope whose event has no store of its own (docs/webhooks.md#the-delivery).
 */
export async function findPrimaryStoreId(db: Database, orgId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: stores.id })
    .from(stores)
    .where(eq(stores.orgId, orgId))
    .orderBy(desc(stores.isPrimary), asc(stores.createdAt), asc(stores.id))
    .limit(1);
  return row?.id ?? null;
}
