/**
 * How a request reaches its organization's data (docs/scaling.md#how-a-request-finds-its-organizations-storage):
 * the organization's storage object, found by its id, one call per request.
 */
import type { Background } from "../lib/background";
import { describeError, logEvent } from "../lib/log";

/** The organization's storage object: the id is a function of the organization's id, no lookup. */
export const orgStore = (env: Pick<Env, "ORG_STORE">, orgId: string) => env.ORG_STORE.get(env.ORG_STORE.idFromName(orgId));

/**
 * Tells the organization's object that the events it recorded are in D1 now (the caller passed
 * them to `commitWithEvents` as `recorded`), so its alarm does not relay them
 * (docs/scaling.md#an-object-write-and-its-events). After the answer (`background`): the answer
 * waits for no second call to the object. A failure is only logged: the alarm relays them again,
 * which records and sends nothing twice.
 */
export function confirmRelayed(env: Pick<Env, "ORG_STORE">, orgId: string, events: readonly { id: string }[], background: Background): void {
  if (events.length === 0) return;
  background(
    orgStore(env, orgId)
      .markRelayed(
        orgId,
        events.map((e) => e.id),
      )
      .catch((error) => logEvent("warn", { event: "org_outbox_mark_failed", org_id: orgId, events: events.length, ...describeError(error) })),
  );
}
