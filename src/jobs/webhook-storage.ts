/**
 * Where a request runs its work on an organization's webhooks group (./webhook-requests.ts): D1,
 * or the organization's object, one call (docs/scaling.md).
 */
import type { Database } from "../db/client";
import { d1WebhookStore } from "../db/queries/webhooks";
import type { OrgStoragePlace } from "../db/schema";
import { onOrgStorage, orgStore } from "../durable-objects/org-storage-routing";
import { runWebhookRequest, type WebhookAnswer, type WebhookArgs, type WebhookOp } from "./webhook-requests";

/** One request's work on the organization's webhooks group, run where it is. */
export type WebhookStorage = <Op extends WebhookOp>(op: Op, args: WebhookArgs<Op>) => Promise<WebhookAnswer<Op>>;

type ObjectCall<T> = Parameters<typeof onOrgStorage<T>>[4]["inObject"];

const READS: ReadonlySet<WebhookOp> = new Set(["list", "get", "deliveries"]);

/**
 * Where a request runs the organization's webhooks: `storage` is the flag read with the credential
 * (or at the primary, by the consumer). One call: D1 (its writes fenced), or the object
 * (`onOrgStorage`: a read during a move is D1's, a write waits for the flip).
 */
export function webhookStorage(
  env: Pick<Env, "DB" | "ORG_STORE" | "WEBHOOKS">,
  db: Database,
  orgId: string,
  storage: OrgStoragePlace,
): WebhookStorage {
  return (op, args) =>
    onOrgStorage(env, orgId, storage, READS.has(op) ? "read" : "write", {
      inD1: () => runWebhookRequest({ env, store: d1WebhookStore(db, [orgId]), orgId }, op, args),
      // An endpoint's secret crosses as its ciphertext, as D1 holds it; RPC's types cannot prove a JSON column serializable: it is.
      inObject: () => orgStore(env, orgId).webhooks(orgId, op, args) as ReturnType<ObjectCall<WebhookAnswer<typeof op>>>,
    });
}
