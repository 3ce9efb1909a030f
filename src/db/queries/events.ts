import { and, asc, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { inChunks, runBatch } from "../batch";
import type { Database } from "../client";
import { eventOutbox, stores } from "../schema";

export type OutboxRow = typeof eventOutbox.$inferSelect;
type NewOutboxRow = typeof eventOutbox.$inferInsert;

/** The outbox inserts for these events, chunked under the bound-parameter limit (for the caller's batch). */
export function insertOutboxRows(db: Database, rows: NewOutboxRow[]): BatchItem<"sqlite">[] {
  return inChunks(rows, (part) => db.insert(eventOutbox).values(part));
}

export async function markOutboxEnqueued(db: Database, ids: string[], at: string): Promise<void> {
  await runBatch(
    db,
    inChunks(ids, (part) => db.update(eventOutbox).set({ enqueuedAt: at }).where(inArray(eventOutbox.id, part))),
  );
}

/** A dead-lettered fan-out message hands its event back to the sweeper. */
export async function markOutboxUnsent(db: Database, orgId: string, id: string): Promise<void> {
  await db
    .update(eventOutbox)
    .set({ enqueuedAt: null })
    .where(and(eq(eventOutbox.orgId, orgId), eq(eventOutbox.id, id)));
}

/** Every organization's events the Queue never accepted, older than `before` (system job: not per org). */
export async function listUnsentOutbox(db: Database, before: string, limit: number) {
  return db
    .select({ id: eventOutbox.id, orgId: eventOutbox.orgId })
    .from(eventOutbox)
    .where(and(isNull(eventOutbox.enqueuedAt), lt(eventOutbox.occurredAt, before)))
    .orderBy(eventOutbox.occurredAt)
    .limit(limit);
}

export async function findOutboxEvent(db: Database, orgId: string, id: string): Promise<OutboxRow | null> {
  const [row] = await db
    .select()
    .from(eventOutbox)
    .where(and(eq(eventOutbox.orgId, orgId), eq(eventOutbox.id, id)))
    .limit(1);
  return row ?? null;
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
