/**
 * The webhooks group's requests (docs/scaling.md#the-groups-in-the-object-and-their-readers),
 * each run whole in the organization's object in one call (`OrganizationStore.webhooks`), on its
 * own SQLite. Here, in src/jobs, because the object reaches only db and jobs; the routes and the
 * consumer reach it through ./webhook-storage.ts.
 */
import * as q from "../db/queries/webhooks";
import { enqueueRedeliveries } from "../events/messages";

interface Where {
  env: Pick<Env, "WEBHOOKS">;
  store: q.WebhookStore;
  orgId: string;
}

/** Why a redelivery or a sample was not queued: the endpoint or the delivery is not the organization's, or the endpoint is off. */
type Refusal = { refused: "no_endpoint" | "endpoint_disabled" | "no_delivery" };

async function enabledEndpoint(w: Where, endpointId: string): Promise<Refusal | null> {
  const endpoint = await q.findWebhookEndpoint(w.store.db, w.orgId, endpointId);
  if (endpoint === null) return { refused: "no_endpoint" };
  return endpoint.enabled ? null : { refused: "endpoint_disabled" };
}

/** The delivery just queued, sent first (a refused send is the sweeper's to retry), then read with its attempts. */
async function queued(w: Where, endpointId: string, deliveryId: string) {
  await enqueueRedeliveries(w.env, w.store, [{ id: deliveryId, orgId: w.orgId }]);
  const [delivery] = await q.listDeliveries(w.store.db, w.orgId, endpointId, { limit: 1, deliveryId });
  return { delivery };
}

const REQUESTS = {
  create: (w: Where, a: { row: Omit<q.NewEndpointRow, "orgId">; cap: number }) => q.insertWebhookEndpointUnderCap(w.store, w.orgId, a.row, a.cap),
  list: (w: Where) => q.listWebhookEndpoints(w.store.db, w.orgId),
  get: (w: Where, a: { id: string }) => q.findWebhookEndpoint(w.store.db, w.orgId, a.id),
  update: (w: Where, a: { id: string; changes: q.EndpointChanges; at: string }) => q.updateWebhookEndpoint(w.store, w.orgId, a.id, a.changes, a.at),
  rotate: (w: Where, a: { id: string; rotation: { secretCiphertext: string; previousExpiresAt: string }; at: string }) =>
    q.rotateWebhookSecret(w.store, w.orgId, a.id, a.rotation, a.at),
  delete: (w: Where, a: { id: string }) => q.deleteWebhookEndpoint(w.store, w.orgId, a.id),

  /** A page of an endpoint's deliveries: whether the endpoint and the cursor are the organization's, and the rows. */
  deliveries: async (w: Where, a: { endpointId: string; limit: number; startingAfter?: string }) => {
    if ((await q.findWebhookEndpoint(w.store.db, w.orgId, a.endpointId)) === null) return { endpoint: false as const };
    const after = a.startingAfter === undefined ? undefined : await q.findDeliveryCursor(w.store.db, w.orgId, a.endpointId, a.startingAfter);
    if (after === null) return { endpoint: true as const, cursor: false as const };
    return {
      endpoint: true as const,
      cursor: true as const,
      rows: await q.listDeliveries(w.store.db, w.orgId, a.endpointId, { limit: a.limit, after }),
    };
  },
  deliveryCounts: (w: Where) => q.countDeliveriesByStatus(w.store.db, w.orgId),
  redeliver: async (w: Where, a: { endpointId: string; deliveryId: string; at: string }) => {
    const refusal = await enabledEndpoint(w, a.endpointId);
    if (refusal) return refusal;
    if (!(await q.reopenDelivery(w.store, w.orgId, a.endpointId, a.deliveryId, a.at))) return { refused: "no_delivery" as const };
    return queued(w, a.endpointId, a.deliveryId);
  },
  sample: async (w: Where, a: { sample: Parameters<typeof q.insertSampleDelivery>[2]; at: string }) => {
    const refusal = await enabledEndpoint(w, a.sample.endpointId);
    if (refusal) return refusal;
    await q.insertSampleDelivery(w.store, w.orgId, a.sample, a.at);
    return queued(w, a.sample.endpointId, a.sample.deliveryId);
  },

  /**
   * The fan-out of events D1's outbox holds: the events with a subscriber kept here (deliveries
   * refer to them), a delivery per subscribed enabled endpoint (a repeated fan-out adds none), and
   * the deliveries not attempted yet, to be queued.
   */
  fanOut: async (w: Where, a: { events: q.EventRow[]; at: string }) => {
    const endpoints = (await q.listWebhookEndpoints(w.store.db, w.orgId)).filter((e) => e.enabled);
    const events = a.events.map((row) => ({
      orgId: w.orgId,
      eventId: row.id,
      event: row.event,
      endpointIds: endpoints.filter((e) => e.events.includes(row.event)).map((e) => e.id),
      row,
    }));
    const kept = w.store.keepEvents(
      events.filter((e) => e.endpointIds.length > 0).map((e) => e.row),
      a.at,
    );
    return q.createDeliveries(w.store, events, a.at, kept);
  },
  /** A pending delivery with its endpoint and event, and its attempt claimed; null when there is nothing to send (a disabled endpoint fails it). */
  claim: async (w: Where, a: { deliveryId: string; at: string }) => {
    const found = await q.findDelivery(w.store.db, w.orgId, a.deliveryId);
    if (found === null || found.delivery.status !== "pending") return null;
    if (!found.endpoint.enabled) {
      await q.failPendingDelivery(w.store, w.orgId, a.deliveryId, a.at, "The endpoint is disabled.");
      return null;
    }
    const attempt = await q.claimDeliveryAttempt(w.store, w.orgId, a.deliveryId);
    return attempt === null ? null : { ...found, attempt };
  },
  record: (w: Where, a: { target: { deliveryId: string; endpointId: string }; attempt: q.AttemptRecord; status: q.WebhookDeliveryRow["status"] }) =>
    q.recordAttempt(w.store, w.orgId, a.target, a.attempt, a.status),
  fail: (w: Where, a: { deliveryId: string; at: string }) => q.failPendingDelivery(w.store, w.orgId, a.deliveryId, a.at),
};

export type WebhookOp = keyof typeof REQUESTS;
export type WebhookArgs<Op extends WebhookOp> = Parameters<(typeof REQUESTS)[Op]>[1];
export type WebhookAnswer<Op extends WebhookOp> = Awaited<ReturnType<(typeof REQUESTS)[Op]>>;

/** Runs one request of the group on `w.store`, the object's own SQLite. */
export function runWebhookRequest<Op extends WebhookOp>(w: Where, op: Op, args: WebhookArgs<Op>): Promise<WebhookAnswer<Op>> {
  return (REQUESTS[op] as (w: Where, args: WebhookArgs<Op>) => Promise<WebhookAnswer<Op>>)(w, args);
}
