import { runBatch, type Statement } from "../db/batch";
import type { Database } from "../db/client";
import { insertOutboxRows, type RecordedEvent, relayOutboxRows } from "../db/queries/events";
import { newId } from "../lib/ids";
import { enqueueEvents } from "./messages";

/** The events partners can subscribe to (docs/webhooks.md#events). */
export const EVENT_NAMES = [
  "morning_briefing.ready",
  "deal.stip_alert",
  "inventory.aged_alert",
  "lender.environment_change",
  "compliance.hold_triggered",
  "store.feed_stale",
  "store.feed_resumed",
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** An event as its source raises it; the envelope (id, timestamp) is added when it is recorded. */
export interface DomainEvent {
  event: EventName;
  orgId: string;
  storeId: string | null;
  data: Record<string, unknown>;
}

/**
 * Writes a change and the events it raises together: the change's statements and one outbox row
 * per event go in one D1 batch (atomic), then the events are handed to the webhook queue; that is
 * all the caller waits for (the fan-out marks the row, src/jobs/webhooks-consumer.ts). Every source of an
 * event calls this, so no event is raised without its change or lost after it: if the queue send
 * fails, the outbox sweeper (src/jobs/sweep-outbox.ts) sends it later.
 * `recorded` are events an organization's storage object already recorded with its own change
 * (docs/scaling.md#an-object-write-and-its-events): relayed in the same batch under their ids, and
 * sent only if this batch inserted them, so a relay run twice records and sends each once.
 * Returns the new events' ids (the envelope `id`) and the change's statement results, each in
 * the order given.
 */
export async function commitWithEvents(
  env: Pick<Env, "WEBHOOKS">,
  db: Database,
  statements: Statement[],
  events: DomainEvent[],
  now: Date,
  recorded: readonly RecordedEvent[] = [],
): Promise<{ eventIds: string[]; results: unknown[] }> {
  const occurredAt = now.toISOString();
  const rows = events.map((e) => ({ id: newId("evt"), orgId: e.orgId, storeId: e.storeId, event: e.event, data: e.data, occurredAt }));
  const inserts = insertOutboxRows(db, rows);
  const results = await runBatch(db, [...statements, ...inserts, ...relayOutboxRows(db, recorded)]);
  // An event D1 held already was sent by the relay that inserted it (or is owed by the sweeper).
  const inserted = new Set(results.slice(statements.length + inserts.length).flatMap((r) => (r as { id: string }[]).map((row) => row.id)));
  await enqueueEvents(env, [...rows, ...recorded.filter((e) => inserted.has(e.id))]);
  return { eventIds: rows.map((r) => r.id), results: results.slice(0, statements.length) };
}
