/**
 * The relay of an organization's storage object (docs/scaling.md#an-object-write-and-its-events):
 * events the object recorded with its writes, that no request relayed (its D1 batch failed, its
 * isolate died), put in D1's outbox under their ids and sent, from the object's alarm. The object
 * then marks them relayed.
 */
import { getDb } from "../db/client";
import type { RecordedEvent } from "../db/queries/events";
import { commitWithEvents } from "../events/emit";

export async function relayOrgEvents(env: Pick<Env, "DB" | "WEBHOOKS">, events: readonly RecordedEvent[], now: Date): Promise<void> {
  await commitWithEvents(env, getDb(env.DB), [], [], now, events);
}
