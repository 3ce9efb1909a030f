import { createExecutionContext, createScheduledController, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { generateApiKey, hmacSha256Hex } from "../src/credentials/tokens";
import { getDb } from "../src/db/client";
import { computePlatformStatistics } from "../src/db/queries/public-stats";
import { recordUsage } from "../src/db/queries/usage";
import { keyUsageDaily, orgActivity, sandboxRequests } from "../src/db/schema";
import { type OrganizationStore, OrgStorageClosedError, OrgStorageMismatchError, SandboxPurgeRefusedError } from "../src/durable-objects/org-storage";
import { orgStore } from "../src/durable-objects/org-storage-routing";
import { limitedClient } from "../src/http/credential-failures";
import worker from "../src/index";
import { purgeExpiredSandboxes } from "../src/jobs/purge-expired-sandboxes";
import type { SandboxSchema } from "../src/routes/sandboxes/sandboxes.routes";
import { createSandbox as createSandboxDirectly, sandboxAddressHash } from "../src/routes/sandboxes/sandboxes.service";
import { complianceCheck } from "./helpers/compliance";
import { call, createApiKey, createOrg, createStore, createUnit } from "./helpers/factories";
import { putInventory, unit } from "./helpers/ingest";
import { rowsInObject } from "./helpers/org-storage";
import { figuresByDefinition, isoDaysAgo, usageSnapshot } from "./helpers/public";
import { brokerCall } from "./helpers/staff";

type Sandbox = z.infer<typeof SandboxSchema>;

let addressCounter = 0;
/** Each test calls from its own address, so the per-address limits of one test never touch another. */
const freshAddress = () => `198.51.100.${++addressCounter}`;

async function createSandbox(address = freshAddress()) {
  const started = performance.now();
  const res = await call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": address } });
  const elapsedMs = performance.now() - started;
  if (res.status !== 201) throw new Error(`sandbox creation failed: ${res.status} ${await res.text()}`);
  return { sandbox: await res.json<Sandbox>(), res, elapsedMs };
}

async function stockNumbers(key: string, path = "/api/v1/inventory?limit=500") {
  const res = await call(path, { key });
  expect(res.status).toBe(200);
  return { res, numbers: (await res.json<{ inventory: { stock_number: string }[] }>()).inventory.map((u) => u.stock_number) };
}

/** What the organization's storage object holds, read inside it. */
async function objectRows(orgId: string) {
  return runInDurableObject(orgStore(env, orgId), (_, state) => {
    const count = (table: string) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n;
    return {
      owner: count("storage_owner"),
      units: count("inventory_units"),
      values: count("unit_market_values"),
      stores: count("stores"),
      deals: count("deals"),
      sales: count("sales_monthly"),
      decisions: count("lender_decisions"),
      panels: count("store_lender_panel"),
    };
  });
}

async function expire(orgId: string) {
  await env.DB.prepare("UPDATE organizations SET expires_at = ? WHERE id = ?")
    .bind(new Date(Date.now() - 60_000).toISOString(), orgId)
    .run();
}

async function liveOrgWithUnit() {
  const org = await createOrg();
  const store = await createStore(org.id);
  const unit = await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
  return { org, store, unit, key: (await createApiKey(org.id)).key };
}

/** Every table with an org_id column, from the schema itself, so a table added later is covered. */
async function orgIdTables() {
  const { results: tables } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 4) <> '_cf_'").all<{
    name: string;
  }>();
  const columns = await env.DB.batch<{ name: string }>(tables.map((t) => env.DB.prepare(`PRAGMA table_info("${t.name}")`)));
  const withOrgId = tables.filter((_, i) => columns[i].results.some((c) => c.name === "org_id")).map((t) => t.name);
  expect(withOrgId.length).toBeGreaterThan(20);
  return withOrgId;
}

async function rowsPerTable(orgId: string) {
  const counts: Record<string, number> = {};
  for (const table of await orgIdTables()) {
    const row = await env.DB.prepare(`SELECT count(*) AS n FROM "${table}" WHERE org_id = ?`).bind(orgId).first<{ n: number }>();
    counts[table] = row?.n ?? 0;
  }
  return counts;
}

describe("POST /api/sandboxes", () => {
  it("creates a seeded sandbox with a lak_test_ key marked test in every answer, in about a second", async () => {
    const { sandbox, res, elapsedMs } = await createSandbox();
    console.log(`sandbox creation: ${Math.round(elapsedMs)} ms`);
    expect(res.headers.get("X-Service-Mode")).toBe("test");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(sandbox).toMatchObject({
      organization_id: expect.stringMatching(/^org_sbx_[a-z0-9]{12}$/),
      mode: "test",
      api_key: expect.stringMatching(/^lak_test_[0-9A-Za-z]{38}$/),
      broker_token: expect.stringMatching(/^dbt_/),
      daily_limit: 1000,
    });
    expect(Date.parse(sandbox.expires_at) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    expect(sandbox.stores).toHaveLength(2);

    const org = await env.DB.prepare("SELECT is_sandbox, is_demo, expires_at FROM organizations WHERE id = ?").bind(sandbox.organization_id).first();
    expect(org).toEqual({ is_sandbox: 1, is_demo: 1, expires_at: sandbox.expires_at });
    const { res: feed, numbers } = await stockNumbers(sandbox.api_key);
    expect(numbers.length).toBeGreaterThan(100);
    expect(feed.headers.get("X-Service-Mode")).toBe("test");
    expect(feed.headers.get("X-Service-RateLimit-Limit")).toBe("1000");
    // Errors are marked too.
    const refused = await call("/api/v1/webhooks/whk_nope", { key: sandbox.api_key });
    expect(refused.status).toBe(404);
    expect(refused.headers.get("X-Service-Mode")).toBe("test");
    // A live key's answers say live.
    const live = await liveOrgWithUnit();
    expect((await stockNumbers(live.key)).res.headers.get("X-Service-Mode")).toBe("live");
    // Seeding a sandbox adds no demo entries to the shared market feed.
    const shared = await env.DB.prepare("SELECT count(*) AS n FROM market_feed_entries WHERE id LIKE 'mkt_demo_%'").first<{ n: number }>();
    expect(shared?.n).toBe(0);
  });

  it("keys created with the sandbox's broker token are lak_test_ keys, listed as mode test, held to the test quota", async () => {
    const { sandbox } = await createSandbox();
    const created = await brokerCall("/api/public-api/keys", sandbox.broker_token, { method: "POST", body: { label: "trial" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("X-Service-Mode")).toBe("test");
    const key = await created.json<{ key: string; mode: string }>();
    expect(key.key).toMatch(/^lak_test_/);
    expect(key.mode).toBe("test");
    expect((await stockNumbers(key.key)).numbers.length).toBeGreaterThan(100);

    const tooBig = await brokerCall("/api/public-api/keys", sandbox.broker_token, { method: "POST", body: { label: "big", rate_limit: 5000 } });
    expect(tooBig.status).toBe(422);
    expect((await tooBig.json<{ details: { path: string }[] }>()).details[0].path).toBe("rate_limit");

    const list = await (await brokerCall("/api/public-api/keys", sandbox.broker_token)).json<{ keys: { mode: string; key_prefix: string }[] }>();
    expect(list.keys.map((k) => k.mode)).toEqual(["test", "test"]);
    expect(list.keys.every((k) => k.key_prefix.startsWith("lak_test_"))).toBe(true);

    // A live organization's broker token makes lak_ keys, listed as live.
    const live = await createOrg();
    const { createBrokerToken } = await import("./helpers/staff");
    const broker = await createBrokerToken(live.id);
    const liveKey = await (await brokerCall("/api/public-api/keys", broker.token, { method: "POST", body: { label: "live" } })).json<{
      key: string;
      mode: string;
    }>();
    expect(liveKey.key).toMatch(/^lak_[0-9A-Za-z]{38}$/);
    expect(liveKey.mode).toBe("live");
  });

  it("a sandbox key never sees a live organization's data, and a live key never a sandbox's (feeds and an engine)", async () => {
    const { sandbox } = await createSandbox();
    const live = await liveOrgWithUnit();
    const sandboxView = await stockNumbers(sandbox.api_key);
    expect(sandboxView.numbers).not.toContain(live.unit.stockNumber);
    const liveView = await stockNumbers(live.key);
    expect(liveView.numbers).toEqual([live.unit.stockNumber]);

    const sandboxAlerts = await call("/api/v1/inventory-alerts", { key: sandbox.api_key });
    expect(sandboxAlerts.status).toBe(200);
    const sandboxAlertText = await sandboxAlerts.text();
    expect(sandboxAlertText).toContain(`"${sandbox.stores[0].id}"`);
    expect(sandboxAlertText).not.toContain(live.unit.stockNumber);
    const sandboxUnits = await rowsInObject<{ stock_number: string }>(
      sandbox.organization_id,
      "SELECT stock_number FROM inventory_units WHERE org_id = ?",
      sandbox.organization_id,
    );
    expect(sandboxUnits.length).toBeGreaterThan(100);
    const alerts = await call("/api/v1/inventory-alerts", { key: live.key });
    expect(alerts.status).toBe(200);
    const alertText = await alerts.text();
    for (const { stock_number } of sandboxUnits.slice(0, 50)) expect(alertText).not.toContain(`"${stock_number}"`);
    // The sandbox's store ids are its own: a live key asking for one gets nothing of it.
    const foreignStore = await call(`/api/v1/inventory?store_id=${sandbox.stores[0].id}`, { key: live.key });
    expect([404, 422]).toContain(foreignStore.status);
  });

  it("refuses a lak_ key whose organization is a sandbox and a lak_test_ key whose organization is live (rows written directly)", async () => {
    const { sandbox } = await createSandbox();
    const live = await createOrg();
    const liveKeyInSandbox = generateApiKey("live");
    const testKeyInLive = generateApiKey("test");
    await createApiKey(sandbox.organization_id, { key: liveKeyInSandbox, dailyLimit: 100 });
    await createApiKey(live.id, { key: testKeyInLive, dailyLimit: 100 });
    for (const key of [liveKeyInSandbox, testKeyInLive]) {
      const res = await call("/api/v1/inventory", { key });
      expect(res.status).toBe(401);
      expect((await res.json<{ message: string }>()).message).toMatch(/sandbox/);
    }
  });

  it("refuses an expired sandbox's key and broker token (403 sandbox_expired) before the purge runs", async () => {
    const { sandbox } = await createSandbox();
    await env.DB.prepare("UPDATE organizations SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), sandbox.organization_id)
      .run();
    const res = await call("/api/v1/inventory", { key: sandbox.api_key });
    expect(res.status).toBe(403);
    const body = await res.json<{ error: string; message: string }>();
    expect(body.error).toBe("sandbox_expired");
    expect(body.message).toMatch(/expired/);
    const broker = await brokerCall("/api/public-api/keys", sandbox.broker_token);
    expect(broker.status).toBe(403);
    // Still answers to a test key and a sandbox's token: marked test like every other.
    expect(res.headers.get("X-Service-Mode")).toBe("test");
    expect(broker.headers.get("X-Service-Mode")).toBe("test");
  });

  it("marks a test key's refusals X-Service-Mode: test too: a scope 403, an unknown key's 401, a live organization's 401", async () => {
    const { sandbox } = await createSandbox();
    const scoped = await createApiKey(sandbox.organization_id, { key: generateApiKey("test"), scopes: ["inventory"] });
    const outOfScope = await call("/api/v1/sales-summary", { key: scoped.key });
    expect(outOfScope.status).toBe(403);
    expect(await outOfScope.json()).toMatchObject({ error: "forbidden" });
    expect(outOfScope.headers.get("X-Service-Mode")).toBe("test");
    const unknown = await call("/api/v1/inventory", { key: generateApiKey("test") });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("X-Service-Mode")).toBe("test");
    const live = await liveOrgWithUnit();
    const misplaced = await createApiKey(live.org.id, { key: generateApiKey("test") });
    const wrongPlace = await call("/api/v1/inventory", { key: misplaced.key });
    expect(wrongPlace.status).toBe(401);
    expect(wrongPlace.headers.get("X-Service-Mode")).toBe("test");
  });

  it("caps sandboxes per client address and day, counted by a keyed hash of the address (never the address)", async () => {
    const address = freshAddress();
    const day = new Date().toISOString().slice(0, 10);
    const hash = hmacSha256Hex(env.PASSWORD_PEPPER, `sandbox-address:${address}`);
    await getDb(env.DB).insert(sandboxRequests).values({ day, addressHash: hash, count: 10 });
    const res = await call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": address } });
    expect(res.status).toBe(429);
    expect((await res.json<{ error: string }>()).error).toBe("rate_limited");
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await createSandbox()).sandbox.api_key).toMatch(/^lak_test_/);
    const { results } = await env.DB.prepare("SELECT day, address_hash, count FROM sandbox_requests").all();
    expect(JSON.stringify(results)).not.toContain("198.51.100.");
  });
});

describe("sandbox limits count an IPv6 caller by its /64", () => {
  it("the burst guard (5 a minute) is shared by every address of one /64, not by the next /64", async () => {
    const network = `2001:db8:${(++addressCounter).toString(16)}:64`;
    // The /64's daily cap is full, so each of the five is counted by the burst guard and then refused by the cap at once:
    // five sandboxes seeded under load could straddle two of the guard's minutes and never meet it.
    const day = new Date().toISOString().slice(0, 10);
    await getDb(env.DB)
      .insert(sandboxRequests)
      .values({ day, addressHash: sandboxAddressHash(env.PASSWORD_PEPPER, limitedClient(`${network}::1`)), count: 10 });
    const seconds = new Date().getUTCSeconds();
    if (seconds > 50) await new Promise((resolve) => setTimeout(resolve, (61 - seconds) * 1000));
    const from = (address: string) => call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": address } });
    for (let host = 1; host <= 5; host++) {
      const capped = await from(`${network}:${host}::${host}`);
      expect(capped.status).toBe(429);
      expect((await capped.json<{ message: string }>()).message).toContain("a day");
    }
    const sixth = await from(`${network}:ffff:1:2:3`);
    expect(sixth.status).toBe(429);
    expect(await sixth.json()).toMatchObject({ error: "rate_limited", message: expect.stringContaining("in a minute") });
    expect((await createSandbox(`2001:db8:${addressCounter.toString(16)}:65::1`)).sandbox.api_key).toMatch(/^lak_test_/);
  });

  it("the daily cap is kept per /64 (keyed hash of the network); an IPv4 address and an IPv4-mapped one count as the same client", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const network = `2001:db8:${(++addressCounter).toString(16)}:64`;
    const full = (address: string) =>
      getDb(env.DB)
        .insert(sandboxRequests)
        .values({ day, addressHash: sandboxAddressHash(env.PASSWORD_PEPPER, limitedClient(address)), count: 10 });
    await full(`${network}::1`);
    const refused = await call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": `${network}:abcd::99` } });
    expect(refused.status).toBe(429);
    expect(limitedClient(`${network}:abcd::99`)).toBe(`${network}::/64`);
    expect(limitedClient("198.51.100.7")).toBe("198.51.100.7");
    expect(limitedClient("::ffff:198.51.100.7")).toBe("198.51.100.7");
  });
});

describe("POST /api/sandboxes with Idempotency-Key", () => {
  it("answers a retry from the same client with the same sandbox, created once and counted once", async () => {
    const address = freshAddress();
    const send = (from: string) => call("/api/sandboxes", { method: "POST", headers: { "CF-Connecting-IP": from, "Idempotency-Key": "retry-me-1" } });
    const first = await send(address);
    expect(first.status).toBe(201);
    const again = await send(address);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    const [a, b] = [await first.json<Sandbox>(), await again.json<Sandbox>()];
    expect(b.organization_id).toBe(a.organization_id);
    const day = new Date().toISOString().slice(0, 10);
    const counted = await env.DB.prepare("SELECT count FROM sandbox_requests WHERE day = ? AND address_hash = ?")
      .bind(day, hmacSha256Hex(env.PASSWORD_PEPPER, `sandbox-address:${address}`))
      .first<{ count: number }>();
    expect(counted?.count).toBe(1);
    // The same key from another client is another client's key.
    const other = await send(freshAddress());
    expect(other.status).toBe(201);
    expect((await other.json<Sandbox>()).organization_id).not.toBe(a.organization_id);
  });
});

describe("sandboxes in the public figures", () => {
  it("count as demo sessions, never as organizations evaluated or as rooftops", async () => {
    const { sandbox } = await createSandbox();
    const db = getDb(env.DB);
    const before = await computePlatformStatistics(db, new Date());
    await recordUsage(db, usageSnapshot([{ day: isoDaysAgo(0), keyId: `key_${sandbox.organization_id}`, orgId: sandbox.organization_id }]));
    const after = await computePlatformStatistics(db, new Date());
    expect(after.demoSessions).toBe(before.demoSessions + 1);
    expect(after.organizationsEvaluated).toBe(before.organizationsEvaluated);
    expect(after.activeRooftops).toBe(before.activeRooftops);
    expect(after).toMatchObject(await figuresByDefinition());
  });
});

describe("the sandbox purge (00:15 cron)", () => {
  it("deletes an expired sandbox and every row of it in every org_id table; live organizations and live sandboxes are untouched", async () => {
    const expired = (await createSandbox()).sandbox;
    const current = (await createSandbox()).sandbox;
    const live = await liveOrgWithUnit();
    // Rows the seed does not write: usage and activity (flushed in batches, so written here directly).
    await call("/api/v1/inventory", { key: expired.api_key });
    const db = getDb(env.DB);
    await db.batch([
      db.insert(orgActivity).values({ orgId: expired.organization_id, lastCallDay: "2026-11-01" }).onConflictDoNothing(),
      db
        .insert(keyUsageDaily)
        .values({ day: "2026-11-01", keyId: `key_sbx_${expired.organization_id}`, orgId: expired.organization_id, requests: 3 })
        .onConflictDoNothing(),
    ]);
    // The same cron raises aged-inventory alerts (and their events): rows it adds, not rows the purge keeps.
    const kept = async (orgId: string) => {
      const { aged_inventory_alerts, event_outbox, ...rest } = await rowsPerTable(orgId);
      return rest;
    };
    const before = { live: await kept(live.org.id), current: await kept(current.organization_id) };
    const seeded = await rowsPerTable(expired.organization_id);
    const inObject = await objectRows(expired.organization_id);
    expect(inObject.owner).toBe(1);
    expect(inObject.units).toBeGreaterThan(100);
    expect(inObject.decisions).toBeGreaterThan(0);
    expect(inObject.panels).toBeGreaterThan(0);
    expect(seeded.stores).toBe(2);

    const now = Date.now();
    await env.DB.prepare("UPDATE organizations SET expires_at = ? WHERE id = ?")
      .bind(new Date(now - 60_000).toISOString(), expired.organization_id)
      .run();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(now), cron: "15 0 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    const after = await rowsPerTable(expired.organization_id);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(await env.DB.prepare("SELECT id FROM organizations WHERE id = ?").bind(expired.organization_id).first()).toBeNull();
    // Its object is empty: no units, no market values, no owner.
    expect(await objectRows(expired.organization_id)).toEqual({
      owner: 0,
      units: 0,
      values: 0,
      stores: 0,
      deals: 0,
      sales: 0,
      decisions: 0,
      panels: 0,
    });
    expect(await kept(live.org.id)).toEqual(before.live);
    // The other sandbox expires 30 days after its creation: the purge leaves it whole, object included.
    expect(await kept(current.organization_id)).toEqual(before.current);
    expect((await stockNumbers(current.api_key)).numbers.length).toBeGreaterThan(100);
  });
});

describe("a sandbox in its own storage object (docs/scaling.md)", () => {
  const d1Count = async (table: string, orgId: string) =>
    (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE org_id = ?`).bind(orgId).first<{ n: number }>())?.n;

  it("is created in its object: its feed reads the units seeded there, its stores' settings and panels there too", async () => {
    const { sandbox } = await createSandbox();
    const o = sandbox.organization_id;
    // Its deals, with their stips; the object's triggers built their monthly rollup.
    expect((await objectRows(o)).deals).toBeGreaterThan(100);
    expect((await objectRows(o)).sales).toBeGreaterThan(0);
    // Its lender decisions (the lender route's history) and its stores' panels; D1 holds the stores' directory rows.
    expect((await objectRows(o)).decisions).toBeGreaterThan(100);
    expect((await objectRows(o)).panels).toBeGreaterThan(0);
    expect(await d1Count("stores", o)).toBe(2);
    // Each store's own settings (the template's, not the defaults).
    expect(await rowsInObject(o, "SELECT name, pack_used, recon_truck FROM stores ORDER BY name")).toEqual([
      { name: "Summit Auto North", pack_used: 500, recon_truck: 1400 },
      { name: "Summit Auto South", pack_used: 550, recon_truck: 1500 },
    ]);
    const inObject = await rowsInObject<{ stock_number: string }>(
      o,
      "SELECT stock_number FROM inventory_units WHERE org_id = ? AND status = 'in_stock' ORDER BY stock_number",
      o,
    );
    expect(inObject.length).toBeGreaterThan(100);
    expect((await stockNumbers(sandbox.api_key)).numbers.sort()).toEqual(inObject.map((u) => u.stock_number));
    expect((await objectRows(o)).values).toBeGreaterThan(0);
    // The alerts read the object's units and their market values (D1 holds none to count).
    const alerts = await (await call("/api/v1/inventory-alerts", { key: sandbox.api_key })).json<{ total_aged_units: number; alerts: unknown[] }>();
    expect(alerts.total_aged_units).toBeGreaterThan(0);
    expect(alerts.alerts.length).toBeGreaterThan(0);
    // Its nightly aged alerts and briefings run on the object's alarm (the crons skip it).
    expect(await runInDurableObject(orgStore(env, o), (_, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now());
  });

  it("a snapshot sent to a sandbox's store lands in its object, not in D1", async () => {
    const { sandbox } = await createSandbox();
    const o = sandbox.organization_id;
    const store = sandbox.stores[0].id;
    const key = (await createApiKey(o, { key: generateApiKey("test"), permissions: ["read", "ingest"] })).key;
    const [{ n: inStock }] = await rowsInObject<{ n: number }>(
      o,
      "SELECT count(*) AS n FROM inventory_units WHERE store_id = ? AND status = 'in_stock'",
      store,
    );
    const res = await putInventory(store, { key }, { units: [unit(1, { stock_number: "SBX-1" }), unit(2, { stock_number: "SBX-2" })] }, false, {
      confirm_removals: String(inStock),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ created: 2, removed: inStock });
    expect((await stockNumbers(key, `/api/v1/inventory?store_id=${store}`)).numbers.sort()).toEqual(["SBX-1", "SBX-2"]);
    const landed = await rowsInObject<{ stock_number: string }>(o, "SELECT stock_number FROM inventory_units WHERE stock_number LIKE 'SBX-%'");
    expect(landed.map((u) => u.stock_number).sort()).toEqual(["SBX-1", "SBX-2"]);
  });

  it("a sandbox's compliance checks are recorded in its object, with their history, and read back from there", async () => {
    const { sandbox } = await createSandbox();
    const o = sandbox.organization_id;
    const screen = async (first_name: string) => {
      const res = await call(
        "/api/v1/compliance-check",
        complianceCheck(sandbox.api_key, { first_name, last_name: "Benson", dob: "1981-06-14", ssn_last4: "5902" }),
      );
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json<{ check_id: string; red_flags: { code: string }[] }>();
    };
    await screen("Laura");
    const second = await screen("Maria");
    expect(second.red_flags.map((f) => f.code)).toContain("ssn_shared_with_other_name");
    expect(await rowsInObject(o, "SELECT id FROM compliance_checks WHERE org_id = ?", o)).toHaveLength(2);
    const read = await call(`/api/v1/compliance-checks/${second.check_id}`, { key: sandbox.api_key });
    expect([read.status, (await read.json<{ check_id: string }>()).check_id]).toEqual([200, second.check_id]);
  });

  it("a purge cut short after the object was emptied is finished by the next run; D1's rows meanwhile reach nothing", async () => {
    const { sandbox } = await createSandbox();
    const o = sandbox.organization_id;
    await expire(o);
    // Its nightly alarm goes with it (deleteAll's, at our compatibility date).
    expect(await runInDurableObject(orgStore(env, o), (_, state) => state.storage.getAlarm())).not.toBeNull();
    // The first half of a purge: the object is emptied, then the run stops before D1.
    await orgStore(env, o).purgeSandbox(o);
    expect(await runInDurableObject(orgStore(env, o), (_, state) => state.storage.getAlarm())).toBeNull();
    expect(await objectRows(o)).toEqual({ owner: 0, units: 0, values: 0, stores: 0, deals: 0, sales: 0, decisions: 0, panels: 0 });
    expect(await d1Count("stores", o)).toBe(2);
    expect((await call("/api/v1/inventory", { key: sandbox.api_key })).status).toBe(403);
    // Even a call that reached the emptied object (past the credential check) gets no rows: it serves nothing.
    const refused = await orgStore(env, o)
      .inventoryPage(o, { limit: 10 })
      .then(
        () => "served",
        (error: Error) => error.message,
      );
    expect(refused).toBe(new OrgStorageClosedError().message);
    // The next night's run finds the sandbox in D1 again and finishes: the object's purge is a no-op the second time.
    await purgeExpiredSandboxes(env, new Date());
    expect(await env.DB.prepare("SELECT id FROM organizations WHERE id = ?").bind(o).first()).toBeNull();
    expect(await d1Count("stores", o)).toBe(0);
    expect(await objectRows(o)).toEqual({ owner: 0, units: 0, values: 0, stores: 0, deals: 0, sales: 0, decisions: 0, panels: 0 });
  });

  it("a creation that fails after its object was seeded purges both, object first, and answers the error", async () => {
    let seeded: string | undefined;
    // The object's seed lands, then its answer is lost: the creation must not leave either side behind.
    const ORG_STORE = {
      idFromName: (name: string) => env.ORG_STORE.idFromName(name),
      get: (id: DurableObjectId) => {
        const real = env.ORG_STORE.get(id);
        return {
          seed: async (...args: Parameters<OrganizationStore["seed"]>) => {
            await real.seed(...args);
            seeded = args[0];
            throw new Error("the seed's answer was lost");
          },
          purgeSandbox: (orgId: string) => real.purgeSandbox(orgId),
        };
      },
    } as unknown as Env["ORG_STORE"];
    await expect(createSandboxDirectly({ ORG_STORE }, getDb(env.DB), new Date())).rejects.toThrow(/answer was lost/);
    expect(seeded).toMatch(/^org_sbx_/);
    const o = seeded ?? "";
    expect(await objectRows(o)).toEqual({ owner: 0, units: 0, values: 0, stores: 0, deals: 0, sales: 0, decisions: 0, panels: 0 });
    expect(Object.entries(await rowsPerTable(o)).filter(([, n]) => n > 0)).toEqual([]);
    expect(await env.DB.prepare("SELECT id FROM organizations WHERE id = ?").bind(o).first()).toBeNull();
  });

  it("refuses to purge a live organization's object, and a sandbox's purge sent to another organization's object", async () => {
    // A live organization, born in its object.
    const live = await liveOrgWithUnit();
    const { sandbox } = await createSandbox();
    await runInDurableObject(orgStore(env, live.org.id), async (object: OrganizationStore) => {
      await expect(object.purgeSandbox(live.org.id)).rejects.toThrow(SandboxPurgeRefusedError);
      await expect(object.purgeSandbox(sandbox.organization_id)).rejects.toThrow(OrgStorageMismatchError);
    });
    expect(await objectRows(live.org.id)).toMatchObject({ owner: 1, units: 1 });
    expect((await stockNumbers(live.key)).numbers).toEqual([live.unit.stockNumber]);
  });
});
