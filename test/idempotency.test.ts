import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { getDb } from "../src/db/client";
import { idempotencyKeys } from "../src/db/schema";
import { decryptSecret, encryptSecret } from "../src/events/signing";
import { v1Route } from "../src/http/v1-chain";
import { call, createApiKey, createOrg, createStore } from "./helpers/factories";
import { createIngestKey, deal } from "./helpers/ingest";
import { rowsInObject } from "./helpers/org-storage";
import { runCron } from "./helpers/queue-driver";
import { createBrokerToken } from "./helpers/staff";
import { createTestApp } from "./helpers/test-app";

const HOUR_MS = 3_600_000;
const JSON_TYPE = { "Content-Type": "application/json" };

function post(path: string, credential: Record<string, string>, body: unknown, idempotencyKey?: string, method = "POST") {
  return call(path, {
    method,
    headers: { ...JSON_TYPE, ...credential, ...(idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey }) },
    body: JSON.stringify(body),
  });
}

const apiKeyHeader = (key: string) => ({ "X-Service-API-Key": key });
const brokerHeader = (token: string) => ({ Authorization: `Bearer ${token}` });

async function rowsOf(scope: string) {
  const { results } = await env.DB.prepare("SELECT * FROM idempotency_keys WHERE scope = ?").bind(scope).all<Record<string, unknown>>();
  return results;
}

async function keyLabels(orgId: string) {
  const { results } = await env.DB.prepare("SELECT label FROM api_keys WHERE org_id = ?").bind(orgId).all<{ label: string }>();
  return results.map((row) => row.label);
}

/** How many rows of `table` the organization has, where its data is (its object). */
async function countStored(orgId: string, table: "webhook_endpoints" | "compliance_checks") {
  const [row] = await rowsInObject<{ n: number }>(orgId, `SELECT count(*) AS n FROM ${table} WHERE org_id = ?`, orgId);
  return row.n;
}

const runDailyPurge = (now: Date) => runCron("15 0 * * *", now);

describe("Idempotency-Key on key creation (broker token)", () => {
  it("replays the first answer, raw key included, creates one key, and stores the answer encrypted", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    const body = { label: "DMS sync", rate_limit: 500 };

    const first = await post("/api/public-api/keys", broker, body, "create-dms-key-1");
    const replay = await post("/api/public-api/keys", broker, body, "create-dms-key-1");
    const firstBody = await first.json<{ key: string; id: string }>();

    expect(first.status).toBe(201);
    expect(first.headers.has("Idempotent-Replayed")).toBe(false);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(firstBody);
    expect(replay.headers.get("Content-Type")).toBe(first.headers.get("Content-Type"));
    expect(replay.headers.get("Cache-Control")).toBe("no-store");
    expect(replay.headers.get("X-Request-Id")).not.toBe(first.headers.get("X-Request-Id"));
    expect(await keyLabels(org.id)).toEqual(["DMS sync"]);

    const rows = await rowsOf(org.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key: "create-dms-key-1", status: 201 });
    expect(JSON.stringify(rows)).not.toContain(firstBody.key);
    expect(JSON.stringify(rows)).not.toContain(firstBody.id);
  });

  it("refuses the same key with a different body (422 idempotency_key_reused) and creates nothing more", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    expect((await post("/api/public-api/keys", broker, { label: "first" }, "k-reused")).status).toBe(201);
    const reused = await post("/api/public-api/keys", broker, { label: "second" }, "k-reused");
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ error: "idempotency_key_reused" });
    expect(await keyLabels(org.id)).toEqual(["first"]);
  });

  it("does not keep a validation failure: the corrected request runs with the same key", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    const invalid = await post("/api/public-api/keys", broker, { label: "" }, "k-corrected");
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ error: "validation_error" });
    expect(await rowsOf(org.id)).toEqual([]);

    const corrected = await post("/api/public-api/keys", broker, { label: "fixed" }, "k-corrected");
    expect(corrected.status).toBe(201);
    expect(corrected.headers.has("Idempotent-Replayed")).toBe(false);
    expect(await keyLabels(org.id)).toEqual(["fixed"]);
  });

  it("takes the draft's quoted sf-string form as the same key, and refuses a malformed key with 400", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    expect((await post("/api/public-api/keys", broker, { label: "quoted" }, '"8e03978e-40d5-43e8"')).status).toBe(201);
    const bare = await post("/api/public-api/keys", broker, { label: "quoted" }, "8e03978e-40d5-43e8");
    expect(bare.headers.get("Idempotent-Replayed")).toBe("true");

    for (const malformed of ["", "has space", "x".repeat(256), "caf\u00e9", '"unterminated']) {
      const res = await post("/api/public-api/keys", broker, { label: "never" }, malformed);
      expect(res.status, JSON.stringify(malformed)).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_request" });
    }
    expect(await keyLabels(org.id)).toEqual(["quoted"]);
  });

  it("without the header every request creates", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    await post("/api/public-api/keys", broker, { label: "a" });
    await post("/api/public-api/keys", broker, { label: "a" });
    expect(await keyLabels(org.id)).toEqual(["a", "a"]);
  });
});

describe("the stored answers' own key", () => {
  it("does not open with the webhook secrets key, and an answer stored under that key before is a miss: the request runs anew", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    const body = { label: "Stored before the answers had their own key" };
    const first = await post("/api/public-api/keys", broker, body, "answers-own-key-1");
    expect(first.status).toBe(201);
    const [row] = await rowsOf(org.id);
    await expect(decryptSecret(env.WEBHOOK_SECRETS_KEY, row.response_body_ciphertext as string)).rejects.toThrow();

    // As the answer was stored before: sealed with the webhook secrets key itself.
    const sealedTheOldWay = await encryptSecret(env.WEBHOOK_SECRETS_KEY, JSON.stringify({ old: true }));
    await env.DB.prepare("UPDATE idempotency_keys SET response_body_ciphertext = ? WHERE scope = ?").bind(sealedTheOldWay, org.id).run();
    const retried = await post("/api/public-api/keys", broker, body, "answers-own-key-1");
    expect(retried.status).toBe(201);
    expect(retried.headers.has("Idempotent-Replayed")).toBe(false);
    expect(await keyLabels(org.id)).toEqual([body.label, body.label]);

    // Its answer is stored under the answers' key and replayed from then on.
    const replay = await post("/api/public-api/keys", broker, body, "answers-own-key-1");
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(await retried.json());
    expect(await rowsOf(org.id)).toHaveLength(1);
  });
});

describe("Idempotency-Key on webhook endpoint creation", () => {
  const endpoint = { url: "http://127.0.0.1:9000/hook", events: ["deal.stip_alert"] };

  it("replays the signing secret and registers one endpoint; the stored answer does not hold the secret", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const first = await post("/api/v1/webhooks", apiKeyHeader(key), endpoint, "whk-1");
    const replay = await post("/api/v1/webhooks", apiKeyHeader(key), endpoint, "whk-1");
    const created = await first.json<{ secret: string }>();
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(created);
    expect(await countStored(org.id, "webhook_endpoints")).toBe(1);
    expect(JSON.stringify(await rowsOf(org.id))).not.toContain(created.secret);
  });

  it("shares keys between the credentials of one organization: another API key of it gets the replay", async () => {
    const org = await createOrg();
    const [first, second] = [(await createApiKey(org.id)).key, (await createApiKey(org.id)).key];
    const created = await post("/api/v1/webhooks", apiKeyHeader(first), endpoint, "whk-shared-in-org");
    const again = await post("/api/v1/webhooks", apiKeyHeader(second), endpoint, "whk-shared-in-org");
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(await created.json());
    expect(await countStored(org.id, "webhook_endpoints")).toBe(1);
  });

  it("keeps each organization's keys apart: the same key string creates in both and never replays the other's answer", async () => {
    const [a, b] = [await createOrg(), await createOrg()];
    const keyA = (await createApiKey(a.id)).key;
    const keyB = (await createApiKey(b.id)).key;
    const resA = await post("/api/v1/webhooks", apiKeyHeader(keyA), endpoint, "shared-key");
    const resB = await post("/api/v1/webhooks", apiKeyHeader(keyB), endpoint, "shared-key");
    expect([resA.status, resB.status]).toEqual([201, 201]);
    expect(resB.headers.has("Idempotent-Replayed")).toBe(false);
    const [secretA, secretB] = [(await resA.json<{ secret: string }>()).secret, (await resB.json<{ secret: string }>()).secret];
    expect(secretA).not.toBe(secretB);
    expect([await countStored(a.id, "webhook_endpoints"), await countStored(b.id, "webhook_endpoints")]).toEqual([1, 1]);
  });
});

describe("Idempotency-Key on compliance checks", () => {
  const person = { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", address_zip: "78704" };

  it("writes one audit row, and a replay costs no quota", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id, { dailyLimit: 2 });
    const first = await post("/api/v1/compliance-check", apiKeyHeader(key), person, "check-1");
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Service-RateLimit-Remaining")).toBe("1");
    const firstBody = await first.json();
    for (let i = 0; i < 3; i++) {
      const replay = await post("/api/v1/compliance-check", apiKeyHeader(key), person, "check-1");
      expect(replay.status).toBe(200);
      expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
      expect(replay.headers.get("Cache-Control")).toBe("no-store");
      expect(await replay.json()).toEqual(firstBody);
    }
    expect(await countStored(org.id, "compliance_checks")).toBe(1);

    // The three replays left the quota alone: one more check fits, the one after is refused.
    expect((await post("/api/v1/compliance-check", apiKeyHeader(key), person, "check-2")).status).toBe(200);
    const spent = await post("/api/v1/compliance-check", apiKeyHeader(key), person, "check-3");
    expect(spent.status).toBe(429);
    // A replay repeats an answer already paid for: it is served with the quota spent.
    const replayWhenSpent = await post("/api/v1/compliance-check", apiKeyHeader(key), person, "check-1");
    expect(replayWhenSpent.status).toBe(200);
    expect(replayWhenSpent.headers.get("Idempotent-Replayed")).toBe("true");
    // A 429 is not kept: the key is free again for tomorrow's attempt.
    expect((await rowsOf(org.id)).map((row) => row.key).sort()).toEqual(["check-1", "check-2"]);
  });
});

describe("Idempotency-Key on ingestion", () => {
  it("answers a duplicate sent while the first is still running with 409 idempotency_in_progress, then replays", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const key = await createIngestKey(org.id);
    // Enough deals that the first request is still writing when the second arrives.
    const body = { deals: Array.from({ length: 2000 }, (_, i) => deal(`RACE${i}`, store.id)) };
    const [one, two] = await Promise.all([
      post("/api/v1/ingest/deals", apiKeyHeader(key), body, "race-1"),
      post("/api/v1/ingest/deals", apiKeyHeader(key), body, "race-1"),
    ]);
    const byStatus = [one, two].sort((x, y) => x.status - y.status);
    expect(byStatus.map((res) => res.status)).toEqual([200, 409]);
    expect(byStatus[1].headers.get("Retry-After")).toBe("1");
    expect(await byStatus[1].json()).toMatchObject({ error: "idempotency_in_progress" });
    const answered = await byStatus[0].json();
    expect(answered).toMatchObject({ created: 2000 });

    const replay = await post("/api/v1/ingest/deals", apiKeyHeader(key), body, "race-1");
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(answered);
  });

  it("keeps the handler's own 404 (a store of another organization) and replays it", async () => {
    const org = await createOrg();
    const foreignStore = await createStore((await createOrg()).id);
    const key = await createIngestKey(org.id);
    const path = `/api/v1/ingest/inventory?store_id=${foreignStore.id}`;
    const first = await post(path, apiKeyHeader(key), { units: [] }, "inv-404", "PUT");
    expect(first.status).toBe(404);
    const replay = await post(path, apiKeyHeader(key), { units: [] }, "inv-404", "PUT");
    expect(replay.status).toBe(404);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(await first.json());
  });

  it("takes the query into the fingerprint on PUT /api/v1/ingest/inventory", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const otherStore = await createStore(org.id);
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    const body = {
      units: [
        {
          stock_number: "S1",
          vin: "1HGCM82633A000001",
          year: 2022,
          make: "Honda",
          model: "Accord",
          trim: "EX",
          condition: "used",
          vehicle_type: "car",
          mileage: 1,
          stocked_on: "2026-10-01",
          cost: 1,
          asking_price: 2,
        },
      ],
    };
    const first = await post(`/api/v1/ingest/inventory?store_id=${store.id}`, broker, body, "inv-1", "PUT");
    expect(first.status).toBe(200);
    const elsewhere = await post(`/api/v1/ingest/inventory?store_id=${otherStore.id}`, broker, body, "inv-1", "PUT");
    expect(elsewhere.status).toBe(422);
    expect(await elsewhere.json()).toMatchObject({ error: "idempotency_key_reused" });
  });
});

describe("the 24-hour window", () => {
  it("the daily job purges keys first used more than 24 h ago; the key then runs anew", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    expect((await post("/api/public-api/keys", broker, { label: "old" }, "k-window")).status).toBe(201);
    expect((await post("/api/public-api/keys", broker, { label: "recent" }, "k-recent")).status).toBe(201);
    const now = Date.now();
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ? WHERE scope = ? AND key = 'k-window'")
      .bind(new Date(now - 25 * HOUR_MS).toISOString(), org.id)
      .run();

    await runDailyPurge(new Date(now));
    expect((await rowsOf(org.id)).map((row) => row.key)).toEqual(["k-recent"]);

    const again = await post("/api/public-api/keys", broker, { label: "old" }, "k-window");
    expect(again.status).toBe(201);
    expect(again.headers.has("Idempotent-Replayed")).toBe(false);
    expect(await keyLabels(org.id)).toEqual(["old", "recent", "old"]);
  });

  it("an expired key not yet purged is not replayed either", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    await post("/api/public-api/keys", broker, { label: "first" }, "k-lapsed");
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ? WHERE scope = ?")
      .bind(new Date(Date.now() - 25 * HOUR_MS).toISOString(), org.id)
      .run();
    const again = await post("/api/public-api/keys", broker, { label: "second" }, "k-lapsed");
    expect(again.status).toBe(201);
    expect(await keyLabels(org.id)).toEqual(["first", "second"]);
  });
});

describe("a reservation whose request died", () => {
  async function reserveByHand(scope: string, key: string, ageMs: number, body: unknown) {
    // The fingerprint of the request below, so only the reservation's age decides.
    const bytes = new TextEncoder().encode(`POST /api/public-api/keys\n${JSON.stringify(body)}`);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
    await getDb(env.DB)
      .insert(idempotencyKeys)
      .values({ scope, key, fingerprint: digest, requestId: "dead-request", createdAt: new Date(Date.now() - ageMs).toISOString() });
  }

  it("holds the key (409) for up to 5 minutes, then the key runs anew", async () => {
    const org = await createOrg();
    const broker = brokerHeader((await createBrokerToken(org.id)).token);
    const body = { label: "after a crash" };
    await reserveByHand(org.id, "k-recent-crash", 60_000, body);
    await reserveByHand(org.id, "k-old-crash", 6 * 60_000, body);
    const held = await post("/api/public-api/keys", broker, body, "k-recent-crash");
    expect(held.status).toBe(409);
    expect(await held.json()).toMatchObject({ error: "idempotency_in_progress" });
    const taken = await post("/api/public-api/keys", broker, body, "k-old-crash");
    expect(taken.status).toBe(201);
    expect(await keyLabels(org.id)).toEqual(["after a crash"]);
  });
});

describe("an answered key is never taken over as abandoned", () => {
  it("a completed key six minutes old still replays, and only one resource exists", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = { url: "http://127.0.0.1:9000/hook", events: ["deal.stip_alert"] };
    const first = await post("/api/v1/webhooks", apiKeyHeader(key), endpoint, "whk-answered-6min");
    expect(first.status).toBe(201);
    // Past the 5-minute takeover of an unanswered reservation, well within the 24-hour window.
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ? WHERE scope = ? AND key = 'whk-answered-6min'")
      .bind(new Date(Date.now() - 6 * 60_000).toISOString(), org.id)
      .run();
    const again = await post("/api/v1/webhooks", apiKeyHeader(key), endpoint, "whk-answered-6min");
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(await countStored(org.id, "webhook_endpoints")).toBe(1);
  });
});

describe("server errors", () => {
  it("a 5xx is not kept: the retry with the same key runs again", async () => {
    let calls = 0;
    const { request } = createTestApp((app) =>
      app.openapi(
        v1Route({
          endpoint: "webhooks",
          reads: "primary",
          body: true,
          idempotent: true,
          method: "post",
          path: "/api/v1/flaky-create",
          operationId: "flakyCreate",
          request: { body: { content: { "application/json": { schema: z.object({ n: z.int() }) } } } },
          responses: { 201: { description: "created", content: { "application/json": { schema: z.object({ call: z.int() }) } } } },
        }),
        (c) => {
          calls += 1;
          if (calls === 1) throw new Error("the database went away");
          return c.json({ call: calls }, 201);
        },
      ),
    );
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const send = () =>
      request("/api/v1/flaky-create", {
        method: "POST",
        headers: { ...JSON_TYPE, ...apiKeyHeader(key), "Idempotency-Key": "flaky" },
        body: '{"n":1}',
      });
    expect((await send()).status).toBe(500);
    const retried = await send();
    expect(retried.status).toBe(201);
    expect(await retried.json()).toEqual({ call: 2 });
    const replayed = await send();
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(calls).toBe(2);
  });
});
