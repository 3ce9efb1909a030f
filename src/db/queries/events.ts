import { and, count, desc, eq, getTableColumns, inArray, is, isNull, lt, SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { newId } from "../../credentials/tokens";
import { inChunks, runBatch } from "../batch";
import type { Database } from "../client";
import { eventOutbox, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../schema";

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

// --- endpoints -------------------------------------------------------------------------------

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * Inserts the endpoint only while the organization has fewer than `cap`: the count and the
 * insert are one statement (`INSERT … SELECT … WHERE (SELECT count(*) …) < cap`), so simultaneous
 * creates cannot all see room. Null when the cap is reached.
 */
export async function insertWebhookEndpointUnderCap(
  db: Database,
  orgId: string,
  row: Omit<typeof webhookEndpoints.$inferInsert, "orgId">,
  cap: number,
): Promise<WebhookEndpointRow | null> {
  const values: Record<string, unknown> = { ...row, orgId };
  // Every column in table order, as drizzle's own VALUES would write it: the given value, else the column's default.
  const selected = Object.entries(getTableColumns(webhookEndpoints)).map(([key, column]) => {
    if (values[key] !== undefined) return sql.param(values[key], column);
    return is(column.default, SQL) ? column.default : sql.param(column.default ?? null, column);
  });
  const ownCount = db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId));
  const [created] = await db
    .insert(webhookEndpoints)
    .select(sql`select ${sql.join(selected, sql`, `)} where (${ownCount}) < ${cap}`)
    .returning();
  return created ?? null;
}

export async function listWebhookEndpoints(db: Database, orgId: string) {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId)).orderBy(desc(webhookEndpoints.createdAt), desc(sql`rowid`));
}

export async function findWebhookEndpoint(db: Database, orgId: string, id: string): Promise<WebhookEndpointRow | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .limit(1);
  return row ?? null;
}

export async function updateWebhookEndpoint(
  db: Database,
  orgId: string,
  id: string,
  changes: Partial<Pick<WebhookEndpointRow, "url" | "description" | "events" | "enabled" | "disabledReason">>,
  updatedAt: string,
): Promise<WebhookEndpointRow | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...changes, updatedAt })
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .returning();
  return row ?? null;
}

/** Deletes the endpoint with its deliveries and their attempts. False when the org has no such endpoint. */
export async function deleteWebhookEndpoint(db: Database, orgId: string, id: string): Promise<boolean> {
  const ownDeliveries = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, id)));
  const [, , deleted] = await db.batch([
    db.delete(webhookAttempts).where(and(eq(webhookAttempts.orgId, orgId), inArray(webhookAttempts.deliveryId, ownDeliveries))),
    db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, id))),
    db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
      .returning({ id: webhookEndpoints.id }),
  ]);
  return deleted.length > 0;
}

/** Enabled endpoints of the organization subscribed to this event. */
export async function listSubscribedEndpoints(db: Database, orgId: string, event: string) {
  return db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.orgId, orgId),
        eq(webhookEndpoints.enabled, true),
        sql`exists (select 1 from json_each(${webhookEndpoints.events}) where value = ${event})`,
      ),
    );
}

// --- deliveries ------------------------------------------------------------------------------

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/**
 * One pending delivery per (endpoint, event); a repeated fan-out adds nothing. Returns the
 * event's deliveries that have not been attempted yet, to be queued.
 */
export async function createDeliveries(db: Database, orgId: string, eventId: string, event: string, endpointIds: string[], at: string) {
  const rows = endpointIds.map((endpointId) => ({ id: newId("dlv"), orgId, endpointId, eventId, event, createdAt: at, updatedAt: at }));
  await runBatch(
    db,
    inChunks(rows, (part) => db.insert(webhookDeliveries).values(part).onConflictDoNothing()),
  );
  return db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.orgId, orgId),
        eq(webhookDeliveries.eventId, eventId),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attemptCount, 0),
      ),
    );
}

/**
 * Claims the next attempt number of a pending delivery (atomically, so two copies of a message
 * never record the same attempt). Null when the delivery is gone, delivered or failed.
 */
export async function claimDeliveryAttempt(db: Database, orgId: string, deliveryId: string): Promise<number | null> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1` })
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "pending")))
    .returning({ attempt: webhookDeliveries.attemptCount });
  return row?.attempt ?? null;
}

export async function findDelivery(db: Database, orgId: string, deliveryId: string) {
  const [row] = await db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: eventOutbox })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, and(eq(webhookEndpoints.id, webhookDeliveries.endpointId), eq(webhookEndpoints.orgId, webhookDeliveries.orgId)))
    .innerJoin(eventOutbox, and(eq(eventOutbox.id, webhookDeliveries.eventId), eq(eventOutbox.orgId, webhookDeliveries.orgId)))
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, deliveryId)))
    .limit(1);
  return row ?? null;
}

export interface AttemptRecord {
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  outcome: "delivered" | "retrying" | "failed" | "disabled";
}

/** Records an attempt and the delivery's state after it, together; a 410 also disables the endpoint. */
export async function recordAttempt(
  db: Database,
  orgId: string,
  target: { deliveryId: string; endpointId: string },
  attempt: AttemptRecord,
  status: WebhookDeliveryRow["status"],
): Promise<void> {
  const statements: BatchItem<"sqlite">[] = [
    db
      .insert(webhookAttempts)
      .values({ deliveryId: target.deliveryId, orgId, ...attempt })
      .onConflictDoNothing(),
    db
      .update(webhookDeliveries)
      .set({ status, lastResponseStatus: attempt.responseStatus, lastError: attempt.error, updatedAt: attempt.attemptedAt })
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, target.deliveryId))),
  ];
  if (attempt.outcome === "disabled") {
    statements.push(
      db
        .update(webhookEndpoints)
        .set({ enabled: false, disabledReason: "The receiver answered 410 Gone.", updatedAt: attempt.attemptedAt })
        .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, target.endpointId))),
    );
  }
  await runBatch(db, statements);
}

/** Marks a still-pending delivery failed (dead-lettered, or its endpoint disabled); a delivered one stays delivered. */
export async function failPendingDelivery(db: Database, orgId: string, deliveryId: string, at: string, error?: string): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: "failed", updatedAt: at, ...(error === undefined ? {} : { lastError: error }) })
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "pending")));
}

/**
 * Puts a delivery back to pending for a manual redelivery, owing the queue its message until
 * `markRedeliveriesSent`; its attempts so far are kept.
 */
export async function reopenDelivery(db: Database, orgId: string, endpointId: string, deliveryId: string, at: string): Promise<boolean> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: "pending", updatedAt: at, redeliverRequestedAt: at })
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, deliveryId)))
    .returning({ id: webhookDeliveries.id });
  return row !== undefined;
}

/** The queue accepted these redeliveries' messages. */
export async function markRedeliveriesSent(db: Database, ids: string[]): Promise<void> {
  await runBatch(
    db,
    inChunks(ids, (part) => db.update(webhookDeliveries).set({ redeliverRequestedAt: null }).where(inArray(webhookDeliveries.id, part))),
  );
}

/** Every organization's redeliveries the queue never accepted, asked for before `before` (system job: not per org). */
export async function listUnsentRedeliveries(db: Database, before: string, limit: number) {
  return db
    .select({ id: webhookDeliveries.id, orgId: webhookDeliveries.orgId })
    .from(webhookDeliveries)
    .where(lt(webhookDeliveries.redeliverRequestedAt, before))
    .orderBy(webhookDeliveries.redeliverRequestedAt)
    .limit(limit);
}

/** An endpoint's deliveries (or the one named), newest first, each with its attempts. */
export async function listDeliveries(db: Database, orgId: string, endpointId: string, limit: number, deliveryId?: string) {
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.orgId, orgId),
        eq(webhookDeliveries.endpointId, endpointId),
        deliveryId === undefined ? undefined : eq(webhookDeliveries.id, deliveryId),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(sql`rowid`))
    .limit(limit);
  if (deliveries.length === 0) return [];
  const attempts = (
    await Promise.all(
      inChunks(
        deliveries.map((d) => d.id),
        (ids) =>
          db
            .select()
            .from(webhookAttempts)
            .where(and(eq(webhookAttempts.orgId, orgId), inArray(webhookAttempts.deliveryId, ids)))
            .orderBy(webhookAttempts.attempt),
      ),
    )
  ).flat();
  return deliveries.map((delivery) => ({ ...delivery, attempts: attempts.filter((a) => a.deliveryId === delivery.id) }));
}
