import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { commitWithEvents } from "../../src/events/emit";
import type { RotatedWebhookSecretSchema, WebhookEndpointSchema } from "../../src/routes/webhooks/webhooks.routes";
import { createEndpoint, eventually, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";
import { capturingQueue, consumeOne } from "../helpers/queue-driver";

type Rotated = z.infer<typeof RotatedWebhookSecretSchema>;
const HOUR_MS = 3_600_000;

afterEach(() => vi.useRealTimers());

/** HMAC-SHA256 as a receiver computes it, independently of the service's signing code. */
async function hmacValue(secret: string, headers: Record<string, string>, body: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signed = `${headers["x-service-webhook-id"]}.${headers["x-service-webhook-timestamp"]}.${body}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(signed)));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function setup(name: string) {
  const org = await createOrg();
  const store = await createStore(org.id);
  const { key } = await createApiKey(org.id);
  const endpoint = await createEndpoint(key, { url: receiverUrl("ok", name), events: ["inventory.aged_alert"] });
  // The receiver keeps the old secret: it verifies during the overlap only if the old signature is sent.
  await tellReceiverSecret(name, endpoint.secret);
  return { org, store, key, endpoint };
}

const rotateSecret = (key: string, id: string, body: unknown) =>
  call(`/api/v1/webhooks/${id}/rotate-secret`, { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

const agedAlert = (orgId: string, storeId: string) => ({
  event: "inventory.aged_alert" as const,
  orgId,
  storeId,
  data: { stock_no: "R1", days_on_lot: 45, recommendation: "Reprice" },
});

describe("POST /api/v1/webhooks/{id}/rotate-secret", () => {
  it("during the overlap every delivery carries both signatures, new first; each verifies with its own secret", async () => {
    const { org, store, key, endpoint } = await setup("rotate-overlap");
    const before = Date.now();
    const res = await rotateSecret(key, endpoint.id, { overlap_hours: 24 });
    expect(res.status).toBe(200);
    const rotated = await res.json<Rotated>();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
    const shown = await (await call(`/api/v1/webhooks/${endpoint.id}`, { key })).json<z.infer<typeof WebhookEndpointSchema>>();
    expect(shown.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
    expect(JSON.stringify(shown)).not.toContain("whsec_");
    // Stored encrypted like the current one: neither secret is in the row in clear.
    const [row] = await rowsInObject(org.id, "SELECT * FROM webhook_endpoints WHERE id = ?", endpoint.id);
    expect(row).toMatchObject({ secret_ciphertext: expect.any(String), previous_secret_ciphertext: expect.any(String) });
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice(6, 30));

    // Through the real queue and consumer to the receiver.
    await commitWithEvents(env, getDb(env.DB), [], [agedAlert(org.id, store.id)], new Date());
    const [received] = await eventually(async () => (await receivedBy("rotate-overlap")).length > 0 && receivedBy("rotate-overlap"));
    const values = received.headers["x-service-signature"].split(" ");
    expect(values).toEqual([
      await hmacValue(rotated.secret, received.headers, received.body),
      await hmacValue(endpoint.secret, received.headers, received.body),
    ]);
    expect(received.verified).toBe(true);
  });

  it("after the overlap only the new secret signs", async () => {
    const { org, store, key, endpoint } = await setup("rotate-after");
    const rotated = await (await rotateSecret(key, endpoint.id, { overlap_hours: 1 })).json<Rotated>();
    const queue = capturingQueue();
    await commitWithEvents(queue.env, getDb(env.DB), [], [agedAlert(org.id, store.id)], new Date());
    const [eventMessage] = queue.sent.splice(0);
    expect(await consumeOne(queue.env, eventMessage, 1)).toMatchObject({ acked: true });
    const [deliveryMessage] = queue.sent.splice(0);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse(rotated.previous_secret_expires_at));
    expect(await consumeOne(queue.env, deliveryMessage, 1)).toMatchObject({ acked: true });
    const shown = await (await call(`/api/v1/webhooks/${endpoint.id}`, { key })).json<z.infer<typeof WebhookEndpointSchema>>();
    expect(shown.previous_secret_expires_at).toBeNull();
    vi.useRealTimers();
    const [received] = await receivedBy("rotate-after");
    expect(received.headers["x-service-signature"]).toBe(await hmacValue(rotated.secret, received.headers, received.body));
  });

  it("with no overlap the old secret stops signing at once (the test ping shows it)", async () => {
    const { key, endpoint } = await setup("rotate-now");
    const rotated = await (await rotateSecret(key, endpoint.id, { overlap_hours: 0 })).json<Rotated>();
    const ping = await call(`/api/v1/webhooks/${endpoint.id}/test`, { method: "POST", key });
    expect(await ping.json()).toMatchObject({ delivered: true });
    const [received] = await receivedBy("rotate-now");
    expect(received.headers["x-service-signature"]).toBe(await hmacValue(rotated.secret, received.headers, received.body));
    expect(received.verified).toBe(false);
  });

  it("refuses overlaps outside 0–168 hours (422) and another organization's endpoint (404, secret unchanged)", async () => {
    const { org, endpoint, key } = await setup("rotate-refused");
    for (const body of [{ overlap_hours: 169 }, { overlap_hours: -1 }, { overlap: 1 }]) {
      expect((await rotateSecret(key, endpoint.id, body)).status, JSON.stringify(body)).toBe(422);
    }
    const stranger = await createApiKey((await createOrg()).id);
    const secrets = () =>
      rowsInObject(org.id, "SELECT secret_ciphertext, previous_secret_ciphertext FROM webhook_endpoints WHERE id = ?", endpoint.id);
    const before = await secrets();
    expect(before).toEqual([{ secret_ciphertext: expect.any(String), previous_secret_ciphertext: null }]);
    expect((await rotateSecret(stranger.key, endpoint.id, {})).status).toBe(404);
    expect(await secrets()).toEqual(before);
  });
});
