/** Webhook endpoints, their deliveries and attempts (docs/webhooks.md); the outbox they are fed from is in ./events.ts. */
import { and, count, desc, eq, getTableColumns, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { newId } from "../../lib/ids";
import { inChunks, runBatch } from "../batch";
import type { Database } from "../client";
import { insertRowWhere } from "../guarded";
import { eventOutbox, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../schema";
import { type EventRef, isOneOfEvents, markOutboxFannedOut } from "./events";

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
  const ownCount = db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId));
  const [created] = await insertRowWhere(db, webhookEndpoints, { ...row, orgId }, sql`(${ownCount}) < ${cap}`).returning();
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

/**
 * The new secret signs from now on; the one it replaces moves to `previous_secret_ciphertext` (the
 * right-hand sides read the row before the update) and signs beside it until `previousExpiresAt`.
 * A secret that was still in a previous overlap is dropped.
 */
export async function rotateWebhookSecret(
  db: Database,
  orgId: string,
  id: string,
  rotation: { secretCiphertext: string; previousExpiresAt: string },
  updatedAt: string,
): Promise<WebhookEndpointRow | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      previousSecretCiphertext: sql`${webhookEndpoints.secretCiphertext}`,
      previousSecretExpiresAt: rotation.previousExpiresAt,
      secretCiphertext: rotation.secretCiphertext,
      updatedAt,
    })
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

/** An event found for its fan-out, with its organization's enabled endpoints subscribed to it. */
export interface EventToFanOut extends EventRef {
  event: string;
  endpointIds: string[];
}

/**
 * The fan-out's one read: each event with its organization's enabled endpoints subscribed to it,
 * one statement for the whole queue batch. Events not in the outbox (purged) are left out.
 */
export async function findEventSubscribers(db: Database, events: readonly EventRef[]): Promise<EventToFanOut[]> {
  const reads = inChunks(events, (part) =>
    db
      .select({ orgId: eventOutbox.orgId, eventId: eventOutbox.id, event: eventOutbox.event, endpointId: webhookEndpoints.id })
      .from(eventOutbox)
      .leftJoin(
        webhookEndpoints,
        and(
          eq(webhookEndpoints.orgId, eventOutbox.orgId),
          eq(webhookEndpoints.enabled, true),
          sql`exists (select 1 from json_each(${webhookEndpoints.events}) where value = ${eventOutbox.event})`,
        ),
      )
      .where(isOneOfEvents(eventOutbox.orgId, eventOutbox.id, part)),
  );
  const found = new Map<string, EventToFanOut>();
  // Each part on its own (one for a queue batch): in a D1 batch, rows come back as objects, which
  // keep only one of the two columns named `id`.
  for (const row of (await Promise.all(reads)).flat()) {
    const event = found.get(row.eventId) ?? { orgId: row.orgId, eventId: row.eventId, event: row.event, endpointIds: [] };
    if (row.endpointId !== null) event.endpointIds.push(row.endpointId);
    found.set(row.eventId, event);
  }
  return [...found.values()];
}

// --- deliveries ------------------------------------------------------------------------------

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/**
 * The fan-out's one write, one batch for the whole queue batch: a pending delivery per (endpoint,
 * event) (a repeated fan-out adds nothing) and the events marked fanned out
 * (`event_outbox.fanned_out_at`). Returns the events' deliveries not attempted yet, to be queued.
 */
export async function createDeliveries(db: Database, events: readonly EventToFanOut[], at: string) {
  const rows = events.flatMap(({ orgId, eventId, event, endpointIds }) =>
    endpointIds.map((endpointId) => ({ id: newId("dlv"), orgId, endpointId, eventId, event, createdAt: at, updatedAt: at })),
  );
  const unattempted = inChunks(events, (part) =>
    db
      .select({ id: webhookDeliveries.id, orgId: webhookDeliveries.orgId })
      .from(webhookDeliveries)
      .where(
        and(
          isOneOfEvents(webhookDeliveries.orgId, webhookDeliveries.eventId, part),
          eq(webhookDeliveries.status, "pending"),
          eq(webhookDeliveries.attemptCount, 0),
        ),
      ),
  );
  const results = await runBatch(db, [
    ...markOutboxFannedOut(db, events, at),
    ...inChunks(rows, (part) => db.insert(webhookDeliveries).values(part).onConflictDoNothing()),
    ...unattempted,
  ]);
  return results.slice(results.length - unattempted.length).flat() as Awaited<(typeof unattempted)[number]>;
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
  requestBody: string;
  responseBody: string | null;
  responseBytes: number | null;
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

/**
 * A sample event for one endpoint (`POST /api/v1/webhooks/{id}/trigger`): its outbox row and its
 * one delivery in one batch. The row is marked fanned out because writing that delivery is its
 * fan-out (only this endpoint gets it); the delivery owes the queue its message, as a manual redelivery does, so the
 * outbox sweeper sends it if the queue refuses it now.
 */
export async function insertSampleDelivery(
  db: Database,
  orgId: string,
  sample: { eventId: string; deliveryId: string; endpointId: string; event: string; data: Record<string, unknown> },
  at: string,
): Promise<void> {
  await db.batch([
    db
      .insert(eventOutbox)
      .values({ id: sample.eventId, orgId, storeId: null, event: sample.event, data: sample.data, occurredAt: at, fannedOutAt: at, sample: true }),
    db.insert(webhookDeliveries).values({
      id: sample.deliveryId,
      orgId,
      endpointId: sample.endpointId,
      eventId: sample.eventId,
      event: sample.event,
      createdAt: at,
      updatedAt: at,
      redeliverRequestedAt: at,
    }),
  ]);
}

/** Clears the request and response bodies of attempts made before `before` (system job: every organization). */
export async function purgeAttemptBodies(db: Database, before: string): Promise<number> {
  const result = await db
    .update(webhookAttempts)
    .set({ requestBody: null, responseBody: null })
    .where(and(isNotNull(webhookAttempts.requestBody), lt(webhookAttempts.attemptedAt, before)));
  return result.meta.changes;
}

/** Where a page of deliveries starts: after this delivery of the endpoint (null when it is not one of them). */
export async function findDeliveryCursor(db: Database, orgId: string, endpointId: string, deliveryId: string) {
  const [row] = await db
    .select({ createdAt: webhookDeliveries.createdAt, rowid: sql<number>`rowid` })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, deliveryId)))
    .limit(1);
  return row ?? null;
}

export type DeliveryCursor = NonNullable<Awaited<ReturnType<typeof findDeliveryCursor>>>;

/**
 * An endpoint's deliveries (or the one named), newest first (created_at, then rowid: a total
 * order, so pages never skip or repeat one), each with its attempts and whether it is a sample.
 */
export async function listDeliveries(
  db: Database,
  orgId: string,
  endpointId: string,
  page: { limit: number; after?: DeliveryCursor; deliveryId?: string },
) {
  const deliveries = await db
    .select({ ...getTableColumns(webhookDeliveries), sample: eventOutbox.sample })
    .from(webhookDeliveries)
    .innerJoin(eventOutbox, and(eq(eventOutbox.id, webhookDeliveries.eventId), eq(eventOutbox.orgId, webhookDeliveries.orgId)))
    .where(
      and(
        eq(webhookDeliveries.orgId, orgId),
        eq(webhookDeliveries.endpointId, endpointId),
        page.deliveryId === undefined ? undefined : eq(webhookDeliveries.id, page.deliveryId),
        page.after === undefined
          ? undefined
          : sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries}.rowid) < (${page.after.createdAt}, ${page.after.rowid})`,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(sql`${webhookDeliveries}.rowid`))
    .limit(page.limit);
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
