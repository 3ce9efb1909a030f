import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { commitWithEvents } from "../../src/events/emit";
import type { WebhookDeliveryListSchema } from "../../src/routes/webhooks/webhooks.routes";
import { MAX_ENDPOINTS_PER_ORG } from "../../src/routes/webhooks/webhooks.routes";
import { createEndpoint, eventually, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";

async function setup(name: string, behaviour: Parameters<typeof receiverUrl>[0] = "ok") {
  const org = await createOrg();
  const store = await createStore(org.id);
  const { key } = await createApiKey(org.id);
  const endpoint = await createEndpoint(key, { url: receiverUrl(behaviour, name), events: ["compliance.hold_triggered"] });
  await tellReceiverSecret(name, endpoint.secret);
  return { org, store, key, endpoint };
}

const raiseHold = async (orgId: string, storeId: string) =>
  (
    await commitWithEvents(
      env,
      getDb(env.DB),
      [],
      [{ event: "compliance.hold_triggered", orgId, storeId, data: { check_id: "chk_1", reasons: ["ofac_match"] } }],
      new Date(),
    )
  ).eventIds;

describe("delivery end to end through the queue", () => {
  it("POSTs the signed envelope to the receiver, which verifies it with its secret", async () => {
    const { org, store, key, endpoint } = await setup("e2e-ok");
    const [eventId] = await raiseHold(org.id, store.id);

    const [received] = await eventually(async () => (await receivedBy("e2e-ok")).length > 0 && receivedBy("e2e-ok"));
    expect(received.verified).toBe(true);
    expect(received.headers["content-type"]).toBe("application/json");
    expect(received.headers["x-service-webhook-id"]).toBe(eventId);
    expect(received.headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(received.body)).toEqual({
      id: eventId,
      event: "compliance.hold_triggered",
      org_id: org.id,
      store_id: store.id,
      timestamp: expect.stringMatching(/Z$/),
      sample: false,
      data: { check_id: "chk_1", reasons: ["ofac_match"] },
    });

    const log = await eventually(async () => {
      const res = await call(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key });
      const body = await res.json<z.infer<typeof WebhookDeliveryListSchema>>();
      return body.deliveries[0]?.status === "delivered" && body;
    });
    expect(log.deliveries[0].attempts).toEqual([expect.objectContaining({ attempt: 1, response_status: 204, outcome: "delivered" })]);
    expect((await listOutboxEvents(org.id))[0]).toMatchObject({ id: eventId, fanned_out: true });
  });

  it(`an organization with the most endpoints allowed (${MAX_ENDPOINTS_PER_ORG}), all subscribed to one event, gets it at every one`, async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const { key } = await createApiKey(org.id);
    const names = Array.from({ length: MAX_ENDPOINTS_PER_ORG }, (_, i) => `fan-out-${i}`);
    for (const name of names) {
      const endpoint = await createEndpoint(key, { url: receiverUrl("ok", name), events: ["compliance.hold_triggered"] });
      await tellReceiverSecret(name, endpoint.secret);
    }
    const [eventId] = await raiseHold(org.id, store.id);

    const received = await eventually(async () => {
      const logs = await Promise.all(names.map(receivedBy));
      return logs.every((log) => log.length > 0) && logs;
    }, 20_000);
    for (const [delivery] of received) {
      expect(delivery.verified).toBe(true);
      expect(delivery.headers["x-service-webhook-id"]).toBe(eventId);
    }
  });
});
