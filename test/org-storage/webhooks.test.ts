import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { WEBHOOK_BODY_RETENTION_DAYS } from "../../src/events/delivery";
import { commitWithEvents } from "../../src/events/emit";
import { webhookStorage } from "../../src/jobs/webhook-storage";
import type { WebhookDeliveryListSchema } from "../../src/routes/webhooks/webhooks.routes";
import { createEndpoint, eventually, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals } from "../helpers/ingest";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";
import { capturingQueue, consumeOne, runCron } from "../helpers/queue-driver";

type Deliveries = z.infer<typeof WebhookDeliveryListSchema>["deliveries"];

async function deliveriesOf(key: string, endpointId: string): Promise<Deliveries> {
  const res = await call(`/api/v1/webhooks/${endpointId}/deliveries`, { key });
  expect(res.status).toBe(200);
  return (await res.json<{ deliveries: Deliveries }>()).deliveries;
}

/** `POST /api/v1/webhooks/{id}/trigger`: a sample of `event` for the endpoint. */
const triggerSample = (key: string, endpointId: string, event: string) =>
  call(`/api/v1/webhooks/${endpointId}/trigger`, {
    method: "POST",
    key,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ event }),
  });

const iso = (ms: number) => new Date(ms).toISOString();

/** An event the organization's object recorded at `at`, fanned out and relayed to D1 then (the object's outbox). */
const recordedEvent = (orgId: string, id: string, at: string) =>
  rowsInObject(
    orgId,
    "INSERT INTO event_outbox (id, org_id, event, data, occurred_at, fanned_out_at, relayed_at) VALUES (?, ?, 'inventory.aged_alert', '{}', ?, ?, ?)",
    id,
    orgId,
    at,
    at,
    at,
  );

/** An endpoint for aged alerts, in the organization's object. */
const endpointOf = (orgId: string, id: string) =>
  rowsInObject(
    orgId,
    `INSERT INTO webhook_endpoints (id, org_id, url, events, secret_ciphertext) VALUES (?, ?, 'https://hooks.example.com/a', '["inventory.aged_alert"]', 'c')`,
    id,
    orgId,
  );

/** An organization in its object with a store, a key, and an endpoint. */
async function setup(name: string, behaviour: Parameters<typeof receiverUrl>[0], events: Parameters<typeof createEndpoint>[1]["events"]) {
  const org = await createOrg();
  const store = await createStore(org.id);
  const { key } = await createApiKey(org.id, { dailyLimit: 100_000 });
  const endpoint = await createEndpoint(key, { url: receiverUrl(behaviour, name), events });
  await tellReceiverSecret(name, endpoint.secret);
  return { org, store, key, endpoint };
}

// The organization's webhooks group lives in its object (docs/scaling.md): its endpoints, deliveries and attempts.
describe("webhooks, the group in the organization's object", () => {
  it("a deal push's stip alert reaches every subscribed endpoint, signed; each attempt is recorded in the object and listed", async () => {
    const { org, store, key, endpoint } = await setup("stip-first", "ok", ["deal.stip_alert"]);
    const second = await createEndpoint(key, { url: receiverUrl("ok", "stip-second"), events: ["deal.stip_alert"] });
    await tellReceiverSecret("stip-second", second.secret);
    const pushed = await postDeals(
      { key: await createIngestKey(org.id) },
      { deals: [deal("D-HOOK", store.id, { stips: [{ stip: "proof_of_income", state: "outstanding" }] })] },
    );
    expect(await pushed.json()).toMatchObject({ stip_alerts: 1 });
    const [alert] = await listOutboxEvents(org.id, "deal.stip_alert");

    for (const [name, hook] of [
      ["stip-first", endpoint],
      ["stip-second", second],
    ] as const) {
      const [received] = await eventually(async () => (await receivedBy(name)).length > 0 && receivedBy(name), 15_000);
      expect(received.verified).toBe(true);
      expect(received.headers["x-service-webhook-id"]).toBe(alert.id);
      expect(JSON.parse(received.body)).toMatchObject({ id: alert.id, event: "deal.stip_alert", org_id: org.id, store_id: store.id, sample: false });
      const [delivery] = await eventually(async () => {
        const listed = await deliveriesOf(key, hook.id);
        return listed[0]?.status === "delivered" && listed;
      });
      expect(delivery).toMatchObject({ event_id: alert.id, attempt_count: 1 });
      expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, response_status: 204, outcome: "delivered" })]);
    }
    expect(await rowsInObject(org.id, "SELECT status FROM webhook_deliveries WHERE org_id = ?", org.id)).toEqual([
      { status: "delivered" },
      { status: "delivered" },
    ]);
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toEqual([expect.objectContaining({ id: alert.id, fanned_out: true })]);
  });

  it("a failed attempt is retried until delivered; a redelivery and a sample go out again; a disabled endpoint refuses them; a deleted one is gone; no secret in any log", async () => {
    const name = "fail-twice";
    const { org, store, key, endpoint } = await setup(name, "fail-twice", ["inventory.aged_alert"]);
    const logged = [vi.spyOn(console, "log"), vi.spyOn(console, "warn"), vi.spyOn(console, "error")];
    // An event in D1's outbox (as the object's relay puts its events there), fanned out to the object.
    const queue = capturingQueue();
    const data = { stock_no: "A1", days_on_lot: 45, recommendation: "Reprice" };
    await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "inventory.aged_alert", orgId: org.id, storeId: store.id, data }], new Date());
    const [eventMessage] = queue.sent.splice(0);
    expect(await consumeOne(queue.env, eventMessage, 1)).toMatchObject({ acked: true });
    const [deliveryMessage] = queue.sent.splice(0);
    expect(deliveryMessage).toMatchObject({ kind: "delivery", orgId: org.id });
    // The counts the bench's and the soak's drain read (scripts/bench/entry.ts).
    const deliveryCounts = () => webhookStorage(env, org.id)("deliveryCounts", undefined);
    expect(await deliveryCounts()).toEqual([{ status: "pending", n: 1 }]);
    // The same message again adds no second delivery.
    expect(await consumeOne(queue.env, eventMessage, 2)).toMatchObject({ acked: true });
    expect(queue.sent.splice(0)).toEqual([deliveryMessage]);

    expect(await consumeOne(queue.env, deliveryMessage, 1)).toEqual({ acked: false, retry: { delaySeconds: 1200 } });
    expect(await consumeOne(queue.env, deliveryMessage, 2)).toEqual({ acked: false, retry: { delaySeconds: 7200 } });
    expect(await consumeOne(queue.env, deliveryMessage, 3)).toEqual({ acked: true, retry: null });
    expect(await deliveryCounts()).toEqual([{ status: "delivered", n: 1 }]);
    // A copy of the message after delivery sends nothing.
    expect(await consumeOne(queue.env, deliveryMessage, 1)).toEqual({ acked: true, retry: null });
    const [delivery] = await deliveriesOf(key, endpoint.id);
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts.map((a) => [a.attempt, a.response_status, a.outcome])).toEqual([
      [1, 500, "retrying"],
      [2, 500, "retrying"],
      [3, 200, "delivered"],
    ]);
    expect((await receivedBy(name)).every((r) => r.verified)).toBe(true);

    // Redelivered through the real queue: a fourth attempt, the same webhook id.
    const redelivered = await call(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`, { method: "POST", key });
    expect(redelivered.status).toBe(202);
    await eventually(async () => (await deliveriesOf(key, endpoint.id))[0].attempts.length === 4);
    const sample = await triggerSample(key, endpoint.id, "deal.stip_alert");
    expect(sample.status).toBe(202);
    const sampled = await sample.json<Deliveries[number]>();
    expect(sampled).toMatchObject({ sample: true, event: "deal.stip_alert" });
    const received = await eventually(async () => {
      const log = await receivedBy(name);
      return log.some((r) => JSON.parse(r.body).sample === true) && log;
    });
    expect(received.map((r) => r.headers["x-service-webhook-id"])).toEqual([...Array(4).fill(delivery.event_id), sampled.event_id]);
    // A sample stays in the object: never relayed to D1's outbox, so never fanned out to another endpoint.
    expect((await listOutboxEvents(org.id)).map((e) => e.id)).toEqual([delivery.event_id]);

    const disabled = await call(`/api/v1/webhooks/${endpoint.id}`, {
      method: "PATCH",
      key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ enabled: false }),
    });
    expect(await disabled.json()).toMatchObject({ enabled: false });
    const refused = await call(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`, { method: "POST", key });
    expect(refused.status).toBe(422);
    // A disabled endpoint gets no delivery of a new event.
    await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "inventory.aged_alert", orgId: org.id, storeId: store.id, data }], new Date());
    expect(await consumeOne(queue.env, queue.sent.splice(0)[0], 1)).toMatchObject({ acked: true });
    expect(queue.sent).toEqual([]);
    expect((await call(`/api/v1/webhooks/${endpoint.id}`, { method: "DELETE", key })).status).toBe(204);
    expect((await call(`/api/v1/webhooks/${endpoint.id}`, { key })).status).toBe(404);
    expect(await rowsInObject(org.id, "SELECT id FROM webhook_deliveries WHERE org_id = ?", org.id)).toEqual([]);

    const lines = logged.flatMap((spy) => spy.mock.calls.map((args) => args.join(" ")));
    for (const spy of logged) spy.mockRestore();
    expect(lines.filter((line) => line.includes("whsec_") || line.includes(endpoint.secret))).toEqual([]);
  });
});

describe("the webhooks group's jobs on an organization's alarm", () => {
  it(`its 00:15 run clears the bodies of attempts older than ${WEBHOOK_BODY_RETENTION_DAYS} days in the object and keeps a younger one's`, async () => {
    const DAY = 86_400_000;
    const { order, agedAt: purgeAt } = nightlyRuns();
    const org = await createOrg();
    const old = iso(purgeAt - 40 * DAY);
    await recordedEvent(org.id, "evt_old_body", old);
    await endpointOf(org.id, "whk_old_body");
    await rowsInObject(
      org.id,
      "INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event, status, attempt_count, created_at, updated_at) VALUES ('dlv_old_body', ?, 'whk_old_body', 'evt_old_body', 'inventory.aged_alert', 'delivered', 2, ?, ?)",
      org.id,
      old,
      old,
    );
    for (const [attempt, at] of [
      [1, purgeAt - (WEBHOOK_BODY_RETENTION_DAYS + 1) * DAY],
      [2, purgeAt - (WEBHOOK_BODY_RETENTION_DAYS - 1) * DAY],
    ])
      await rowsInObject(
        org.id,
        "INSERT INTO webhook_attempts (delivery_id, attempt, org_id, attempted_at, duration_ms, outcome, request_body, response_body) VALUES ('dlv_old_body', ?, ?, ?, 30, 'delivered', '{}', 'ok')",
        attempt,
        org.id,
        iso(at),
      );
    const bodies = () =>
      rowsInObject(org.id, "SELECT attempt, request_body, response_body FROM webhook_attempts WHERE org_id = ? ORDER BY attempt", org.id);
    for (const at of order) {
      expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
      expect(await bodies()).toEqual([
        { attempt: 1, request_body: at < purgeAt ? "{}" : null, response_body: at < purgeAt ? "ok" : null },
        { attempt: 2, request_body: "{}", response_body: "ok" },
      ]);
    }
  });
});

describe("a sample of an organization in its object", () => {
  it("reaches only the endpoint it was triggered for, also after the object's alarm relays its outbox: never D1's outbox, never another endpoint", async () => {
    const { org, key, endpoint } = await setup("sample-only-a", "ok", ["deal.stip_alert"]);
    const other = await createEndpoint(key, { url: receiverUrl("ok", "sample-only-b"), events: ["deal.stip_alert"] });
    const sample = await triggerSample(key, endpoint.id, "deal.stip_alert");
    expect(sample.status).toBe(202);
    const { event_id } = await sample.json<Deliveries[number]>();
    await eventually(async () => (await receivedBy("sample-only-a")).length === 1);
    // The alarm's firing relays whatever waits in the object's outbox: the sample's event is kept there as relayed, so not it.
    expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    expect((await listOutboxEvents(org.id)).map((e) => e.id)).not.toContain(event_id);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await deliveriesOf(key, other.id)).toEqual([]);
    expect(await receivedBy("sample-only-b")).toEqual([]);
    expect(await receivedBy("sample-only-a")).toHaveLength(1);
  });
});

describe("the webhooks group's retention and re-sends on an organization's alarm", () => {
  const DAY = 86_400_000;

  /** An endpoint and, for each [id, status, age in days before `at`], an event and its delivery with one attempt, in the organization's object. */
  async function seedDeliveries(orgId: string, at: number, deliveries: [string, "delivered" | "failed" | "pending", number][]) {
    await endpointOf(orgId, `whk_${orgId}`);
    for (const [id, status, days] of deliveries) {
      const then = iso(at - days * DAY);
      await recordedEvent(orgId, `evt_${id}`, then);
      await rowsInObject(
        orgId,
        "INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event, status, attempt_count, created_at, updated_at) VALUES (?, ?, ?, ?, 'inventory.aged_alert', ?, 1, ?, ?)",
        id,
        orgId,
        `whk_${orgId}`,
        `evt_${id}`,
        status,
        then,
        then,
      );
      await rowsInObject(
        orgId,
        "INSERT INTO webhook_attempts (delivery_id, attempt, org_id, attempted_at, duration_ms, outcome) VALUES (?, 1, ?, ?, 30, 'retrying')",
        id,
        orgId,
        then,
      );
    }
  }

  it("its 00:15 run deletes the finished deliveries older than 90 days in the object, with their attempts and events; a pending or younger one stays", async () => {
    const purgeAt = nightlyRuns().agedAt;
    const born = await createOrg();
    await seedDeliveries(born.id, purgeAt, [
      ["dlv_r_old_ok", "delivered", 91],
      ["dlv_r_old_failed", "failed", 120],
      ["dlv_r_old_pending", "pending", 91],
      ["dlv_r_young", "delivered", 89],
    ]);
    const inObject = (table: string, column: string) =>
      rowsInObject<Record<string, string>>(born.id, `SELECT ${column} FROM ${table} WHERE org_id = ? ORDER BY ${column}`, born.id);
    const all = ["dlv_r_old_failed", "dlv_r_old_ok", "dlv_r_old_pending", "dlv_r_young"];
    expect((await inObject("webhook_deliveries", "id")).map((r) => r.id)).toEqual(all);

    const stub = orgStore(env, born.id);
    for (;;) {
      const next = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
      if (next === null || next > purgeAt) break;
      expect(await runDurableObjectAlarm(stub)).toBe(true);
    }
    const kept = ["dlv_r_old_pending", "dlv_r_young"];
    expect((await inObject("webhook_deliveries", "id")).map((r) => r.id)).toEqual(kept);
    expect((await inObject("webhook_attempts", "delivery_id")).map((r) => r.delivery_id)).toEqual(kept);
    expect((await inObject("event_outbox", "id")).map((r) => r.id)).toEqual(kept.map((id) => `evt_${id}`));
    // The cron of the same night purges D1's tables only: the object's young and pending deliveries stay.
    await runCron("15 0 * * *", purgeAt);
    expect((await inObject("webhook_deliveries", "id")).map((r) => r.id)).toEqual(kept);
  });
});

describe("an organization's redelivery or sample whose queue send failed", () => {
  /** The object's next queue send fails, as in a queue outage; its queue is the real one again after. */
  const objectQueueRefusesNext = (orgId: string) =>
    runInDurableObject(orgStore(env, orgId), (instance) => {
      const object = instance as unknown as { env: Env };
      const real = object.env;
      const refuse = async () => {
        object.env = real;
        throw new Error("queue unavailable");
      };
      object.env = { ...real, WEBHOOKS: { send: refuse, sendBatch: refuse } as unknown as Env["WEBHOOKS"] };
    });
  /** An aged alert raised in D1, fanned out and delivered once through the Worker's queue(). */
  async function deliverAgedAlert(orgId: string, storeId: string, stockNo: string) {
    const queue = capturingQueue();
    const data = { stock_no: stockNo, days_on_lot: 45, recommendation: "Reprice" };
    await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "inventory.aged_alert", orgId, storeId, data }], new Date());
    expect(await consumeOne(queue.env, queue.sent.splice(0)[0], 1)).toMatchObject({ acked: true });
    expect(await consumeOne(queue.env, queue.sent.splice(0)[0], 1)).toMatchObject({ acked: true });
  }
  const unsent = (orgId: string) =>
    rowsInObject<{ id: string }>(orgId, "SELECT id FROM webhook_deliveries WHERE redeliver_requested_at IS NOT NULL ORDER BY id");

  it("is sent again by the object's alarm once the sweeper's grace has passed, once: the receiver gets each exactly once", async () => {
    const name = "resend-from-object";
    const { org, store, key, endpoint } = await setup(name, "ok", ["inventory.aged_alert"]);
    await deliverAgedAlert(org.id, store.id, "R1");
    const [delivered] = await deliveriesOf(key, endpoint.id);
    const stub = orgStore(env, org.id);
    const timers = () =>
      runInDurableObject(stub, async (_, state) => ({
        alarm: await state.storage.getAlarm(),
        resend: await state.storage.get<number>("resend_at"),
        nightly: await state.storage.get<number>("nightly_at"),
      }));
    /** The owed rows asked for three minutes ago: past the sweeper's grace. */
    const graceOver = () =>
      runInDurableObject(stub, (_, state) => {
        state.storage.sql.exec(
          "UPDATE webhook_deliveries SET redeliver_requested_at = ? WHERE redeliver_requested_at IS NOT NULL",
          new Date(Date.now() - 3 * 60_000).toISOString(),
        );
      });

    // The queue refuses the redelivery's send: answered 202, owed to the queue in the object, its re-send set the grace after.
    await objectQueueRefusesNext(org.id);
    const redelivered = await call(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivered.id}/redeliver`, { method: "POST", key });
    expect(redelivered.status).toBe(202);
    expect((await unsent(org.id)).map((d) => d.id)).toEqual([delivered.id]);
    const { alarm, resend, nightly } = await timers();
    expect(resend).toBeLessThanOrEqual(Date.now() + 2 * 60_000);
    expect(alarm).toBe(resend);
    expect(alarm).toBeLessThan(nightly ?? 0);
    // Fired within the grace (its request may still be sending it), nothing is sent, and the night's run does not start early.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await unsent(org.id)).toHaveLength(1);
    expect((await timers()).nightly).toBe(nightly);
    // Past the grace, the outbox sweeper (D1's) leaves it: it is the object's to send.
    await graceOver();
    const sweep = capturingQueue();
    await runCron("*/5 * * * *", Date.now(), sweep.env);
    expect(sweep.sent.filter((m) => m.orgId === org.id)).toEqual([]);
    // The queue refuses the object's re-send too: still owed, tried again a minute on, not at once.
    await objectQueueRefusesNext(org.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await unsent(org.id)).toHaveLength(1);
    expect((await timers()).resend).toBeGreaterThan(Date.now() + 50_000);
    // The queue is back: sent once through the real queue, marked sent, delivered.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await unsent(org.id)).toEqual([]);
    await eventually(async () => (await receivedBy(name)).length === 2, 15_000);

    // A sample whose send is refused is owed and re-sent the same way.
    await objectQueueRefusesNext(org.id);
    const sample = await triggerSample(key, endpoint.id, "inventory.aged_alert");
    expect(sample.status).toBe(202);
    const sampled = await sample.json<Deliveries[number]>();
    expect((await unsent(org.id)).map((d) => d.id)).toEqual([sampled.id]);
    expect((await timers()).resend).toBeLessThanOrEqual(Date.now() + 2 * 60_000);
    await graceOver();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await unsent(org.id)).toEqual([]);
    await eventually(async () => (await receivedBy(name)).length === 3, 15_000);
    // Each sent once: its timer cleared (the alarm is the nightly run's), nothing more arrives.
    expect(await timers()).toEqual({ alarm: nightly, resend: undefined, nightly });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const received = (await receivedBy(name)).map((r) => JSON.parse(r.body));
    expect(received.map((r) => [r.id, r.sample])).toEqual([
      [delivered.event_id, false],
      [delivered.event_id, false],
      [sampled.event_id, true],
    ]);
    const listed = await deliveriesOf(key, endpoint.id);
    expect(listed.map((d) => [d.id, d.status, d.attempt_count])).toEqual([
      [sampled.id, "delivered", 1],
      [delivered.id, "delivered", 2],
    ]);
  });
});
