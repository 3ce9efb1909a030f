import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { commitWithEvents } from "../../src/events/emit";
import { webhookUrlProblem } from "../../src/events/url-policy";
import type { WebhookDeliveryListSchema, WebhookEndpointListSchema } from "../../src/routes/webhooks/webhooks.routes";
import type { ErrorBody } from "../helpers/bodies";
import { createEndpoint, eventually, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";
import { createTestApp } from "../helpers/test-app";

const JSON_HEADERS = { "Content-Type": "application/json" };
const send = (path: string, key: string, method: string, body?: unknown) =>
  call(path, { method, key, headers: JSON_HEADERS, body: body === undefined ? undefined : JSON.stringify(body) });

async function orgWithKey(scopes?: string[]) {
  const org = await createOrg();
  return { org, key: (await createApiKey(org.id, { scopes })).key };
}

describe("webhook endpoints", () => {
  it("creates, lists, reads, updates and deletes an endpoint; the secret is shown once and stored encrypted", async () => {
    const { org, key } = await orgWithKey();
    const created = await createEndpoint(key, { url: "https://hooks.example.com/di", events: ["inventory.aged_alert"], description: "Used desk" });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const listed = await (await call("/api/v1/webhooks", { key })).json<z.infer<typeof WebhookEndpointListSchema>>();
    expect(listed.count).toBe(1);
    expect(listed.endpoints[0]).toMatchObject({
      id: created.id,
      url: "https://hooks.example.com/di",
      events: ["inventory.aged_alert"],
      enabled: true,
    });
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const stored = await rowsInObject(org.id, "SELECT * FROM webhook_endpoints WHERE id = ?", created.id);
    expect(stored).toEqual([expect.objectContaining({ id: created.id, secret_ciphertext: expect.any(String) })]);
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice(6));

    const updated = await send(`/api/v1/webhooks/${created.id}`, key, "PATCH", {
      events: ["deal.stip_alert", "compliance.hold_triggered"],
      enabled: false,
    });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({
      events: ["deal.stip_alert", "compliance.hold_triggered"],
      enabled: false,
      url: "https://hooks.example.com/di",
    });
    expect(await (await call(`/api/v1/webhooks/${created.id}`, { key })).json()).toMatchObject({ enabled: false, description: "Used desk" });

    expect((await send(`/api/v1/webhooks/${created.id}`, key, "DELETE")).status).toBe(204);
    expect((await call(`/api/v1/webhooks/${created.id}`, { key })).status).toBe(404);
    expect((await send(`/api/v1/webhooks/${created.id}`, key, "DELETE")).status).toBe(404);
  });

  it("refuses unknown event names, an empty update and over-long fields with 422 details", async () => {
    const { key } = await orgWithKey();
    const bad = await send("/api/v1/webhooks", key, "POST", { url: "https://hooks.example.com/x", events: ["deal.created"] });
    expect(bad.status).toBe(422);
    expect((await bad.json<ErrorBody>()).details?.[0].path).toMatch(/^events/);
    const created = await createEndpoint(key, { url: "https://hooks.example.com/y", events: ["deal.stip_alert"] });
    expect((await send(`/api/v1/webhooks/${created.id}`, key, "PATCH", {})).status).toBe(422);
    expect(
      (await send("/api/v1/webhooks", key, "POST", { url: `https://a.example.com/${"x".repeat(3000)}`, events: ["deal.stip_alert"] })).status,
    ).toBe(422);
  });

  it.each([
    ["http://hooks.example.com/x", "https"],
    ["https://user:pass@hooks.example.com/x", "user name or password"],
    ["https://127.0.0.1/x", "this machine"],
    ["https://10.1.2.3/x", "private"],
    ["https://192.168.0.10/x", "private"],
    ["https://172.16.5.4/x", "private"],
    ["https://169.254.169.254/latest/meta-data", "link-local"],
    ["https://[::1]/x", "loopback"],
    ["https://[fe80::1]/x", "link-local"],
    ["https://[fd00::1]/x", "private"],
    ["https://[::ffff:127.0.0.1]/x", "loopback"],
    ["https://2130706433/x", "this machine"],
    ["https://localhost/x", "this machine"],
    ["https://db.internal/x", "internal"],
    ["ftp://hooks.example.com/x", "https"],
  ])("refuses %s", async (url, reason) => {
    const { key } = await orgWithKey();
    const res = await send("/api/v1/webhooks", key, "POST", { url, events: ["deal.stip_alert"] });
    expect(res.status).toBe(422);
    const body = await res.json<ErrorBody>();
    expect(body.details?.[0].path).toBe("url");
    expect(body.details?.[0].message.toLowerCase()).toContain(reason.split(" ")[0].toLowerCase());
  });

  it("refuses http://[::1] for pointing at this machine, and names the local allowance", async () => {
    const { key } = await orgWithKey();
    const res = await send("/api/v1/webhooks", key, "POST", { url: "http://[::1]:9000/hook", events: ["deal.stip_alert"] });
    expect(res.status).toBe(422);
    const message = (await res.json<ErrorBody>()).details?.[0].message ?? "";
    expect(message).toMatch(/this machine \(a loopback address\)/);
    expect(message).toContain("http://localhost and http://127.0.0.1");
    expect(message).toContain("WEBHOOK_ALLOW_LOCALHOST");
    expect(message).not.toContain("https");
  });

  it("allows http://localhost and http://127.0.0.1 only with the development flag", async () => {
    expect(webhookUrlProblem("http://localhost:9000/hook", true)).toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:9000/hook", true)).toBeNull();
    expect(webhookUrlProblem("http://10.0.0.1/hook", true)).not.toBeNull();

    const { org } = await orgWithKey();
    const { key } = await createApiKey(org.id);
    const { request } = createTestApp(undefined, { ...env, WEBHOOK_ALLOW_LOCALHOST: "false" });
    for (const url of ["http://localhost:9000/hook", "http://127.0.0.1:9000/hook"]) {
      const res = await request("/api/v1/webhooks", {
        method: "POST",
        headers: { ...JSON_HEADERS, "X-Service-API-Key": key },
        body: JSON.stringify({ url, events: ["deal.stip_alert"] }),
      });
      expect(res.status).toBe(422);
    }
  });

  it("holds the 20-endpoint cap under 30 simultaneous creates: exactly 20 stored, the rest answered 422 too_many_endpoints", async () => {
    const { org, key } = await orgWithKey();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send("/api/v1/webhooks", key, "POST", { url: `https://hooks.example.com/cap/${i}`, events: ["deal.stip_alert"] }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 422)).toHaveLength(10);
    for (const res of answers.filter((r) => r.status === 422)) {
      expect(await res.json()).toMatchObject({ error: "validation_error", details: [{ path: "url", code: "too_many_endpoints" }] });
    }
    const created = answers.find((res) => res.status === 201);
    expect(await created?.json()).toMatchObject({
      enabled: true,
      description: "",
      disabled_reason: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
    });
    expect(await rowsInObject(org.id, "SELECT count(*) AS n FROM webhook_endpoints WHERE org_id = ?", org.id)).toEqual([{ n: 20 }]);
    // Room again after a delete: the cap counts what is stored, not what was ever created.
    const { endpoints } = await (await call("/api/v1/webhooks", { key })).json<z.infer<typeof WebhookEndpointListSchema>>();
    expect((await send(`/api/v1/webhooks/${endpoints[0].id}`, key, "DELETE")).status).toBe(204);
    expect((await send("/api/v1/webhooks", key, "POST", { url: "https://hooks.example.com/cap/again", events: ["deal.stip_alert"] })).status).toBe(
      201,
    );
    expect((await send("/api/v1/webhooks", key, "POST", { url: "https://hooks.example.com/cap/over", events: ["deal.stip_alert"] })).status).toBe(
      422,
    );
  });

  it("needs the webhooks scope", async () => {
    const { key } = await orgWithKey(["inventory"]);
    expect((await call("/api/v1/webhooks", { key })).status).toBe(403);
    const { key: scoped } = await orgWithKey(["webhooks"]);
    expect((await call("/api/v1/webhooks", { key: scoped })).status).toBe(200);
  });

  it("another organization's endpoint and deliveries answer 404 and never appear in its lists", async () => {
    const a = await orgWithKey();
    const b = await orgWithKey();
    const endpoint = await createEndpoint(a.key, { url: receiverUrl("ok", "isolation-a"), events: ["deal.stip_alert"] });
    await commitWithEvents(
      env,
      getDb(env.DB),
      [],
      [{ event: "deal.stip_alert", orgId: a.org.id, storeId: null, data: { deal_number: "D1" } }],
      new Date(),
    );
    const deliveries = await eventually(async () => {
      const body = await (await call(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key: a.key })).json<z.infer<typeof WebhookDeliveryListSchema>>();
      return body.deliveries.length > 0 && body.deliveries;
    });

    const paths = [
      ["GET", `/api/v1/webhooks/${endpoint.id}`],
      ["PATCH", `/api/v1/webhooks/${endpoint.id}`],
      ["DELETE", `/api/v1/webhooks/${endpoint.id}`],
      ["GET", `/api/v1/webhooks/${endpoint.id}/deliveries`],
      ["POST", `/api/v1/webhooks/${endpoint.id}/deliveries/${deliveries[0].id}/redeliver`],
      ["POST", `/api/v1/webhooks/${endpoint.id}/test`],
      ["POST", `/api/v1/webhooks/${endpoint.id}/trigger`],
    ];
    for (const [method, path] of paths) {
      const body = method === "PATCH" ? { enabled: false } : path.endsWith("/trigger") ? { event: "deal.stip_alert" } : undefined;
      const res = await send(path, b.key, method, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await (await call("/api/v1/webhooks", { key: b.key })).json()).toEqual({ count: 0, endpoints: [] });
    // B's events never reach A's endpoint (A's own delivery arrived first: a loaded machine may list it before sending it).
    await eventually(async () => (await receivedBy("isolation-a")).length === 1);
    await commitWithEvents(env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: b.org.id, storeId: null, data: {} }], new Date());
    await new Promise((r) => setTimeout(r, 1500));
    expect((await receivedBy("isolation-a")).length).toBe(1);
    expect(await (await call(`/api/v1/webhooks/${endpoint.id}`, { key: a.key })).json()).toMatchObject({ enabled: true });
  });
});

describe("test ping and redelivery", () => {
  it("POST /test sends a signed webhook.test envelope and reports the answer", async () => {
    const { org, key } = await orgWithKey();
    const store = await createStore(org.id, { isPrimary: true });
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "ping-1"), events: ["deal.stip_alert"] });
    await tellReceiverSecret("ping-1", endpoint.secret);
    const res = await call(`/api/v1/webhooks/${endpoint.id}/test`, { method: "POST", key });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ delivered: true, response_status: 204, error: null });
    const [received] = await receivedBy("ping-1");
    expect(received.verified).toBe(true);
    expect(JSON.parse(received.body)).toMatchObject({ event: "webhook.test", org_id: org.id, store_id: store.id, sample: true });

    const failing = await createEndpoint(key, { url: receiverUrl("always-fail", "ping-2"), events: ["deal.stip_alert"] });
    expect(await (await call(`/api/v1/webhooks/${failing.id}/test`, { method: "POST", key })).json()).toMatchObject({
      delivered: false,
      response_status: 503,
      error: expect.stringContaining("503"),
    });
  });

  it("redelivers a delivery with the same webhook id and records the new attempt", async () => {
    const { org, key } = await orgWithKey();
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "redeliver-1"), events: ["deal.stip_alert"] });
    await tellReceiverSecret("redeliver-1", endpoint.secret);
    await commitWithEvents(
      env,
      getDb(env.DB),
      [],
      [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: { deal_number: "R1" } }],
      new Date(),
    );
    const deliveriesPath = `/api/v1/webhooks/${endpoint.id}/deliveries`;
    const [first] = await eventually(async () => {
      const body = await (await call(deliveriesPath, { key })).json<z.infer<typeof WebhookDeliveryListSchema>>();
      return body.deliveries[0]?.status === "delivered" && body.deliveries;
    });

    const res = await call(`${deliveriesPath}/${first.id}/redeliver`, { method: "POST", key });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ id: first.id, status: "pending" });
    await eventually(async () => {
      const body = await (await call(deliveriesPath, { key })).json<z.infer<typeof WebhookDeliveryListSchema>>();
      return body.deliveries[0].status === "delivered" && body.deliveries[0].attempts.length === 2;
    });
    const received = await receivedBy("redeliver-1");
    expect(received).toHaveLength(2);
    expect(received.every((r) => r.verified)).toBe(true);
    expect(received[0].headers["x-service-webhook-id"]).toBe(received[1].headers["x-service-webhook-id"]);

    expect((await call(`${deliveriesPath}/dlv_nope/redeliver`, { method: "POST", key })).status).toBe(404);
    await send(`/api/v1/webhooks/${endpoint.id}`, key, "PATCH", { enabled: false });
    expect((await call(`${deliveriesPath}/${first.id}/redeliver`, { method: "POST", key })).status).toBe(422);
  });
});
