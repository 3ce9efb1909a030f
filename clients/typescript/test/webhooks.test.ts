import { exports } from "cloudflare:workers";
import { createHmac } from "node:crypto";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { EVENT_NAMES } from "../../../src/events/emit";
import { createEndpoint, receivedBy, receiverUrl } from "../../../test/helpers/events";
import { createApiKey, createOrg } from "../../../test/helpers/factories";
import { createDealerIntelClient, unwrap, verifyWebhook, type WebhookEvent, type WebhookTestEvent, WebhookVerificationError } from "../src";

const SECRET = "whsec_q0Jm0n6pVYpQ1l3b7rZ7b7gk8n0S9mQ3b3P5bqS3Jp4=";
const NOW = Date.UTC(2026, 10, 26, 12, 30, 0);
const NOW_SECONDS = NOW / 1000;

const event = {
  id: "evt_01JDZ3Q4N6X8M2P5R7T9V1W3Y5",
  event: "inventory.aged_alert",
  org_id: "org_summit",
  store_id: "sto_summit_north",
  timestamp: "2026-11-26T12:30:00.000Z",
  sample: false,
  data: { stock_no: "S24117", days_on_lot: 46, recommendation: "wholesale" },
};
const body = JSON.stringify(event);

/** Signed as DESIGN.md §3 says, independently of the client (node:crypto, not WebCrypto). */
function sign(secret: string, id: string, timestamp: number, rawBody: string) {
  return `sha256=${createHmac("sha256", secret).update(`${id}.${timestamp}.${rawBody}`).digest("hex")}`;
}

function delivery(overrides: { timestamp?: number; signature?: string; secret?: string } = {}) {
  const timestamp = overrides.timestamp ?? NOW_SECONDS;
  return {
    "X-Service-Webhook-Id": event.id,
    "X-Service-Webhook-Timestamp": String(timestamp),
    "X-Service-Signature": overrides.signature ?? sign(overrides.secret ?? SECRET, event.id, timestamp, body),
  };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "verified",
    (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : error),
  );

describe("verifyWebhook", () => {
  it("types the event as the union of the five documented events and the test ping, each with its own data", () => {
    expectTypeOf<WebhookEvent["event"]>().toEqualTypeOf<(typeof EVENT_NAMES)[number] | "webhook.test">();
    expectTypeOf<Extract<WebhookEvent, { event: "webhook.test" }>["data"]>().toEqualTypeOf<{ message: string }>();
    expectTypeOf<keyof Extract<WebhookEvent, { event: "inventory.aged_alert" }>["data"]>().toEqualTypeOf<
      "stock_no" | "days_on_lot" | "recommendation"
    >();
  });

  it("returns the event of a correctly signed delivery, from Fetch headers or a plain header object", async () => {
    expect(await verifyWebhook(SECRET, new Headers(delivery()), body, { now: NOW })).toEqual(event);
    const nodeStyle = Object.fromEntries(Object.entries(delivery()).map(([name, value]) => [name.toLowerCase(), value]));
    const verified = await verifyWebhook(SECRET, nodeStyle, new TextEncoder().encode(body), { now: NOW });
    expect(verified.event).toBe("inventory.aged_alert");
    expect(verified.data).toMatchObject({ stock_no: "S24117", days_on_lot: 46 });
  });

  it("rejects a wrong secret, a changed body, and a signature without its sha256= prefix", async () => {
    expect(await failure(verifyWebhook(SECRET, delivery({ secret: "whsec_someone-else" }), body, { now: NOW }))).toBe("bad_signature");
    expect(await failure(verifyWebhook(SECRET, delivery(), body.replace("46", "4"), { now: NOW }))).toBe("bad_signature");
    const bare = delivery()["X-Service-Signature"].slice("sha256=".length);
    expect(await failure(verifyWebhook(SECRET, delivery({ signature: bare }), body, { now: NOW }))).toBe("bad_signature");
  });

  it("binds the id and the timestamp into the signature", async () => {
    const headers = { ...delivery(), "X-Service-Webhook-Id": "evt_other" };
    expect(await failure(verifyWebhook(SECRET, headers, body, { now: NOW }))).toBe("bad_signature");
    const replayed = { ...delivery(), "X-Service-Webhook-Timestamp": String(NOW_SECONDS + 10) };
    expect(await failure(verifyWebhook(SECRET, replayed, body, { now: NOW }))).toBe("bad_signature");
  });

  it("rejects timestamps more than the tolerance away, in either direction", async () => {
    const at = (skew: number) => delivery({ timestamp: NOW_SECONDS + skew });
    expect(await failure(verifyWebhook(SECRET, at(-300), body, { now: NOW }))).toBe("verified");
    expect(await failure(verifyWebhook(SECRET, at(-301), body, { now: NOW }))).toBe("stale_timestamp");
    expect(await failure(verifyWebhook(SECRET, at(301), body, { now: NOW }))).toBe("stale_timestamp");
    expect(await failure(verifyWebhook(SECRET, at(-100), body, { now: NOW, toleranceSeconds: 60 }))).toBe("stale_timestamp");
  });

  it("accepts either signature during a secret rotation", async () => {
    const rotated = `${sign("whsec_new-secret", event.id, NOW_SECONDS, body)} ${sign(SECRET, event.id, NOW_SECONDS, body)}`;
    expect(await failure(verifyWebhook(SECRET, delivery({ signature: rotated }), body, { now: NOW }))).toBe("verified");
    expect(await failure(verifyWebhook("whsec_new-secret", delivery({ signature: rotated }), body, { now: NOW }))).toBe("verified");
  });

  it("verifies the Worker's real test ping and narrows it to webhook.test", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "client-ping"), events: ["deal.stip_alert"] });
    const api = createDealerIntelClient({ baseUrl: "https://api.test", apiKey: key, fetch: (request) => exports.default.fetch(request) });
    const { data } = await unwrap(api.POST("/api/v1/webhooks/{id}/test", { params: { path: { id: endpoint.id } } }));
    expect(data.delivered).toBe(true);

    const [received] = await receivedBy("client-ping");
    const ping = await verifyWebhook(endpoint.secret, received.headers, received.body);
    if (ping.event !== "webhook.test") throw new Error(`expected the test ping, got ${ping.event}`);
    expectTypeOf(ping).toEqualTypeOf<WebhookTestEvent>();
    expect(ping).toMatchObject({ org_id: org.id, data: { message: expect.any(String) } });
  });

  it("names what is missing or malformed", async () => {
    const { "X-Service-Signature": _, ...unsigned } = delivery();
    expect(await failure(verifyWebhook(SECRET, unsigned, body, { now: NOW }))).toBe("missing_header");
    expect(await failure(verifyWebhook(SECRET, { ...delivery(), "X-Service-Webhook-Timestamp": "2026-11-26T12:30:00Z" }, body, { now: NOW }))).toBe(
      "malformed_timestamp",
    );
    const notJson = "not json";
    const signed = delivery({ signature: sign(SECRET, event.id, NOW_SECONDS, notJson) });
    expect(await failure(verifyWebhook(SECRET, signed, notJson, { now: NOW }))).toBe("malformed_body");
  });
});
