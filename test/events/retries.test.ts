import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { organizations } from "../../src/db/schema";
import { DELIVERY_TIMEOUT_MS } from "../../src/events/delivery";
import { commitWithEvents } from "../../src/events/emit";
import type { WebhookMessage } from "../../src/events/messages";
import worker from "../../src/index";
import { WEBHOOKS_DLQ } from "../../src/jobs/webhooks-consumer";
import type { WebhookDeliveryListSchema } from "../../src/routes/webhooks/webhooks.routes";
import { createEndpoint, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { objectRefuses, objectSendsTo, runAlarmsThrough } from "../helpers/object-sql";
import { capturingQueue, consumeDeadLetter, consumeOne } from "../helpers/queue-driver";

/**
 * These tests run the consumer one message at a time with a capturing queue, because the real
 * retries wait 20 minutes and more; the end-to-end path through the real queue is in delivery.test.ts.
 */
async function raiseEventTo(name: string, behaviour: Parameters<typeof receiverUrl>[0]) {
  const org = await createOrg();
  const store = await createStore(org.id);
  const { key } = await createApiKey(org.id);
  const endpoint = await createEndpoint(key, { url: receiverUrl(behaviour, name), events: ["inventory.aged_alert"] });
  await tellReceiverSecret(name, endpoint.secret);
  const queue = capturingQueue();
  await commitWithEvents(
    queue.env,
    getDb(env.DB),
    [],
    [{ event: "inventory.aged_alert", orgId: org.id, storeId: store.id, data: { stock_no: "A1", days_on_lot: 45, recommendation: "Reprice" } }],
    new Date(),
  );
  const [eventMessage] = queue.sent.splice(0);
  expect(eventMessage.kind).toBe("event");
  expect(await consumeOne(queue.env, eventMessage, 1)).toMatchObject({ acked: true });
  const [deliveryMessage] = queue.sent.splice(0);
  expect(deliveryMessage.kind).toBe("delivery");
  return { org, key, endpoint, queue, deliveryMessage };
}

async function deliveriesOf(key: string, endpointId: string) {
  const res = await call(`/api/v1/webhooks/${endpointId}/deliveries`, { key });
  return (await res.json<z.infer<typeof WebhookDeliveryListSchema>>()).deliveries;
}

it("a receiver that fails twice is retried at +20 min and +2 h, then delivered; every attempt is recorded", async () => {
  const { key, endpoint, queue, deliveryMessage } = await raiseEventTo("fail-twice-1", "fail-twice");
  expect(await consumeOne(queue.env, deliveryMessage, 1)).toEqual({ acked: false, retry: { delaySeconds: 1200 } });
  expect(await consumeOne(queue.env, deliveryMessage, 2)).toEqual({ acked: false, retry: { delaySeconds: 7200 } });
  expect(await consumeOne(queue.env, deliveryMessage, 3)).toEqual({ acked: true, retry: null });

  const [delivery] = await deliveriesOf(key, endpoint.id);
  expect(delivery.status).toBe("delivered");
  expect(delivery.attempts.map((a) => [a.attempt, a.response_status, a.outcome])).toEqual([
    [1, 500, "retrying"],
    [2, 500, "retrying"],
    [3, 200, "delivered"],
  ]);
  const received = await receivedBy("fail-twice-1");
  expect(received.every((r) => r.verified)).toBe(true);
  // One event, one id on every attempt, so the receiver can de-duplicate.
  expect(new Set(received.map((r) => r.headers["x-service-webhook-id"])).size).toBe(1);
});

it("a receiver that always fails gets three retries (+20 min, +2 h, +12 h), then the dead-letter queue marks the delivery failed", async () => {
  const { key, endpoint, queue, deliveryMessage } = await raiseEventTo("always-fail-1", "always-fail");
  const delays = [];
  for (let attempt = 1; attempt <= 4; attempt++) {
    const outcome = await consumeOne(queue.env, deliveryMessage, attempt);
    expect(outcome.acked).toBe(false);
    delays.push(outcome.retry?.delaySeconds ?? 0);
  }
  // The fourth retry() exceeds max_retries = 3 (wrangler.toml), which moves the message to the dead-letter queue.
  expect(delays).toEqual([1200, 7200, 43200, 0]);
  expect((await deliveriesOf(key, endpoint.id))[0].status).toBe("pending");

  expect(await consumeDeadLetter(queue.env, deliveryMessage)).toMatchObject({ acked: true });
  const [delivery] = await deliveriesOf(key, endpoint.id);
  expect(delivery).toMatchObject({ status: "failed", attempt_count: 4 });
  expect(delivery.attempts).toHaveLength(4);
  expect((await receivedBy("always-fail-1")).length).toBe(4);
});

it("a dead-lettered delivery is not acked while its organization's storage refuses its mark: retried, still pending; acked once the mark is written", async () => {
  const { org, key, endpoint, queue, deliveryMessage } = await raiseEventTo("dlq-db-down-1", "always-fail");
  // The delivery is in the organization's object: its mark is refused there, as D1 would refuse it for an organization in D1.
  const undo = await objectRefuses(org.id, "webhook_deliveries", "UPDATE");
  expect(await consumeDeadLetter(queue.env, deliveryMessage)).toEqual({ acked: false, retry: { delaySeconds: 1200 } });
  await undo();
  expect((await deliveriesOf(key, endpoint.id))[0].status).toBe("pending");

  expect(await consumeDeadLetter(queue.env, deliveryMessage)).toMatchObject({ acked: true });
  expect((await deliveriesOf(key, endpoint.id))[0].status).toBe("failed");
});

it("a receiver that answers too slowly twice, then 500s, has every attempt recorded and the delivery failed by the dead-letter queue", async () => {
  const { key, endpoint, queue, deliveryMessage } = await raiseEventTo("slow-then-fail-1", "slow-then-fail");
  // The receiver holds its first two answers for 4 s; the 10 s delivery timeout is cut to 1.5 s so the
  // test waits little, and a prompt 500 still arrives in time on a loaded machine (at 400 ms it did not).
  const realTimeout = AbortSignal.timeout.bind(AbortSignal);
  const timeouts = vi.spyOn(AbortSignal, "timeout").mockImplementation(() => realTimeout(1_500));
  const outcomes = [];
  for (let attempt = 1; attempt <= 4; attempt++) outcomes.push(await consumeOne(queue.env, deliveryMessage, attempt));
  expect(timeouts.mock.calls).toEqual(Array(4).fill([DELIVERY_TIMEOUT_MS]));
  timeouts.mockRestore();
  expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
  expect(outcomes.map((o) => o.retry?.delaySeconds)).toEqual([1200, 7200, 43200, 0]);
  expect((await deliveriesOf(key, endpoint.id))[0].status).toBe("pending");

  expect(await consumeDeadLetter(queue.env, deliveryMessage)).toMatchObject({ acked: true });
  const [delivery] = await deliveriesOf(key, endpoint.id);
  expect(delivery).toMatchObject({ status: "failed", attempt_count: 4 });
  expect(delivery.attempts.map((a) => [a.attempt, a.response_status, a.error])).toEqual([
    [1, null, "No answer within 10 s."],
    [2, null, "No answer within 10 s."],
    [3, 500, "The receiver answered HTTP 500."],
    [4, 500, "The receiver answered HTTP 500."],
  ]);
  // The last attempt's own outcome still reads "retrying": the dead-letter consumer fails the delivery, not the attempt (docs/reliability.md).
  expect(delivery.attempts.map((a) => a.outcome)).toEqual(Array(4).fill("retrying"));
  // The attempts cut off waited for the timeout, not for the receiver's late answer.
  expect(delivery.attempts.slice(0, 2).every((a) => a.duration_ms >= 1_500 && a.duration_ms < 4_000)).toBe(true);
  const received = await receivedBy("slow-then-fail-1");
  expect(received.map((r) => r.status)).toEqual([200, 200, 500, 500]);
  expect(received.every((r) => r.verified)).toBe(true);
  // One event id on every attempt: a receiver that did act on a late one can de-duplicate.
  expect(new Set(received.map((r) => r.headers["x-service-webhook-id"])).size).toBe(1);
});

it("a redirect is a failure and is not followed", async () => {
  const { key, endpoint, queue, deliveryMessage } = await raiseEventTo("redirect-1", "redirect");
  expect((await consumeOne(queue.env, deliveryMessage, 1)).retry).not.toBeNull();
  expect((await receivedBy("redirect-1")).map((r) => r.behaviour)).toEqual(["redirect"]);
  expect((await deliveriesOf(key, endpoint.id))[0].attempts[0]).toMatchObject({ response_status: 302, outcome: "retrying" });
});

it("a 410 disables the endpoint, fails the delivery and is not retried; later events are not sent to it", async () => {
  const { org, key, endpoint, queue, deliveryMessage } = await raiseEventTo("gone-1", "gone");
  expect(await consumeOne(queue.env, deliveryMessage, 1)).toEqual({ acked: true, retry: null });
  const [delivery] = await deliveriesOf(key, endpoint.id);
  expect(delivery).toMatchObject({ status: "failed", attempts: [expect.objectContaining({ response_status: 410, outcome: "disabled" })] });
  const after = await (await call(`/api/v1/webhooks/${endpoint.id}`, { key })).json();
  expect(after).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining("410") });

  await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "inventory.aged_alert", orgId: org.id, storeId: null, data: {} }], new Date());
  await consumeOne(queue.env, queue.sent.splice(0)[0], 1);
  expect(queue.sent).toEqual([]);
});

it("a message that is delivered twice (at-least-once) reaches the receiver once", async () => {
  const { queue, deliveryMessage } = await raiseEventTo("duplicate-1", "ok");
  await consumeOne(queue.env, deliveryMessage, 1);
  expect(await consumeOne(queue.env, deliveryMessage, 1)).toMatchObject({ acked: true });
  expect((await receivedBy("duplicate-1")).length).toBe(1);
});

it("an event is marked fanned out by its fan-out, not by the request that raised it", async () => {
  const org = await createOrg();
  const queue = capturingQueue();
  const {
    eventIds: [id],
  } = await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], new Date());
  // Sent, but its consumer has not run: not marked (the request made one D1 round trip).
  expect(queue.sent).toEqual([{ kind: "event", orgId: org.id, eventId: id }]);
  expect((await listOutboxEvents(org.id))[0]).toMatchObject({ id, fanned_out: false });

  expect(await consumeOne(queue.env, queue.sent.splice(0)[0], 1)).toMatchObject({ acked: true });
  expect((await listOutboxEvents(org.id))[0]).toMatchObject({ id, fanned_out: true });
});

it("a queue batch's events, of two organizations, are fanned out together: each acked, marked and delivered to its own organization only", async () => {
  const queue = capturingQueue();
  const raised = [];
  for (const name of ["batch-fan-out-a", "batch-fan-out-b"]) {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", name), events: ["deal.stip_alert"] });
    const { eventIds } = await commitWithEvents(
      queue.env,
      getDb(env.DB),
      [],
      [1, 2].map(() => ({ event: "deal.stip_alert" as const, orgId: org.id, storeId: null, data: {} })),
      new Date(),
    );
    raised.push({ org, key, endpoint, eventIds });
  }
  const batch = createMessageBatch<WebhookMessage>(
    "webhooks",
    queue.sent.splice(0).map((body, i) => ({ id: `batch-fan-out-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await (worker.queue as ExportedHandlerQueueHandler<Env, WebhookMessage>)(batch, queue.env, ctx);
  expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(4);

  const deliveries = queue.sent.splice(0);
  for (const { org, key, endpoint, eventIds } of raised) {
    expect((await listOutboxEvents(org.id)).map((e) => e.fanned_out)).toEqual([true, true]);
    const own = await deliveriesOf(key, endpoint.id);
    expect(own.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
    expect(deliveries.filter((m) => m.orgId === org.id)).toHaveLength(2);
  }
});

it("a queue batch's fan-out that fails retries each of its event messages, with the first retry's delay", async () => {
  const org = await createOrg();
  const queue = capturingQueue();
  await commitWithEvents(
    queue.env,
    getDb(env.DB),
    [],
    [1, 2].map(() => ({ event: "deal.stip_alert" as const, orgId: org.id, storeId: null, data: {} })),
    new Date(),
  );
  const unreachable = {
    prepare() {
      throw new Error("D1 is unreachable");
    },
  } as unknown as D1Database;
  const batch = createMessageBatch<WebhookMessage>(
    "webhooks",
    queue.sent.splice(0).map((body, i) => ({ id: `failed-fan-out-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const retries = batch.messages.map((msg) => vi.spyOn(msg, "retry"));
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const ctx = createExecutionContext();
  await (worker.queue as ExportedHandlerQueueHandler<Env, WebhookMessage>)(batch, { ...queue.env, DB: unreachable }, ctx);
  const result = await getQueueResult(batch, ctx);
  const logged = errors.mock.calls.map(([line]) => String(line));
  errors.mockRestore();
  expect(result).toMatchObject({ explicitAcks: [], ackAll: false });
  expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(["failed-fan-out-0", "failed-fan-out-1"]);
  expect(retries.map((retry) => retry.mock.calls[0]?.[0])).toEqual([{ delaySeconds: 1200 }, { delaySeconds: 1200 }]);
  expect(logged).toEqual([expect.stringContaining('"event":"webhook_message_failed","kind":"event","messages":2')]);
  expect((await listOutboxEvents(org.id)).map((e) => e.fanned_out)).toEqual([false, false]);
});

it("a duplicate event message (the sweeper re-sending an event still queued) creates no second delivery", async () => {
  const org = await createOrg();
  const { key } = await createApiKey(org.id);
  const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "duplicate-event-1"), events: ["deal.stip_alert"] });
  await tellReceiverSecret("duplicate-event-1", endpoint.secret);
  const queue = capturingQueue();
  await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], new Date());
  const [eventMessage] = queue.sent.splice(0);
  await consumeOne(queue.env, eventMessage, 1);
  const [deliveryMessage] = queue.sent.splice(0);
  expect(await consumeOne(queue.env, deliveryMessage, 1)).toMatchObject({ acked: true });

  expect(await consumeOne(queue.env, eventMessage, 1)).toMatchObject({ acked: true });
  expect(queue.sent).toEqual([]);
  expect(await deliveriesOf(key, endpoint.id)).toEqual([expect.objectContaining({ status: "delivered" })]);
  expect((await receivedBy("duplicate-event-1")).length).toBe(1);
});

it("the sweeper leaves a young event alone (it may still be queued) and re-sends one not fanned out after the grace, once", async () => {
  const org = await createOrg();
  const down = capturingQueue({ failSends: true });
  const now = new Date();
  const {
    eventIds: [lostId],
  } = await commitWithEvents(down.env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], now);
  expect(await listOutboxEvents(org.id)).toEqual([expect.objectContaining({ id: lostId, fanned_out: false })]);

  const up = capturingQueue();
  const sweep = async (at: Date) => {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "*/5 * * * *" }), up.env, ctx);
    await waitOnExecutionContext(ctx);
    return up.sent.splice(0).filter((m) => m.kind === "event" && m.eventId === lostId);
  };
  // Within the 15-minute grace an unmarked event is usually waiting in a backed-up queue: not re-sent every 5 minutes.
  expect(await sweep(new Date(now.getTime() + 30_000))).toEqual([]);
  expect(await sweep(new Date(now.getTime() + 10 * 60_000))).toEqual([]);

  const resent = await sweep(new Date(now.getTime() + 16 * 60_000));
  expect(resent).toEqual([{ kind: "event", orgId: org.id, eventId: lostId }]);
  // Sending does not mark it; the fan-out does, and after it the sweeper leaves it alone.
  expect((await listOutboxEvents(org.id))[0].fanned_out).toBe(false);
  await consumeOne(up.env, resent[0], 1);
  expect((await listOutboxEvents(org.id))[0].fanned_out).toBe(true);
  expect(await sweep(new Date(now.getTime() + 25 * 60_000))).toEqual([]);
});

it("a fan-out that dead-letters goes back to the outbox for the sweeper", async () => {
  const org = await createOrg();
  const queue = capturingQueue();
  const {
    eventIds: [id],
  } = await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], new Date());
  // Its deliveries were written (and the event marked) but their send kept failing until the message dead-lettered.
  await consumeOne(queue.env, queue.sent.splice(0)[0], 1);
  expect((await listOutboxEvents(org.id))[0]).toMatchObject({ id, fanned_out: true });
  expect(await consumeDeadLetter(queue.env, { kind: "event", orgId: org.id, eventId: id })).toMatchObject({ acked: true });
  expect((await listOutboxEvents(org.id))[0]).toMatchObject({ id, fanned_out: false });
});

it("the change and its events land together: a failing statement writes no event", async () => {
  const org = await createOrg();
  const db = getDb(env.DB);
  const duplicateOrg = db.insert(organizations).values({ id: org.id, name: "duplicate" });
  await expect(
    commitWithEvents(capturingQueue().env, db, [duplicateOrg], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], new Date()),
  ).rejects.toThrow();
  expect(await listOutboxEvents(org.id)).toEqual([]);
});

it("a redelivery whose queue send fails is kept in the outbox: answered 202, and the sweeper sends it once the queue is back", async () => {
  const { org, key, endpoint, queue, deliveryMessage } = await raiseEventTo("redeliver-outage-1", "ok");
  expect(await consumeOne(queue.env, deliveryMessage, 1)).toMatchObject({ acked: true });
  const deliveryId = (deliveryMessage as Extract<typeof deliveryMessage, { kind: "delivery" }>).deliveryId;

  // A redelivery is queued from the organization's object, and re-sent by its alarm (its sweeper).
  const down = capturingQueue({ failSends: true });
  const restore = await objectSendsTo(org.id, down.env.WEBHOOKS);
  const requestedAt = Date.now();
  const res = await call(`/api/v1/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`, { method: "POST", key });
  expect(res.status).toBe(202);
  expect(await res.json()).toMatchObject({ id: deliveryId, status: "pending", attempt_count: 1 });

  const up = capturingQueue();
  await restore();
  await objectSendsTo(org.id, up.env.WEBHOOKS);
  const sweep = async (at: number) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(at);
    try {
      // The object's alarm fires when its timer is due: within the grace it is not.
      await runAlarmsThrough(org.id, at);
    } finally {
      vi.useRealTimers();
    }
    return up.sent.splice(0).filter((m) => m.kind === "delivery" && m.deliveryId === deliveryId);
  };
  // Within the grace period its own request may still be sending it: left alone.
  expect(await sweep(requestedAt + 30_000)).toEqual([]);
  const [resent] = await sweep(requestedAt + 5 * 60_000);
  expect(resent).toEqual(deliveryMessage);
  expect(await sweep(requestedAt + 10 * 60_000)).toEqual([]);

  expect(await consumeOne(up.env, resent, 1)).toMatchObject({ acked: true });
  const [delivery] = await deliveriesOf(key, endpoint.id);
  expect(delivery).toMatchObject({ status: "delivered", attempt_count: 2 });
  expect((await receivedBy("redeliver-outage-1")).length).toBe(2);
});

describe("a malformed queue message is logged and acked on its own, never retried with its batch", () => {
  const MALFORMED: [string, unknown][] = [
    ["a null body", null],
    ["a string body", "whsec_not-a-message"],
    ["an unknown kind", { kind: "surprise", orgId: "org_x", deliveryId: "dlv_x" }],
    ["a delivery without its id", { kind: "delivery", orgId: "org_x" }],
  ];

  for (const queueName of ["webhooks", WEBHOOKS_DLQ]) {
    it.each(MALFORMED)(`${queueName}: %s next to a good delivery`, async (label, body) => {
      const name = `malformed-${queueName}-${label.replaceAll(" ", "-")}`;
      const { key, endpoint, queue, deliveryMessage } = await raiseEventTo(name, "ok");
      const batch = createMessageBatch<WebhookMessage>(queueName, [
        { id: `${name}-bad`, timestamp: new Date(), attempts: 1, body: body as WebhookMessage },
        { id: `${name}-good`, timestamp: new Date(), attempts: 1, body: deliveryMessage },
      ]);
      const errors = vi.spyOn(console, "error");
      const ctx = createExecutionContext();
      // A throw here would retry the whole batch, the good delivery with it.
      await expect((worker.queue as ExportedHandlerQueueHandler<Env, WebhookMessage>)(batch, queue.env, ctx)).resolves.toBeUndefined();
      const result = await getQueueResult(batch, ctx);
      expect(result).toMatchObject({ retryBatch: { retry: false }, ackAll: false, retryMessages: [] });
      expect(result.explicitAcks.sort()).toEqual([`${name}-bad`, `${name}-good`]);

      const logged = errors.mock.calls.map(([line]) => String(line)).filter((line) => line.includes(`${name}-bad`));
      errors.mockRestore();
      expect(logged).toEqual([expect.stringContaining('"event":"webhook_message_malformed"')]);
      expect(logged[0]).not.toContain("whsec_");

      if (queueName === "webhooks") {
        expect((await receivedBy(name)).length).toBe(1);
        expect((await deliveriesOf(key, endpoint.id))[0]).toMatchObject({ status: "delivered", attempt_count: 1 });
      } else {
        // The dead-letter consumer marks the good delivery failed, as for any dead-lettered delivery.
        expect((await deliveriesOf(key, endpoint.id))[0]).toMatchObject({ status: "failed" });
      }
    });
  }
});
