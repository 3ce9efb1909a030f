/**
 * Webhook endpoints, their deliveries and attempts (docs/webhooks.md); the outbox they are fed from is in ./events.ts.
 * The group lives in the organization's object (docs/scaling.md): each query runs on its SQLite
 * (`WebhookStore`), built with D1's schema, whose tables carry the same names and columns.
 */
import { and, count, desc, eq, getTableColumns, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { newId } from "../../lib/ids";
import { inChunks } from "../batch";
import type { Database, SqliteReader } from "../client";
import { insertRowWhere } from "../guarded";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../org-schema";
import { eventOutbox } from "../schema";
import { type EventRef, isOneOfEvents, markOutboxFannedOut, type OutboxRow } from "./events";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type NewEndpointRow = typeof webhookEndpoints.$inferInsert;

/**
 * An organization's webhooks group in its object: a client to read it, and how a request's writes
 * run together there (one transaction of the object's SQLite), each statement's rows in order.
 * `keepEvents` are the statements writing the events its deliveries refer to, fanned out already:
 * a sample's, and those of D1's outbox it fans out.
 */
export interface WebhookStore {
  db: SqliteReader;
  write(statements: BatchItem<"sqlite">[]): Promise<unknown[][]>;
  keepEvents(events: readonly EventRow[], at: string): BatchItem<"sqlite">[];
}

/** An event as the fan-out carries it to the object: the row D1's outbox holds. */
export type EventRow = Omit<OutboxRow, "fannedOutAt">;

// The statements are built on the store's client; the builders' types are D1's, the SQL the same.
const builder = (store: WebhookStore) => store.db as Database;

/**
 * Inserts the endpoint only while the organization has fewer than `cap`: the count and the
 * insert are one statement (`INSERT … SELECT … WHERE (SELECT count(*) …) < cap`), so simultaneous
 * creates cannot all see room. Null when the cap is reached.
 */
export async function insertWebhookEndpointUnderCap(
  store: WebhookStore,
  orgId: string,
  row: Omit<NewEndpointRow, "orgId">,
  cap: number,
): Promise<WebhookEndpointRow | null> {
  const db = builder(store);
  const ownCount = db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId));
  const [[created]] = (await store.write([
    insertRowWhere(db, webhookEndpoints, { ...row, orgId }, sql`(${ownCount}) < ${cap}`).returning(),
  ])) as WebhookEndpointRow[][];
  return created ?? null;
}

export async function listWebhookEndpoints(db: SqliteReader, orgId: string) {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId)).orderBy(desc(webhookEndpoints.createdAt), desc(sql`rowid`));
}

export async function findWebhookEndpoint(db: SqliteReader, orgId: string, id: string): Promise<WebhookEndpointRow | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .limit(1);
  return row ?? null;
}

export type EndpointChanges = Partial<Pick<WebhookEndpointRow, "url" | "description" | "events" | "enabled" | "disabledReason">>;

export async function updateWebhookEndpoint(
  store: WebhookStore,
  orgId: string,
  id: string,
  changes: EndpointChanges,
  updatedAt: string,
): Promise<WebhookEndpointRow | null> {
  const [[row]] = (await store.write([
    builder(store)
      .update(webhookEndpoints)
      .set({ ...changes, updatedAt })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
      .returning(),
  ])) as WebhookEndpointRow[][];
  return row ?? null;
}

/**
 * The new secret signs from now on; the one it replaces moves to `previous_secret_ciphertext` (the
 * right-hand sides read the row before the update) and signs beside it until `previousExpiresAt`.
 * A secret that was still in a previous overlap is dropped.
 */
export async function rotateWebhookSecret(
  store: WebhookStore,
  orgId: string,
  id: string,
  rotation: { secretCiphertext: string; previousExpiresAt: string },
  updatedAt: string,
): Promise<WebhookEndpointRow | null> {
  const [[row]] = (await store.write([
    builder(store)
      .update(webhookEndpoints)
      .set({
        previousSecretCiphertext: sql`${webhookEndpoints.secretCiphertext}`,
        previousSecretExpiresAt: rotation.previousExpiresAt,
        secretCiphertext: rotation.secretCiphertext,
        updatedAt,
      })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
      .returning(),
  ])) as WebhookEndpointRow[][];
  return row ?? null;
}

/** Deletes the endpoint with its deliveries and their attempts. False when the org has no such endpoint. */
export async function deleteWebhookEndpoint(store: WebhookStore, orgId: string, id: string): Promise<boolean> {
  const db = builder(store);
  const ownDeliveries = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, id)));
  const [, , deleted] = await store.write([
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

// --- deliveries ------------------------------------------------------------------------------

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/**
 * The fan-out's one write, one batch for the whole queue batch: a pending delivery per (endpoint,
 * event) (a repeated fan-out adds nothing) and the events marked fanned out
 * (`event_outbox.fanned_out_at`). Returns the events' deliveries not attempted yet, to be queued.
 */
export async function createDeliveries(store: WebhookStore, events: readonly EventToFanOut[], at: string, first: BatchItem<"sqlite">[] = []) {
  const db = builder(store);
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
  const results = await store.write([
    ...first,
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
export async function claimDeliveryAttempt(store: WebhookStore, orgId: string, deliveryId: string): Promise<number | null> {
  const [[row]] = (await store.write([
    builder(store)
      .update(webhookDeliveries)
      .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1` })
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "pending")))
      .returning({ attempt: webhookDeliveries.attemptCount }),
  ])) as { attempt: number }[][];
  return row?.attempt ?? null;
}

export async function findDelivery(db: SqliteReader, orgId: string, deliveryId: string) {
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
  store: WebhookStore,
  orgId: string,
  target: { deliveryId: string; endpointId: string },
  attempt: AttemptRecord,
  status: WebhookDeliveryRow["status"],
): Promise<void> {
  const db = builder(store);
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
  await store.write(statements);
}

/** Marks a still-pending delivery failed (dead-lettered, or its endpoint disabled); a delivered one stays delivered. */
export async function failPendingDelivery(store: WebhookStore, orgId: string, deliveryId: string, at: string, error?: string): Promise<void> {
  await store.write([
    builder(store)
      .update(webhookDeliveries)
      .set({ status: "failed", updatedAt: at, ...(error === undefined ? {} : { lastError: error }) })
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "pending"))),
  ]);
}

/**
 * Puts a delivery back to pending for a manual redelivery, owing the queue its message until
 * `markRedeliveriesSent`; its attempts so far are kept.
 */
export async function reopenDelivery(store: WebhookStore, orgId: string, endpointId: string, deliveryId: string, at: string): Promise<boolean> {
  const [[row]] = await store.write([
    builder(store)
      .update(webhookDeliveries)
      .set({ status: "pending", updatedAt: at, redeliverRequestedAt: at })
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, deliveryId)))
      .returning({ id: webhookDeliveries.id }),
  ]);
  return row !== undefined;
}

/** The queue accepted these redeliveries' messages. */
export async function markRedeliveriesSent(store: WebhookStore, ids: string[]): Promise<void> {
  const db = builder(store);
  await store.write(
    inChunks(ids, (part) => db.update(webhookDeliveries).set({ redeliverRequestedAt: null }).where(inArray(webhookDeliveries.id, part))),
  );
}

/**
 * The object's redeliveries and samples the queue never accepted, asked for before `before` (any,
 * without it), oldest first, with when they were asked for.
 */
export async function listUnsentRedeliveries(db: SqliteReader, find: { before?: string; limit: number }) {
  const { id, orgId, redeliverRequestedAt } = webhookDeliveries;
  return db
    .select({ id, orgId, requestedAt: sql<string>`${redeliverRequestedAt}` })
    .from(webhookDeliveries)
    .where(find.before === undefined ? isNotNull(redeliverRequestedAt) : lt(redeliverRequestedAt, find.before))
    .orderBy(redeliverRequestedAt)
    .limit(find.limit);
}

/**
 * A sample event for one endpoint (`POST /api/v1/webhooks/{id}/trigger`): its outbox row and its
 * one delivery in one batch. The row is marked fanned out because writing that delivery is its
 * fan-out (only this endpoint gets it); the delivery owes the queue its message, as a manual redelivery does, so the
 * outbox sweeper sends it if the queue refuses it now.
 */
export async function insertSampleDelivery(
  store: WebhookStore,
  orgId: string,
  sample: { eventId: string; deliveryId: string; endpointId: string; event: string; data: Record<string, unknown> },
  at: string,
): Promise<void> {
  await store.write([
    ...store.keepEvents([{ id: sample.eventId, orgId, storeId: null, event: sample.event, data: sample.data, occurredAt: at, sample: true }], at),
    builder(store).insert(webhookDeliveries).values({
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

/** The statement clearing the request and response bodies of attempts made before `before`, in the organization's object. */
export function attemptBodiesPurge(db: SqliteReader, before: string) {
  return (db as Database)
    .update(webhookAttempts)
    .set({ requestBody: null, responseBody: null })
    .where(and(isNotNull(webhookAttempts.requestBody), lt(webhookAttempts.attemptedAt, before)));
}

/** Where a page of deliveries starts: after this delivery of the endpoint (null when it is not one of them). */
export async function findDeliveryCursor(db: SqliteReader, orgId: string, endpointId: string, deliveryId: string) {
  const [row] = await db
    .select({ createdAt: webhookDeliveries.createdAt, rowid: sql<number>`rowid` })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, deliveryId)))
    .limit(1);
  return row ?? null;
}

export type DeliveryCursor = NonNullable<Awaited<ReturnType<typeof findDeliveryCursor>>>;

/** The organization's deliveries counted by status: whether any is still pending (the bench's and the soak's drain). */
export async function countDeliveriesByStatus(db: SqliteReader, orgId: string) {
  return await db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.orgId, orgId))
    .groupBy(webhookDeliveries.status);
}

/**
 * An endpoint's deliveries (or the one named), newest first (created_at, then rowid: a total
 * order, so pages never skip or repeat one), each with its attempts and whether it is a sample.
 */
export async function listDeliveries(
  db: SqliteReader,
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
