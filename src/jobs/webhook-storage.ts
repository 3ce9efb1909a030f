/**
 * How a request or a queue message runs its work on an organization's webhooks group
 * (./webhook-requests.ts): one call to the organization's storage object, which holds it.
 */
import { orgStore } from "../durable-objects/org-storage-routing";
import type { WebhookAnswer, WebhookArgs, WebhookOp } from "./webhook-requests";

/** One request's work on the organization's webhooks group. */
export type WebhookStorage = <Op extends WebhookOp>(op: Op, args: WebhookArgs<Op>) => Promise<WebhookAnswer<Op>>;

/** The organization's webhooks group, in its object: one call per request. */
export function webhookStorage(env: Pick<Env, "ORG_STORE">, orgId: string): WebhookStorage {
  // An endpoint's secret crosses as its ciphertext; RPC's types cannot prove a JSON column serializable: it is.
  return (op, args) => orgStore(env, orgId).webhooks(orgId, op, args) as Promise<WebhookAnswer<typeof op>>;
}
