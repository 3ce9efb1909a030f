import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApiKey, createOrg, createStore, createUnit } from "../../../test/helpers/factories";
import { createBrokerToken } from "../../../test/helpers/staff";
import { createDealerIntelClient, DealerIntelError, unwrap } from "../src";

/** The Worker itself, in this workerd: the client talks to it exactly as it would over the network. */
const worker = (request: Request) => exports.default.fetch(request);
const BASE_URL = "https://api.test";

async function orgWithUnit() {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  const { stockNumber } = await createUnit(org.id, store.id, { stockedOn: "2026-09-01" });
  return { org, stockNumber };
}

/** A fetch answering `statuses` in turn, then passing requests to the Worker; it records every call. */
function flakyWorker(statuses: number[], headers: Record<string, string> = {}) {
  const calls: { method: string; body: string; idempotencyKey: string | null }[] = [];
  const fetch = async (request: Request) => {
    calls.push({ method: request.method, body: await request.clone().text(), idempotencyKey: request.headers.get("Idempotency-Key") });
    const status = statuses[calls.length - 1];
    if (status === undefined) return worker(request);
    return Response.json({ error: "internal_error", message: "injected", request_id: `req-${calls.length}` }, { status, headers });
  };
  return { fetch, calls };
}

describe("the TypeScript client against the running Worker", () => {
  it("reads a feed with the key header, and reports the quota figures from the headers", async () => {
    const { org, stockNumber } = await orgWithUnit();
    const { key } = await createApiKey(org.id, { dailyLimit: 50 });
    const client = createDealerIntelClient({ baseUrl: BASE_URL, apiKey: key, fetch: worker });

    const first = await unwrap(client.GET("/api/v1/inventory"));
    expect(first.data.inventory.map((unit) => unit.stock_number)).toEqual([stockNumber]);
    expect(first.quota).toMatchObject({ limit: 50, remaining: 49 });
    expect(first.quota?.resetAt.getUTCHours()).toBe(0);
    expect(first.requestId).toBeTruthy();

    const second = await unwrap(client.GET("/api/v1/inventory"));
    expect(second.quota?.remaining).toBe(48);
  });

  it("never shows one organization's data to another organization's key", async () => {
    const a = await orgWithUnit();
    const b = await orgWithUnit();
    const { key } = await createApiKey(b.org.id);
    const { data } = await unwrap(createDealerIntelClient({ baseUrl: BASE_URL, apiKey: key, fetch: worker }).GET("/api/v1/inventory"));
    expect(data.inventory.map((unit) => unit.stock_number)).toEqual([b.stockNumber]);
    expect(data.inventory.map((unit) => unit.stock_number)).not.toContain(a.stockNumber);
  });

  it("calls the public endpoints without a key", async () => {
    const { data, quota } = await unwrap(createDealerIntelClient({ baseUrl: BASE_URL, fetch: worker }).GET("/api/public/stats"));
    expect(typeof data.organizations_evaluated).toBe("number");
    expect(quota).toBeNull();
  });

  it("throws a typed error with the code, message and request id, and does not retry a 4xx", async () => {
    const { fetch, calls } = flakyWorker([]);
    const client = createDealerIntelClient({ baseUrl: BASE_URL, apiKey: "lak_not-a-real-key", fetch });
    const error = await unwrap(client.GET("/api/v1/inventory")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DealerIntelError);
    expect(error).toMatchObject({ status: 401, error: "unauthorized", details: [] });
    expect((error as DealerIntelError).message).toMatch(/X-Service-API-Key/);
    expect((error as DealerIntelError).requestId).toMatch(/.+/);
    expect(calls).toHaveLength(1);
  });

  it("says plainly when a path does not exist, and when an answer is not the API's", async () => {
    const client = createDealerIntelClient({ baseUrl: BASE_URL, apiKey: "lak_not-a-real-key", fetch: worker });
    // A path outside the document is a type error; in JavaScript, or cast, the API names it.
    const missing = await unwrap(client.GET("/api/v1/invntory" as "/api/v1/inventory")).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, error: "not_found", message: "No endpoint at GET /api/v1/invntory." });

    const elsewhere = createDealerIntelClient({
      baseUrl: BASE_URL,
      fetch: async () => new Response("<html>Not Found</html>", { status: 404, headers: { "Content-Type": "text/html" } }),
    });
    const notApi = await unwrap(elsewhere.GET("/api/public/stats")).catch((e: unknown) => e);
    expect(notApi).toBeInstanceOf(DealerIntelError);
    expect(notApi).toMatchObject({ status: 404, error: "unknown_error" });
    expect((notApi as DealerIntelError).message).toMatch(/^HTTP 404.*without the API's error body: check that baseUrl is the API's origin/);

    for (const baseUrl of [`${BASE_URL}/api`, `${BASE_URL}/api/v1/`]) {
      expect(() => createDealerIntelClient({ baseUrl }), baseUrl).toThrow(/baseUrl is the API's origin, without \/api/);
    }
  });

  it("carries the validation details of a 422", async () => {
    const org = await createOrg();
    const broker = await createBrokerToken(org.id);
    const client = createDealerIntelClient({ baseUrl: BASE_URL, fetch: worker, headers: { Authorization: `Bearer ${broker.token}` } });
    const error = await unwrap(client.POST("/api/public-api/keys", { body: { label: "", rate_limit: 0 } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 422, error: "validation_error" });
    expect((error as DealerIntelError).details.map((d) => d.path).sort()).toEqual(["label", "rate_limit"]);
  });

  it("reports the reset time of a spent quota on the 429", async () => {
    const { org } = await orgWithUnit();
    const { key } = await createApiKey(org.id, { dailyLimit: 1 });
    const client = createDealerIntelClient({ baseUrl: BASE_URL, apiKey: key, fetch: worker });
    await unwrap(client.GET("/api/v1/inventory"));
    const error = (await unwrap(client.GET("/api/v1/inventory")).catch((e: unknown) => e)) as DealerIntelError;
    expect(error).toMatchObject({ status: 429, error: "daily_rate_limit_reached", quota: { limit: 1, remaining: 0 } });
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.body).toMatchObject({ limit: 1, used: 1 });
    // Typed: reset_at is a string on the body, no cast needed.
    const resetAt: string | undefined = error.body?.reset_at;
    expect(new Date(resetAt ?? "").getUTCHours()).toBe(0);
  });
});

describe("retries", () => {
  const noWait = { sleep: async () => {} };

  it("retries 500 and 503 with growing waits, resending the same body, then succeeds", async () => {
    const org = await createOrg();
    const broker = await createBrokerToken(org.id);
    const { fetch, calls } = flakyWorker([503, 500]);
    const waits: number[] = [];
    const client = createDealerIntelClient({
      baseUrl: BASE_URL,
      fetch,
      headers: { Authorization: `Bearer ${broker.token}` },
      retry: { baseDelayMs: 100, sleep: async (ms) => void waits.push(ms) },
    });
    const { data } = await unwrap(client.POST("/api/public-api/keys", { body: { label: "retried" } }));
    expect(data.label).toBe("retried");
    expect(calls.map((c) => c.body)).toEqual(Array(3).fill(JSON.stringify({ label: "retried" })));
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it("waits as long as Retry-After asks, within the cap", async () => {
    const { fetch } = flakyWorker([503], { "Retry-After": "2" });
    const waits: number[] = [];
    const client = createDealerIntelClient({ baseUrl: BASE_URL, fetch, retry: { sleep: async (ms) => void waits.push(ms) } });
    await unwrap(client.GET("/api/public/stats"));
    expect(waits).toEqual([2000]);
  });

  it("gives up after the configured retries and throws the last error", async () => {
    const { fetch, calls } = flakyWorker([500, 500, 500]);
    const client = createDealerIntelClient({ baseUrl: BASE_URL, fetch, retry: { retries: 2, ...noWait } });
    const error = await unwrap(client.GET("/api/public/stats")).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, error: "internal_error", requestId: "req-3" });
    expect(calls).toHaveLength(3);
  });

  it("does not retry a 429 or any other 4xx", async () => {
    const { fetch, calls } = flakyWorker([429]);
    const client = createDealerIntelClient({ baseUrl: BASE_URL, fetch, retry: noWait });
    await expect(unwrap(client.GET("/api/public/stats"))).rejects.toMatchObject({ status: 429 });
    expect(calls).toHaveLength(1);
  });
});

describe("idempotency keys", () => {
  const noWait = { sleep: async () => {} };
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  async function brokerClient(fetch: (request: Request) => Promise<Response>) {
    const org = await createOrg();
    const broker = await createBrokerToken(org.id);
    const client = createDealerIntelClient({ baseUrl: BASE_URL, fetch, headers: { Authorization: `Bearer ${broker.token}` }, retry: noWait });
    const labels = async () =>
      (await env.DB.prepare("SELECT label FROM api_keys WHERE org_id = ?").bind(org.id).all<{ label: string }>()).results.map((r) => r.label);
    return { client, labels };
  }

  it("sends a fresh key on each create, and the same key on every retry of it", async () => {
    const { fetch, calls } = flakyWorker([503, 500]);
    const { client, labels } = await brokerClient(fetch);
    await unwrap(client.POST("/api/public-api/keys", { body: { label: "retried" } }));
    const [key] = calls.map((c) => c.idempotencyKey);
    expect(key).toMatch(UUID);
    expect(calls.map((c) => c.idempotencyKey)).toEqual([key, key, key]);

    await unwrap(client.POST("/api/public-api/keys", { body: { label: "retried" } }));
    expect(calls[3].idempotencyKey).toMatch(UUID);
    expect(calls[3].idempotencyKey).not.toBe(key);
    expect(await labels()).toEqual(["retried", "retried"]);
  });

  it("retries a create whose answer was lost on the network, and the server creates once", async () => {
    let attempts = 0;
    const lossy = async (request: Request) => {
      attempts += 1;
      const response = await worker(request);
      if (attempts === 1) throw new TypeError("fetch failed: connection reset");
      return response;
    };
    const { client, labels } = await brokerClient(lossy);
    const { data, response } = await unwrap(client.POST("/api/public-api/keys", { body: { label: "once" } }));
    expect(attempts).toBe(2);
    expect(response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(data.key).toMatch(/^lak_/);
    expect(await labels()).toEqual(["once"]);
  });

  it("waits out a 409 idempotency_in_progress with the same key", async () => {
    const keys: (string | null)[] = [];
    const busyOnce = async (request: Request) => {
      keys.push(request.headers.get("Idempotency-Key"));
      if (keys.length === 1) {
        return Response.json(
          { error: "idempotency_in_progress", message: "busy", request_id: "r" },
          { status: 409, headers: { "Retry-After": "1" } },
        );
      }
      return worker(request);
    };
    const { client, labels } = await brokerClient(busyOnce);
    await unwrap(client.POST("/api/public-api/keys", { body: { label: "waited" } }));
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(await labels()).toEqual(["waited"]);
  });

  it("keeps a key the caller passes", async () => {
    const { fetch, calls } = flakyWorker([500]);
    const { client } = await brokerClient(fetch);
    await unwrap(client.POST("/api/public-api/keys", { body: { label: "mine" }, params: { header: { "Idempotency-Key": "order-4711" } } }));
    expect(calls.map((c) => c.idempotencyKey)).toEqual(["order-4711", "order-4711"]);
  });

  it("sends no key where the server takes none, and does not retry such a write after a network error", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const seen: (string | null)[] = [];
    const unreachable = async (request: Request) => {
      seen.push(request.headers.get("Idempotency-Key"));
      throw new TypeError("fetch failed");
    };
    const client = createDealerIntelClient({ baseUrl: BASE_URL, apiKey: key, fetch: unreachable, retry: noWait });
    await expect(client.POST("/api/v1/gross-calc", { body: { purchase_price: 18500, selling_price: 22995, vehicle_type: "suv" } })).rejects.toThrow(
      "fetch failed",
    );
    expect(seen).toEqual([null]);
    await expect(client.GET("/api/v1/inventory")).rejects.toThrow("fetch failed");
    expect(seen).toEqual([null, null, null, null, null]);
  });
});
