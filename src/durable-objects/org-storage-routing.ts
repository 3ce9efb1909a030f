/**
 * Which storage serves a request for an organization's data (docs/scaling.md#how-a-request-finds-its-organizations-storage):
 * the flag read with the credential says where to go first; a request that finds its data moved
 * (D1's fence, or an object not serving) reads the flag again at the primary and goes there.
 */
import { getDb } from "../db/client";
import { isStorageMovedError, readOrgStorage } from "../db/queries/org-storage";
import type { OrgStoragePlace } from "../db/schema";
import type { Background } from "../lib/background";
import { DomainError } from "../lib/domain-error";
import { describeError, logEvent } from "../lib/log";
import type { NOT_SERVING } from "./org-storage";

/** The organization's storage object: the id is a function of the organization's id, no lookup. */
export const orgStore = (env: Pick<Env, "ORG_STORE">, orgId: string) => env.ORG_STORE.get(env.ORG_STORE.idFromName(orgId));

/** How long a write waits for a move to finish before it is refused with Retry-After (the move's write pause). */
const WRITE_PAUSE_LIMIT_MS = 10_000;
const PAUSE_POLL_MS = 100;

const notServing = (result: unknown): result is typeof NOT_SERVING =>
  typeof result === "object" && result !== null && "notServing" in result && result.notServing === true;

const movingRefusal = () =>
  new DomainError("upstream_timeout", "This organization's data is being moved to new storage; send the request again in a few seconds.", {
    retryAfterSeconds: 5,
  });

/**
 * Runs one request's work where the organization's data is. `known` is the flag read with the
 * credential. A read during a move is served by D1 (the copy the move reads from, unchanged while
 * writes wait); a write, and a read during an undo, wait for the flip (polling the flag), at most
 * WRITE_PAUSE_LIMIT_MS. `inD1` throws D1's fence
 * error when the data has left (unlessStorageInD1); `inObject` gets the object's NOT_SERVING.
 */
export async function onOrgStorage<T>(
  env: Pick<Env, "DB">,
  orgId: string,
  known: OrgStoragePlace,
  kind: "read" | "write",
  run: { inD1(): Promise<T>; inObject(): Promise<T | typeof NOT_SERVING> },
): Promise<T> {
  const deadline = Date.now() + WRITE_PAUSE_LIMIT_MS;
  let place = known;
  for (;;) {
    if (place === "object") {
      const result = await run.inObject();
      if (!notServing(result)) return result;
    } else if (place === "d1" || (place === "moving" && kind === "read")) {
      try {
        return await run.inD1();
      } catch (error) {
        if (!isStorageMovedError(error)) throw error;
      }
    } else await new Promise((resolve) => setTimeout(resolve, PAUSE_POLL_MS));
    if (Date.now() > deadline) throw movingRefusal();
    // At the primary: a replica a moment behind would still say where the data was.
    place = (await readOrgStorage(getDb(env.DB), orgId)) ?? "d1";
  }
}

/** A read run where the organization's data is: D1, or its object (`onOrgStorage`). */
export type ReadWhereStored = <T>(inD1: () => Promise<T>, inObject: () => Promise<T | typeof NOT_SERVING>) => Promise<T>;

/**
 * How a request reads an organization whose flag (read with the credential) is not `d1`: one call
 * to its storage object, or D1 during a move and after an undo. Undefined for an organization in
 * D1, whose readers read D1 as before (often in one batch with their other reads).
 */
export function readWhereStored(env: Pick<Env, "DB">, orgId: string, storage: OrgStoragePlace): ReadWhereStored | undefined {
  if (storage === "d1") return undefined;
  return (inD1, inObject) => onOrgStorage(env, orgId, storage, "read", { inD1, inObject });
}

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
