import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";

/** The events partners can subscribe to (SPEC §6). */
export const EVENT_NAMES = [
  "morning_briefing.ready",
  "deal.stip_alert",
  "inventory.aged_alert",
  "lender.environment_change",
  "compliance.hold_triggered",
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
 * per event go in one D1 batch (atomic), then the events are handed to the webhook queue. Every
 * source of an event calls this, so no event is raised without its change or lost after it.
 *
 * TODO(events issue): the outbox table, the queue send and the sweeper. Until they exist the
 * change is written and the events go nowhere.
 */
export async function commitWithEvents(
  env: Pick<Env, "WEBHOOKS">,
  db: Database,
  statements: BatchItem<"sqlite">[],
  events: DomainEvent[],
  _now: Date,
): Promise<void> {
  void env;
  void events;
  if (statements.length > 0) await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
}
