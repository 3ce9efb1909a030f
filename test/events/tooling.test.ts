import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { RESPONSE_PREVIEW_BYTES, WEBHOOK_BODY_RETENTION_DAYS } from "../../src/events/delivery";
import { commitWithEvents, EVENT_NAMES, type EventName } from "../../src/events/emit";
import { newId } from "../../src/lib/ids";
import type { WebhookDeliveryListSchema, WebhookDeliverySchema } from "../../src/routes/webhooks/webhooks.routes";
import { createEndpoint, eventually, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { objectSendsTo, rerunNight, runAlarmsThrough } from "../helpers/object-sql";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";
import { capturingQueue, consumeOne } from "../helpers/queue-driver";

const JSON_HEADERS = { "Content-Type": "application/json" };
const DAY_MS = 86_400_000;
afterEach(() => vi.useRealTimers());

type DeliveryPage = z.infer<typeof WebhookDeliveryListSchema>;
type Delivery = z.infer<typeof WebhookDeliverySchema>;

/** An organization whose primary store is not its first, a key, and an endpoint on the local receiver. */
async function setup(name: string, behaviour: Parameters<typeof receiverUrl>[0] = "ok", events: EventName[] = ["deal.stip_alert"]) {
  const org = await createOrg();
  const first = await createStore(org.id);
  const primary = await createStore(org.id, { isPrimary: true });
  const { key } = await createApiKey(org.id);
  const endpoint = await createEndpoint(key, { url: receiverUrl(behaviour, name), events });
  await tellReceiverSecret(name, endpoint.secret);
  return { org, first, primary, key, endpoint };
}

const trigger = (key: string, endpointId: string, body: unknown) =>
  call(`/api/v1/webhooks/${endpointId}/trigger`, { method: "POST", key, headers: JSON_HEADERS, body: JSON.stringify(body) });

const deliveriesPage = async (key: string, endpointId: string, query = "") =>
  (await call(`/api/v1/webhooks/${endpointId}/deliveries${query}`, { key })).json<DeliveryPage>();

/** Waits until every delivery of the endpoint has left `pending`. */
const settledDeliveries = (key: string, endpointId: string, count: number) =>
  eventually(async () => {
    const page = await deliveriesPage(key, endpointId);
    return page.count === count && page.deliveries.every((d) => d.status !== "pending") && page.deliveries;
  });

async function documentedExample(event: EventName) {
  const doc = await (await call("/api/openapi.json")).json<{
    webhooks: Record<string, { post: { requestBody: { content: { "application/json": { example: { data: unknown } } } } } }>;
  }>();
  return doc.webhooks[event].post.requestBody.content["application/json"].example.data;
}

describe("POST /api/v1/webhooks/{id}/trigger: a sample of any event type", () => {
  it("sends a signed sample through the queue to this endpoint only, with the documented example as data, and logs it", async () => {
    const { org, primary, key, endpoint } = await setup("trigger-stip");
    // Another endpoint of the organization, subscribed to the same event, must not get the sample.
    const bystander = await createEndpoint(key, { url: receiverUrl("ok", "trigger-bystander"), events: ["deal.stip_alert"] });

    const res = await trigger(key, endpoint.id, { event: "deal.stip_alert" });
    expect(res.status).toBe(202);
    const queued = await res.json<Delivery>();
    expect(queued).toMatchObject({ event: "deal.stip_alert", sample: true, status: "pending", attempts: [] });

    const [received] = await eventually(async () => (await receivedBy("trigger-stip")).length > 0 && receivedBy("trigger-stip"));
    expect(received.verified).toBe(true);
    expect(JSON.parse(received.body)).toEqual({
      id: queued.event_id,
      event: "deal.stip_alert",
      org_id: org.id,
      store_id: primary.id,
      timestamp: expect.stringMatching(/Z$/),
      sample: true,
      data: await documentedExample("deal.stip_alert"),
    });

    const [logged] = await settledDeliveries(key, endpoint.id, 1);
    expect(logged).toMatchObject({ id: queued.id, sample: true, status: "delivered" });
    // Its event is kept in the organization's object, fanned out (to this endpoint only), and never reaches D1's outbox.
    expect(await rowsInObject(org.id, "SELECT id, sample, fanned_out_at IS NOT NULL AS fanned_out FROM event_outbox")).toEqual([
      { id: queued.event_id, sample: 1, fanned_out: 1 },
    ]);
    expect(await listOutboxEvents(org.id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(await receivedBy("trigger-bystander")).toEqual([]);
    expect((await deliveriesPage(key, bystander.id)).count).toBe(0);
  });

  it("sends any event type, subscribed or not, each with its documented example", async () => {
    const { key, endpoint } = await setup("trigger-all", "ok", ["deal.stip_alert"]);
    for (const event of EVENT_NAMES) expect((await trigger(key, endpoint.id, { event })).status).toBe(202);
    const received = await eventually(async () => {
      const log = await receivedBy("trigger-all");
      return log.length === EVENT_NAMES.length && log;
    });
    const byEvent = Object.fromEntries(received.map((r) => [JSON.parse(r.body).event, JSON.parse(r.body)]));
    for (const event of EVENT_NAMES) expect(byEvent[event], event).toMatchObject({ sample: true, data: await documentedExample(event) });
  });

  it("refuses an unknown event, the ping's name, an unknown field and a disabled endpoint with 422; another organization's endpoint with 404", async () => {
    const { key, endpoint } = await setup("trigger-refused");
    for (const body of [{ event: "deal.created" }, { event: "webhook.test" }, {}, { event: "deal.stip_alert", store_id: "sto_x" }]) {
      const res = await trigger(key, endpoint.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(await res.json()).toMatchObject({ error: "validation_error" });
    }
    const other = await createOrg();
    const { key: otherKey } = await createApiKey(other.id);
    expect((await trigger(otherKey, endpoint.id, { event: "deal.stip_alert" })).status).toBe(404);

    await call(`/api/v1/webhooks/${endpoint.id}`, { method: "PATCH", key, headers: JSON_HEADERS, body: JSON.stringify({ enabled: false }) });
    const disabled = await trigger(key, endpoint.id, { event: "deal.stip_alert" });
    expect(disabled.status).toBe(422);
    expect(await disabled.json()).toMatchObject({ details: [{ path: "id", code: "endpoint_disabled" }] });
    expect(await receivedBy("trigger-refused")).toEqual([]);
  });

  it("a sample whose queue send fails is answered 202 and sent by the sweeper, to this endpoint only", async () => {
    const { org, key, endpoint } = await setup("trigger-outage");
    await createEndpoint(key, { url: receiverUrl("ok", "trigger-outage-bystander"), events: ["deal.stip_alert"] });
    // The sample is queued from the organization's object, and re-sent by its alarm (the sweeper of an organization in its object).
    const down = capturingQueue({ failSends: true });
    const restore = await objectSendsTo(org.id, down.env.WEBHOOKS);
    const requestedAt = Date.now();
    const res = await trigger(key, endpoint.id, { event: "deal.stip_alert" });
    expect(res.status).toBe(202);
    const { id } = await res.json<Delivery>();

    const up = capturingQueue();
    await restore();
    await objectSendsTo(org.id, up.env.WEBHOOKS);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(requestedAt + 5 * 60_000);
    expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    vi.useRealTimers();
    // Only this delivery is re-sent: the sample's outbox event is never fanned out to other endpoints.
    const ours = up.sent.filter((m) => m.orgId === org.id);
    expect(ours).toEqual([{ kind: "delivery", orgId: org.id, deliveryId: id }]);
    expect(await consumeOne(up.env, ours[0], 1)).toMatchObject({ acked: true });
    expect((await receivedBy("trigger-outage")).map((r) => JSON.parse(r.body).sample)).toEqual([true]);
  });
});

describe("the envelope's store_id is always a string", () => {
  it("every event type carries its own store, or else the organization's primary store; so do samples and the ping", async () => {
    const { org, first, primary, key, endpoint } = await setup("store-id-all", "ok", [...EVENT_NAMES]);
    const db = getDb(env.DB);
    const storeless = EVENT_NAMES.map((event) => ({ event, orgId: org.id, storeId: null, data: { n: 1 } }));
    const ownStore = EVENT_NAMES.map((event) => ({ event, orgId: org.id, storeId: first.id, data: { n: 2 } }));
    await commitWithEvents(env, db, [], [...storeless, ...ownStore], new Date());
    for (const event of EVENT_NAMES) await trigger(key, endpoint.id, { event });
    expect((await call(`/api/v1/webhooks/${endpoint.id}/test`, { method: "POST", key })).status).toBe(200);

    const expected = 3 * EVENT_NAMES.length + 1;
    const envelopes = (
      await eventually(async () => {
        const log = await receivedBy("store-id-all");
        return log.length === expected && log;
      }, 15_000)
    ).map((r) => JSON.parse(r.body));
    for (const envelope of envelopes) {
      expect(typeof envelope.store_id, JSON.stringify(envelope)).toBe("string");
      const ownStoreEvent = envelope.data.n === 2;
      expect(envelope.store_id, `${envelope.event} ${ownStoreEvent ? "with" : "without"} a store`).toBe(ownStoreEvent ? first.id : primary.id);
    }
    expect(new Set(envelopes.map((e) => e.event))).toEqual(new Set([...EVENT_NAMES, "webhook.test"]));
    expect(envelopes.find((e) => e.event === "webhook.test")).toMatchObject({ sample: true });
    expect(envelopes.filter((e) => e.data.n !== undefined).every((e) => e.sample === false)).toBe(true);
  });

  it("an organization without a primary flag uses its oldest store", async () => {
    const org = await createOrg();
    const oldest = await createStore(org.id);
    await env.DB.prepare("UPDATE stores SET created_at = '2020-01-01T00:00:00.000Z' WHERE id = ?").bind(oldest.id).run();
    await createStore(org.id);
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "store-id-oldest"), events: ["deal.stip_alert"] });
    await call(`/api/v1/webhooks/${endpoint.id}/test`, { method: "POST", key });
    const [received] = await receivedBy("store-id-oldest");
    expect(JSON.parse(received.body).store_id).toBe(oldest.id);
  });
});

describe("the delivery log keeps what was sent and what the receiver answered", () => {
  it("keeps the request body exactly as sent, the status and the first bytes of a text answer, never the secret or signature", async () => {
    const { org, key, endpoint } = await setup("log-fail", "always-fail");
    const queue = capturingQueue();
    const restore = await objectSendsTo(org.id, queue.env.WEBHOOKS);
    await trigger(key, endpoint.id, { event: "deal.stip_alert" });
    await restore();
    const [message] = queue.sent.splice(0);
    expect(await consumeOne(queue.env, message, 1)).toMatchObject({ acked: false });
    const [received] = await receivedBy("log-fail");
    const [delivery] = (await deliveriesPage(key, endpoint.id)).deliveries;
    expect(delivery.attempts).toEqual([
      expect.objectContaining({
        response_status: 503,
        outcome: "retrying",
        request_body: received.body,
        response_body: "receiver says hi",
        response_body_bytes: 16,
      }),
    ]);
    const stored = JSON.stringify(await rowsInObject(org.id, "SELECT * FROM webhook_attempts WHERE delivery_id = ?", delivery.id));
    expect(stored).toContain(delivery.id);
    expect(stored).not.toContain(endpoint.secret.slice(6));
    expect(stored).not.toContain(received.headers["x-service-signature"].slice(7));
  });

  it("keeps the first KiB of a long answer, cut at a character boundary, and notes its whole size", async () => {
    const { key, endpoint } = await setup("log-long", "long-answer");
    await trigger(key, endpoint.id, { event: "deal.stip_alert" });
    const [delivery] = await settledDeliveries(key, endpoint.id, 1);
    const [attempt] = delivery.attempts;
    expect(attempt.response_status).toBe(200);
    expect(attempt.response_body_bytes).toBe(1 + 3000 * 2);
    // 1 + 511 × 2 bytes = 1023: the 512th "é" would straddle byte 1024, so it is left out.
    expect(attempt.response_body).toBe(`a${"é".repeat(511)}`);
    expect(new TextEncoder().encode(attempt.response_body ?? "").byteLength).toBeLessThanOrEqual(RESPONSE_PREVIEW_BYTES);
  });

  it("keeps no text of a binary answer or an empty one, only their size", async () => {
    const binary = await setup("log-binary", "binary-answer");
    await trigger(binary.key, binary.endpoint.id, { event: "deal.stip_alert" });
    const empty = await setup("log-empty", "ok");
    await trigger(empty.key, empty.endpoint.id, { event: "deal.stip_alert" });
    const [binaryDelivery] = await settledDeliveries(binary.key, binary.endpoint.id, 1);
    expect(binaryDelivery.attempts[0]).toMatchObject({ response_status: 200, response_body: null, response_body_bytes: 2048 });
    const [emptyDelivery] = await settledDeliveries(empty.key, empty.endpoint.id, 1);
    expect(emptyDelivery.attempts[0]).toMatchObject({ response_status: 204, response_body: null, response_body_bytes: 0 });
    expect(emptyDelivery.attempts[0].request_body).toContain('"sample":true');
  });

  it(`clears the bodies after ${WEBHOOK_BODY_RETENTION_DAYS} days (not a millisecond before), keeping the attempt itself`, async () => {
    const { org, key, endpoint } = await setup("log-purge", "always-fail");
    await trigger(key, endpoint.id, { event: "deal.stip_alert" });
    const [delivery] = await eventually(async () => {
      const page = await deliveriesPage(key, endpoint.id);
      return page.deliveries[0]?.attempts.length === 1 && page.deliveries;
    });
    // The organization's object clears them on its 00:15 alarm: the attempt is dated back so that run finds it exactly at the retention, then a millisecond past it.
    const purgeAt = nightlyRuns().agedAt;
    const retention = WEBHOOK_BODY_RETENTION_DAYS * DAY_MS;
    const attemptedAt = (at: number) =>
      rowsInObject(org.id, "UPDATE webhook_attempts SET attempted_at = ? WHERE delivery_id = ?", new Date(at).toISOString(), delivery.id);

    await attemptedAt(purgeAt - retention);
    await runAlarmsThrough(org.id, purgeAt);
    expect((await deliveriesPage(key, endpoint.id)).deliveries[0].attempts[0]).toMatchObject({
      request_body: expect.any(String),
      response_body: "receiver says hi",
    });

    await attemptedAt(purgeAt - retention - 1);
    await rerunNight(org.id, purgeAt);
    expect((await deliveriesPage(key, endpoint.id)).deliveries[0].attempts[0]).toMatchObject({
      attempt: 1,
      response_status: 503,
      outcome: "retrying",
      request_body: null,
      response_body: null,
      response_body_bytes: 16,
    });
  });
});

describe("paging the delivery list", () => {
  /** Seven deliveries straight into the tables, three of them created in the same millisecond. */
  async function sevenDeliveries() {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: "https://hooks.example.com/paging", events: ["deal.stip_alert"] });
    const other = await createEndpoint(key, { url: "https://hooks.example.com/paging-other", events: ["deal.stip_alert"] });
    const times = ["01", "02", "03", "03", "03", "04", "05"].map((s) => `2026-11-26T10:00:${s}.000Z`);
    /** An event and its delivery to `endpointId`, in the organization's object (their rowids in the order written). */
    const deliver = async (endpointId: string, at: string, status: "delivered" | "pending") => {
      const [eventId, deliveryId] = [newId("evt"), newId("dlv")];
      await rowsInObject(
        org.id,
        "INSERT INTO event_outbox (id, org_id, event, data, occurred_at, relayed_at, fanned_out_at) VALUES (?, ?, 'deal.stip_alert', '{}', ?, ?, ?)",
        eventId,
        org.id,
        at,
        at,
        at,
      );
      await rowsInObject(
        org.id,
        "INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'deal.stip_alert', ?, ?, ?)",
        deliveryId,
        org.id,
        endpointId,
        eventId,
        status,
        at,
        at,
      );
      return deliveryId;
    };
    for (const at of times) await deliver(endpoint.id, at, "delivered");
    const otherDelivery = await deliver(other.id, times[0], "pending");
    return { key, endpoint, otherDelivery };
  }

  it("a call without parameters answers as before: every delivery (up to 50), newest first, has_more false", async () => {
    const { key, endpoint } = await sevenDeliveries();
    const page = await deliveriesPage(key, endpoint.id);
    expect(page).toMatchObject({ count: 7, has_more: false, next_cursor: null });
    expect(page.deliveries).toHaveLength(7);
    expect(page.deliveries[0].id).not.toBe(page.deliveries[6].id);
  });

  it("pages of 3 walk all seven once, in the same order, through equal timestamps", async () => {
    const { key, endpoint } = await sevenDeliveries();
    const all = (await deliveriesPage(key, endpoint.id)).deliveries.map((d) => d.id);
    const first = await deliveriesPage(key, endpoint.id, "?limit=3");
    expect(first).toMatchObject({ count: 3, has_more: true, next_cursor: all[2] });
    const second = await deliveriesPage(key, endpoint.id, `?limit=3&starting_after=${first.next_cursor}`);
    expect(second).toMatchObject({ count: 3, has_more: true, next_cursor: all[5] });
    const third = await deliveriesPage(key, endpoint.id, `?limit=3&starting_after=${second.next_cursor}`);
    expect(third).toMatchObject({ count: 1, has_more: false, next_cursor: null });
    expect([...first.deliveries, ...second.deliveries, ...third.deliveries].map((d) => d.id)).toEqual(all);
  });

  it("has_more is false when the page holds exactly what is left, true when one more is left", async () => {
    const { key, endpoint } = await sevenDeliveries();
    expect(await deliveriesPage(key, endpoint.id, "?limit=7")).toMatchObject({ count: 7, has_more: false, next_cursor: null });
    expect(await deliveriesPage(key, endpoint.id, "?limit=6")).toMatchObject({ count: 6, has_more: true });
    const all = (await deliveriesPage(key, endpoint.id)).deliveries.map((d) => d.id);
    expect(await deliveriesPage(key, endpoint.id, `?starting_after=${all[6]}`)).toEqual({
      count: 0,
      deliveries: [],
      has_more: false,
      next_cursor: null,
    });
    expect(await deliveriesPage(key, endpoint.id, `?limit=1&starting_after=${all[5]}`)).toMatchObject({
      count: 1,
      has_more: false,
      deliveries: [{ id: all[6] }],
    });
  });

  it("an unknown cursor, or another endpoint's delivery, is a 422 invalid_cursor; a limit out of range is a 422", async () => {
    const { key, endpoint, otherDelivery } = await sevenDeliveries();
    for (const cursor of ["dlv_nope", otherDelivery]) {
      const res = await call(`/api/v1/webhooks/${endpoint.id}/deliveries?starting_after=${cursor}`, { key });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: "validation_error", details: [{ path: "starting_after", code: "invalid_cursor" }] });
    }
    for (const limit of ["0", "101"]) expect((await call(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=${limit}`, { key })).status).toBe(422);
  });
});
