import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { getDb } from "../../src/db/client";
import type { RetentionRule } from "../../src/db/queries/retention";
import { eventOutbox } from "../../src/db/schema";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { decryptSecret } from "../../src/events/signing";
import { limitedClient } from "../../src/http/credential-failures";
import { purgeExpiredChunks, retentionRule } from "../../src/jobs/purge-expired-records";
import { purgeExpiredSandboxes } from "../../src/jobs/purge-expired-sandboxes";
import { sandboxAddressHash } from "../../src/routes/sandboxes/sandboxes.service";
import type { ComplianceSettingsSchema, LenderPanelSchema, StoreSettingsSchema } from "../../src/routes/settings/settings.routes";
import { createEndpoint, listOutboxEvents, receiverUrl } from "../helpers/events";
import { call, createApiKey, createOrg, createStore, createUnit } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { rowsInObject } from "../helpers/org-storage";
import { brokerCall, createBrokerToken } from "../helpers/staff";

/**
 * Simultaneous writes to one thing, then the stored rows, the audit rows and the events held
 * against what each answer said (issue 34; docs/reliability.md, "Simultaneous writes"). The
 * requests go through the Worker together, so their reads and writes interleave as they would on
 * one isolate in production. Each organization is in its storage object, where every organization
 * lives now: the promises hold there (the stored rows are read where they are, `rowsInObject`).
 */

type Store = z.infer<typeof StoreSettingsSchema>;
type Panel = z.infer<typeof LenderPanelSchema>;
type Compliance = z.infer<typeof ComplianceSettingsSchema>;

interface AuditRow {
  store_id: string | null;
  field: string;
  old_value: string;
  new_value: string;
}

const auditOf = (orgId: string, field: string) =>
  rowsInObject<AuditRow & Record<string, string | null>>(
    orgId,
    "SELECT store_id, field, old_value, new_value FROM settings_audit WHERE org_id = ? AND field = ?",
    orgId,
    field,
  );

/**
 * The audit rows as a chain from `start`: each row's old value is the previous row's new value.
 * Returns the values in order; fails if any row replaced a value that was not the one stored.
 */
function chainFrom(start: string, rows: readonly AuditRow[]): string[] {
  const byOld = new Map<string, AuditRow[]>();
  for (const row of rows) byOld.set(row.old_value, [...(byOld.get(row.old_value) ?? []), row]);
  const chain = [start];
  for (let value = start; chain.length <= rows.length; ) {
    const next = byOld.get(value) ?? [];
    // Two rows replacing the same value is the false trail: both claim to have seen it.
    expect(next, `rows replacing ${value}`).toHaveLength(1);
    value = next[0].new_value;
    chain.push(value);
  }
  return chain;
}

async function orgWithStores(count = 1) {
  const org = await createOrg();
  const stores = [];
  for (let i = 0; i < count; i++) stores.push(await createStore(org.id, { isPrimary: i === 0 }));
  return { org, stores, broker: (await createBrokerToken(org.id)).token };
}

describe("PATCH /api/settings/stores/{id}, six at once", () => {
  it("answers each, and the audit rows are a true chain from 45 ending at the stored value", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}`;
    const values = [50, 51, 52, 53, 54, 55];
    const answers = await Promise.all(values.map((days) => brokerCall(path, broker, { method: "PATCH", body: { aged_threshold_days: days } })));
    expect(answers.map((res) => res.status)).toEqual(values.map(() => 200));
    // Each answer is the settings its own change made.
    expect(await Promise.all(answers.map(async (res) => (await res.json<Store>()).aged_threshold_days))).toEqual(values);

    const rows = await auditOf(org.id, "aged_threshold_days");
    expect(rows).toHaveLength(6);
    const chain = chainFrom("45", rows);
    expect(chain.slice(1).map(Number).sort()).toEqual(values);
    const stored = await (await brokerCall(path, broker)).json<Store>();
    expect(String(stored.aged_threshold_days)).toBe(chain.at(-1));
  });

  it("with If-Match on the same ETag: one change is made, the other five are 412 and write nothing", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}`;
    const read = await brokerCall(path, broker);
    const etag = read.headers.get("ETag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const values = [50, 51, 52, 53, 54, 55];
    const answers = await Promise.all(
      values.map((days) => brokerCall(path, broker, { method: "PATCH", body: { aged_threshold_days: days }, headers: { "If-Match": etag } })),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(5);
    const winner = answers[statuses.indexOf(200)];
    const won = (await winner.json<Store>()).aged_threshold_days;
    for (const res of answers.filter((r) => r.status === 412)) expect(await res.json()).toMatchObject({ error: "precondition_failed" });

    const rows = await auditOf(org.id, "aged_threshold_days");
    expect(rows.map((r) => [r.old_value, r.new_value])).toEqual([["45", String(won)]]);
    const again = await brokerCall(path, broker);
    expect((await again.json<Store>()).aged_threshold_days).toBe(won);
    // The answer's ETag is the new version's: it is what a read now gives, and it is not the old one.
    expect(winner.headers.get("ETag")).toBe(again.headers.get("ETag"));
    expect(again.headers.get("ETag")).not.toBe(etag);
  });

  it("If-Match: a stale ETag is 412 and changes nothing; `*` and the current ETag are accepted; a weak tag never matches", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}`;
    const first = (await brokerCall(path, broker)).headers.get("ETag") ?? "";
    const changed = await brokerCall(path, broker, { method: "PATCH", body: { pack_used: 600 }, headers: { "If-Match": first } });
    expect(changed.status).toBe(200);
    const stale = await brokerCall(path, broker, { method: "PATCH", body: { pack_used: 700 }, headers: { "If-Match": first } });
    expect(stale.status).toBe(412);
    const weak = await brokerCall(path, broker, {
      method: "PATCH",
      body: { pack_used: 700 },
      headers: { "If-Match": `W/${changed.headers.get("ETag")}` },
    });
    expect(weak.status).toBe(412);
    const listed = await brokerCall(path, broker, {
      method: "PATCH",
      body: { pack_used: 700 },
      headers: { "If-Match": `${first}, ${changed.headers.get("ETag")}` },
    });
    expect(listed.status).toBe(200);
    expect((await brokerCall(path, broker, { method: "PATCH", body: { pack_used: 800 }, headers: { "If-Match": "*" } })).status).toBe(200);
    expect((await auditOf(org.id, "pack_used")).map((r) => r.new_value)).toEqual(expect.arrayContaining(["600", "700", "800"]));
    expect(await auditOf(org.id, "pack_used")).toHaveLength(3);
  });
});

describe("PUT /api/settings/stores/{id}/lender-panel, five at once", () => {
  it("answers each with its own panel; the audit rows are a chain from the empty panel ending at the stored one", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}/lender-panel`;
    const { results: programs } = await env.DB.prepare("SELECT id FROM lender_programs ORDER BY id LIMIT 5").all<{ id: string }>();
    const panels = programs.map((_, i) => programs.slice(0, i + 1).map((p) => p.id));
    const answers = await Promise.all(panels.map((ids) => brokerCall(path, broker, { method: "PUT", body: { programs: ids } })));
    expect(answers.map((res) => res.status)).toEqual(panels.map(() => 200));
    const answered = await Promise.all(answers.map(async (res) => (await res.json<Panel>()).programs.map((p) => p.id).sort()));
    expect(answered).toEqual(panels.map((ids) => [...ids].sort()));

    const rows = await auditOf(org.id, "programs");
    expect(rows).toHaveLength(5);
    const chain = chainFrom("[]", rows);
    const stored = (await (await brokerCall(path, broker)).json<Panel>()).programs.map((p) => p.id).sort();
    expect(JSON.stringify(stored)).toBe(chain.at(-1));
  });
});

describe("PUT …/lender-panel, five panels of the same size at once", () => {
  it("still a true chain: the check compares which programs are stored, not only how many", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}/lender-panel`;
    const { results: programs } = await env.DB.prepare("SELECT id FROM lender_programs ORDER BY id LIMIT 6").all<{ id: string }>();
    expect((await brokerCall(path, broker, { method: "PUT", body: { programs: [programs[5].id] } })).status).toBe(200);
    const panels = programs.slice(0, 5).map((p) => [p.id]);
    const answers = await Promise.all(panels.map((ids) => brokerCall(path, broker, { method: "PUT", body: { programs: ids } })));
    expect(answers.map((res) => res.status)).toEqual(panels.map(() => 200));
    const rows = await auditOf(org.id, "programs");
    expect(rows).toHaveLength(6);
    const chain = chainFrom("[]", rows);
    const stored = (await (await brokerCall(path, broker)).json<Panel>()).programs.map((p) => p.id);
    expect(JSON.stringify(stored)).toBe(chain.at(-1));
  });
});

describe("PATCH /api/settings/compliance, five at once on an organization with no row of its own", () => {
  it("creates the row once; the audit rows are a chain from the default ending at the stored value", async () => {
    const { org, broker } = await orgWithStores();
    const scores = [86, 87, 88, 89, 90];
    const answers = await Promise.all(
      scores.map((flag) => brokerCall("/api/settings/compliance", broker, { method: "PATCH", body: { flag_score: flag } })),
    );
    expect(answers.map((res) => res.status)).toEqual(scores.map(() => 200));
    expect(await Promise.all(answers.map(async (res) => (await res.json<Compliance>()).flag_score))).toEqual(scores);

    const rows = await auditOf(org.id, "flag_score");
    expect(rows).toHaveLength(5);
    const chain = chainFrom("85", rows);
    const stored = await (await brokerCall("/api/settings/compliance", broker)).json<Compliance>();
    expect(String(stored.flag_score)).toBe(chain.at(-1));
    expect(stored.is_default).toBe(false);
  });
});

describe("webhook endpoints", () => {
  it("five simultaneous PATCHes: each answer is its own change; the stored endpoint is the last one applied, whole (no field from two requests)", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: "https://hooks.example.com/a", events: ["deal.stip_alert"] });
    const patches = [1, 2, 3, 4, 5].map((n) => ({ url: `https://hooks.example.com/${n}`, description: `change ${n}` }));
    const answers = await Promise.all(
      patches.map((body) =>
        call(`/api/v1/webhooks/${endpoint.id}`, {
          method: "PATCH",
          key,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(patches.map(() => 200));
    const answered = await Promise.all(answers.map((res) => res.json<{ url: string; description: string; updated_at: string }>()));
    for (const [i, body] of answered.entries()) expect(body).toMatchObject(patches[i]);
    const [stored] = await rowsInObject(org.id, "SELECT url, description FROM webhook_endpoints WHERE id = ?", endpoint.id);
    expect(patches).toContainEqual(stored);
  });

  it("three simultaneous DELETEs of one endpoint: one 204, two 404, its deliveries gone", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: "https://hooks.example.com/a", events: ["deal.stip_alert"] });
    const answers = await Promise.all([1, 2, 3].map(() => call(`/api/v1/webhooks/${endpoint.id}`, { method: "DELETE", key })));
    expect(answers.map((res) => res.status).sort()).toEqual([204, 404, 404]);
    const [left] = await rowsInObject<{ n: number }>(org.id, "SELECT count(*) AS n FROM webhook_endpoints WHERE id = ?", endpoint.id);
    expect(left.n).toBe(0);
  });
});

describe("webhook secret rotation", () => {
  it("three simultaneous rotations: each answers a new secret; the stored pair is two of them in turn (current, and the one it replaced)", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: "https://hooks.example.com/a", events: ["deal.stip_alert"] });
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        call(`/api/v1/webhooks/${endpoint.id}/rotate-secret`, {
          method: "POST",
          key,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ overlap_hours: 24 }),
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    const secrets = await Promise.all(answers.map(async (res) => (await res.json<{ secret: string }>()).secret));
    expect(new Set(secrets).size).toBe(3);
    const [row] = await rowsInObject<{ secret_ciphertext: string; previous_secret_ciphertext: string }>(
      org.id,
      "SELECT secret_ciphertext, previous_secret_ciphertext FROM webhook_endpoints WHERE id = ?",
      endpoint.id,
    );
    const masterKey = loadConfig(env).webhookSecretsKey;
    const current = await decryptSecret(masterKey, row?.secret_ciphertext ?? "");
    const previous = await decryptSecret(masterKey, row?.previous_secret_ciphertext ?? "");
    // One statement per rotation moves the current secret to previous: the last two applied, never the original.
    expect(secrets).toContain(current);
    expect(secrets).toContain(previous);
    expect(previous).not.toBe(current);
  });
});

describe("key revocation", () => {
  it("three simultaneous revocations of one key: all 204, the key revoked once, refused afterwards", async () => {
    const org = await createOrg();
    const broker = (await createBrokerToken(org.id)).token;
    const created = await (await brokerCall("/api/public-api/keys", broker, { method: "POST", body: { label: "revoke me" } })).json<{
      id: string;
      key: string;
    }>();
    const answers = await Promise.all([1, 2, 3].map(() => brokerCall(`/api/public-api/keys/${created.id}`, broker, { method: "DELETE" })));
    expect(answers.map((res) => res.status)).toEqual([204, 204, 204]);
    const row = await env.DB.prepare("SELECT revoked_at FROM api_keys WHERE id = ?").bind(created.id).first<{ revoked_at: string | null }>();
    expect(row?.revoked_at).not.toBeNull();
    expect((await call("/api/v1/inventory", { key: created.key })).status).toBe(401);
  });
});

describe("ingestion", () => {
  it("three simultaneous inventory snapshots of one store: each answered 200; the store's stock is exactly one of them", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const key = await createIngestKey(org.id);
    for (let i = 1; i <= 4; i++) await createUnit(org.id, store.id, { stockNumber: unit(i).stock_number as string, stockedOn: "2026-10-01" });
    const snapshots = [
      [unit(1), unit(2), unit(3), unit(5)],
      [unit(1), unit(2), unit(4), unit(6)],
      [unit(2), unit(3), unit(4), unit(7)],
    ];
    const answers = await Promise.all(snapshots.map((units) => putInventory(store.id, { key }, { units })));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    const results = await rowsInObject<{ stock_number: string }>(
      org.id,
      "SELECT stock_number FROM inventory_units WHERE org_id = ? AND store_id = ? AND status = 'in_stock' ORDER BY stock_number",
      org.id,
      store.id,
    );
    const inStock = results.map((r) => r.stock_number);
    expect(snapshots.map((units) => units.map((u) => u.stock_number as string).sort())).toContainEqual(inStock);
  });

  // Each post's write holds only while the deals and stips it read still stand; the others read again.
  it("three simultaneous posts of the same deals: one row per deal, one stip and one deal.stip_alert per new stip", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const key = await createIngestKey(org.id);
    const body = { deals: [deal("C1", store.id, { stips: [{ stip: "proof_of_income", state: "outstanding" }] }), deal("C2", store.id)] };
    const answers = await Promise.all([1, 2, 3].map(() => postDeals({ key }, body)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    const said = await Promise.all(answers.map((res) => res.json<{ created: number; stip_alerts: number }>()));
    const deals = await rowsInObject<{ deal_number: string }>(org.id, "SELECT deal_number FROM deals WHERE org_id = ? ORDER BY deal_number", org.id);
    expect(deals.map((d) => d.deal_number)).toEqual(["C1", "C2"]);
    const [stips] = await rowsInObject<{ n: number }>(org.id, "SELECT count(*) AS n FROM deal_stips WHERE org_id = ?", org.id);
    expect(stips.n, "stip rows").toBe(1);
    // The answers' counts add up to what was stored and raised: two deals created, one alert, across all three.
    expect(
      said.reduce((sum, b) => sum + b.created, 0),
      "deals created, summed over the answers",
    ).toBe(2);
    const alerts = await listOutboxEvents(org.id, "deal.stip_alert");
    expect(
      said.reduce((sum, b) => sum + b.stip_alerts, 0),
      "alerts, summed over the answers",
    ).toBe(alerts.length);
    expect(alerts, "deal.stip_alert events").toHaveLength(1);
  });
});

describe("operator creates", () => {
  it("three simultaneous creates of one store id: one 201, two 409, one row", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const id = `sto_race_${Date.now()}`;
    const answers = await Promise.all(
      [1, 2, 3].map((n) =>
        brokerCall(`/api/operator/organizations/${org.id}/stores`, operator, {
          method: "POST",
          body: { id, name: `Race ${n}`, market_zip: "78701" },
        }),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    const winner = await answers.find((res) => res.status === 201)?.json<{ name: string }>();
    const stored = await env.DB.prepare("SELECT name FROM stores WHERE id = ?").bind(id).all<{ name: string }>();
    expect(stored.results).toEqual([{ name: winner?.name }]);
  });
});

describe("operator suspend and reinstate", () => {
  it("three suspensions and three reinstatements at once: each 200; the stored standing is one of the answers, and the organization's key and broker token agree with it", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const broker = (await createBrokerToken(org.id)).token;
    // Used once first, so the credentials sit in this isolate's cache while the standing changes.
    expect((await call("/api/v1/inventory", { key })).status).toBe(200);
    const actions = ["suspend", "reinstate", "suspend", "reinstate", "suspend", "reinstate"];
    const answers = await Promise.all(
      actions.map((action) => brokerCall(`/api/operator/organizations/${org.id}/${action}`, operator, { method: "POST" })),
    );
    expect(answers.map((res) => res.status)).toEqual(actions.map(() => 200));
    const answered = await Promise.all(answers.map(async (res) => (await res.json<{ suspended_at: string | null }>()).suspended_at));
    for (const [i, action] of actions.entries()) expect(answered[i] === null, `${action} answer`).toBe(action === "reinstate");

    const stored = await env.DB.prepare("SELECT suspended_at FROM organizations WHERE id = ?").bind(org.id).first<{ suspended_at: string | null }>();
    expect(answered).toContain(stored?.suspended_at);
    const expected = stored?.suspended_at === null ? 200 : 403;
    expect((await call("/api/v1/inventory", { key })).status, "the API key").toBe(expected);
    expect((await brokerCall("/api/public-api/keys", broker)).status, "the broker token").toBe(expected);
  });
});

describe("operator staff users and broker tokens", () => {
  it("three simultaneous creations of one e-mail address: one 201, two 409, one row, the winner's", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const email = `race-${Date.now()}@dealer.example`;
    const answers = await Promise.all(
      [1, 2, 3].map((n) =>
        brokerCall(`/api/operator/organizations/${org.id}/staff-users`, operator, {
          method: "POST",
          body: { email, name: `Racer ${n}`, password: "correct-horse-battery-staple" },
        }),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) expect(await res.json()).toMatchObject({ error: "conflict" });
    const winner = await answers.find((res) => res.status === 201)?.json<{ id: string; name: string }>();
    const stored = await env.DB.prepare("SELECT id, name FROM staff_users WHERE email = ?").bind(email).all<{ id: string; name: string }>();
    expect(stored.results).toEqual([{ id: winner?.id, name: winner?.name }]);
  });

  it("three simultaneous broker-token creations: three 201s, each a stored token that works", async () => {
    const operator = await createOperatorToken();
    const org = await createOrg();
    const answers = await Promise.all(
      [1, 2, 3].map((n) =>
        brokerCall(`/api/operator/organizations/${org.id}/broker-tokens`, operator, { method: "POST", body: { label: `DMS ${n}` } }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201]);
    const issued = await Promise.all(answers.map((res) => res.json<{ id: string; label: string; token: string }>()));
    const stored = await env.DB.prepare("SELECT id, label FROM broker_tokens WHERE org_id = ? ORDER BY label")
      .bind(org.id)
      .all<{ id: string; label: string }>();
    expect(stored.results).toEqual(issued.map(({ id, label }) => ({ id, label })));
    for (const { token } of issued) expect((await brokerCall("/api/public-api/keys", token)).status).toBe(200);
  });
});

describe("key rotation", () => {
  it("three simultaneous rotations of one key: one 201, two 409, one successor", async () => {
    const org = await createOrg();
    const broker = (await createBrokerToken(org.id)).token;
    const created = await (await brokerCall("/api/public-api/keys", broker, { method: "POST", body: { label: "rotate me" } })).json<{ id: string }>();
    const answers = await Promise.all(
      [1, 2, 3].map(() => brokerCall(`/api/public-api/keys/${created.id}/rotate`, broker, { method: "POST", body: { overlap_hours: 24 } })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    const keys = await env.DB.prepare("SELECT id FROM api_keys WHERE org_id = ? ORDER BY created_at").bind(org.id).all<{ id: string }>();
    const successor = await answers.find((res) => res.status === 201)?.json<{ id: string }>();
    expect(keys.results.map((k) => k.id).sort()).toEqual([created.id, successor?.id].sort());
  });
});

describe("key creation", () => {
  it("four simultaneous creations with distinct labels: four 201s, four keys stored, each the answer's", async () => {
    const org = await createOrg();
    const broker = (await createBrokerToken(org.id)).token;
    const labels = ["one", "two", "three", "four"];
    const answers = await Promise.all(labels.map((label) => brokerCall("/api/public-api/keys", broker, { method: "POST", body: { label } })));
    expect(answers.map((res) => res.status)).toEqual(labels.map(() => 201));
    const answered = await Promise.all(answers.map((res) => res.json<{ id: string; label: string }>()));
    expect(answered.map((k) => k.label)).toEqual(labels);
    const stored = await env.DB.prepare("SELECT id, label FROM api_keys WHERE org_id = ?").bind(org.id).all<{ id: string; label: string }>();
    expect(stored.results.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      answered.map(({ id, label }) => ({ id, label })).sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it("four simultaneous creations with one Idempotency-Key: one key stored; every 201 is that key, the rest 409 in progress; a retry replays it", async () => {
    const org = await createOrg();
    const broker = (await createBrokerToken(org.id)).token;
    const send = () =>
      brokerCall("/api/public-api/keys", broker, { method: "POST", body: { label: "once" }, headers: { "Idempotency-Key": "race-key-1" } });
    const answers = await Promise.all([1, 2, 3, 4].map(send));
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = await Promise.all(answers.filter((res) => res.status === 201).map((res) => res.json<{ id: string }>()));
    for (const res of answers.filter((r) => r.status === 409)) expect(await res.json()).toMatchObject({ error: "idempotency_in_progress" });
    const stored = await env.DB.prepare("SELECT id FROM api_keys WHERE org_id = ?").bind(org.id).all<{ id: string }>();
    expect(stored.results).toHaveLength(1);
    expect(created.length).toBeGreaterThan(0);
    for (const key of created) expect(key.id).toBe(stored.results[0].id);
    const retry = await send();
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await retry.json<{ id: string }>()).id).toBe(stored.results[0].id);
  });
});

describe("webhook trigger and redelivery", () => {
  const deliveryRows = async (orgId: string, endpointId: string) =>
    (await rowsInObject<{ id: string }>(orgId, "SELECT id FROM webhook_deliveries WHERE endpoint_id = ?", endpointId)).map((r) => r.id);

  it("three simultaneous triggers: three 202s, each answer's delivery stored once and no other", async () => {
    const org = await createOrg();
    await createStore(org.id, { isPrimary: true });
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "race-trigger-1"), events: ["deal.stip_alert"] });
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        call(`/api/v1/webhooks/${endpoint.id}/trigger`, {
          method: "POST",
          key,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ event: "deal.stip_alert" }),
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual([202, 202, 202]);
    const ids = await Promise.all(answers.map(async (res) => (await res.json<{ id: string }>()).id));
    expect(new Set(ids).size).toBe(3);
    expect((await deliveryRows(org.id, endpoint.id)).sort()).toEqual([...ids].sort());
  });

  it("three simultaneous redeliveries of one delivery: three 202s naming it, still one delivery row", async () => {
    const org = await createOrg();
    await createStore(org.id, { isPrimary: true });
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "race-redeliver-1"), events: ["deal.stip_alert"] });
    const triggered = await call(`/api/v1/webhooks/${endpoint.id}/trigger`, {
      method: "POST",
      key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ event: "deal.stip_alert" }),
    });
    const { id } = await triggered.json<{ id: string }>();
    const path = `/api/v1/webhooks/${endpoint.id}/deliveries/${id}/redeliver`;
    const answers = await Promise.all([1, 2, 3].map(() => call(path, { method: "POST", key })));
    expect(answers.map((res) => res.status)).toEqual([202, 202, 202]);
    for (const res of answers) expect(await res.json()).toMatchObject({ id, status: "pending" });
    expect(await deliveryRows(org.id, endpoint.id)).toEqual([id]);
  });
});

describe("sandbox creation", () => {
  it("four simultaneous creations from a client with 8 of its 10 a day used: two created, two 429", async () => {
    const address = "203.0.113.77";
    const day = new Date().toISOString().slice(0, 10);
    const hash = sandboxAddressHash(env.PASSWORD_PEPPER, limitedClient(address));
    await env.DB.prepare("INSERT INTO sandbox_requests (day, address_hash, count) VALUES (?, ?, 8)").bind(day, hash).run();
    const answers = await Promise.all([1, 2, 3, 4].map(() => call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": address } })));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 429, 429]);
  });
});

describe("purges", () => {
  it("the sandbox purge job run twice at once deletes the expired sandbox once, without error, and leaves a live sandbox", async () => {
    const create = (address: string) => call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": address } });
    const expired = await (await create("203.0.113.61")).json<{ organization_id: string }>();
    const live = await (await create("203.0.113.62")).json<{ organization_id: string }>();
    await env.DB.prepare("UPDATE organizations SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), expired.organization_id)
      .run();
    // A sandbox is born in its object with its demo units; the purge deletes the object's storage.
    const unitsInObject = (orgId: string) =>
      runInDurableObject(orgStore(env, orgId), (_, state) =>
        state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'inventory_units'").toArray().length === 0
          ? 0
          : state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM inventory_units").one().n,
      );
    expect(await unitsInObject(expired.organization_id)).toBeGreaterThan(0);
    const now = new Date();
    await Promise.all([purgeExpiredSandboxes(env, now), purgeExpiredSandboxes(env, now)]);
    const orgs = await env.DB.prepare("SELECT id FROM organizations WHERE id IN (?, ?)")
      .bind(expired.organization_id, live.organization_id)
      .all<{ id: string }>();
    expect(orgs.results).toEqual([{ id: live.organization_id }]);
    expect(await unitsInObject(expired.organization_id)).toBe(0);
    expect(await unitsInObject(live.organization_id)).toBeGreaterThan(0);
  });

  it("the retention purge run twice at once: D1's expired outbox events go, without error; nothing that should stay is touched", async () => {
    // D1's own purge (an organization's deliveries and their bodies are purged in its object, on its alarm, one run at a time).
    const org = await createOrg();
    const o = org.id;
    const now = new Date();
    const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
    const event = (id: string, at: string, fannedOut = true) => ({
      id: `${id}-${o}`,
      orgId: o,
      event: "deal.stip_alert",
      data: {},
      occurredAt: at,
      fannedOutAt: fannedOut ? at : null,
    });
    await getDb(env.DB)
      .insert(eventOutbox)
      .values([event("evt_old", daysAgo(91)), event("evt_not_fanned_out", daysAgo(91), false), event("evt_new", daysAgo(40))]);

    const rule = retentionRule("event_outbox") as RetentionRule;
    const runs = await Promise.allSettled([purgeExpiredChunks(env, rule, now), purgeExpiredChunks(env, rule, now)]);
    expect(runs.map((r) => r.status)).toEqual(runs.map(() => "fulfilled"));

    const ids = async (sql: string) => (await env.DB.prepare(sql).bind(o).all<{ id: string }>()).results.map((r) => r.id).sort();
    // evt_not_fanned_out stays for the sweeper; evt_new is recent.
    expect(await ids("SELECT id FROM event_outbox WHERE org_id = ?")).toEqual([`evt_new-${o}`, `evt_not_fanned_out-${o}`]);
  });
});
