import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { outcomeStore } from "../../src/db/org-store";
import type { StoredMarketValue, StoredUnit } from "../../src/db/queries/org-storage";
import {
  briefingsDigest,
  feedsDigest,
  groupDigest,
  lenderDigest,
  panelsDigest,
  readOrgStorage,
  settingsDigest,
  webhooksDigest,
} from "../../src/db/queries/org-storage";
import { NOT_SERVING, type OrganizationStore } from "../../src/durable-objects/org-storage";
import { moveToD1, moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { isoDay } from "../../src/engines/dates";
import { ROLES } from "../../src/engines/reports/briefings";
import { commitWithEvents } from "../../src/events/emit";
import { DomainError } from "../../src/lib/domain-error";
import type { InventoryFeedSchema } from "../../src/routes/feeds/feeds.routes";
import { complianceCheck } from "../helpers/compliance";
import { createDeskOrg } from "../helpers/deal-desk";
import { createEndpoint, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createApiKey, createDeal, createOrg, createStore } from "../helpers/factories";
import { BASE_UNITS, createIngestKey, deal, growingSnapshot, postDeals, putInventory, type SnapshotCounts, unit } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { copyingThrough, rowsWhereStored } from "../helpers/org-storage";
import { capturingQueue, consumeOne, runCron } from "../helpers/queue-driver";
import { all } from "../helpers/sql";
import { brokerCall, createBrokerToken } from "../helpers/staff";

type Feed = z.infer<typeof InventoryFeedSchema>;
async function organizationWithUnits() {
  const org = await createOrg({ place: "d1" });
  const store = await createStore(org.id, { name: "North Lot" });
  const key = await createIngestKey(org.id);
  expect((await putInventory(store.id, { key }, { units: BASE_UNITS })).status).toBe(200);
  return { org, store, key };
}

/** Snapshots 0..count-1, one after another (as a DMS sends them), each answer kept. */
async function writeSnapshots(storeId: string, key: string, from: number, count: number) {
  const answers: SnapshotCounts[] = [];
  for (let i = from; i < from + count; i++) {
    const res = await putInventory(storeId, { key }, { units: growingSnapshot(i) });
    expect(res.status, await res.clone().text()).toBe(200);
    answers.push(await res.json<SnapshotCounts>());
  }
  return answers;
}

const stockAndPrice = (orgId: string) =>
  rowsWhereStored<{ stock_number: string; status: string; asking_price: number }>(
    orgId,
    "SELECT stock_number, status, asking_price FROM inventory_units WHERE org_id = ? ORDER BY stock_number",
    orgId,
  );

describe("npm run storage -- move: D1 → the organization's object, while writes arrive", () => {
  it("copies, verifies and flips with no write lost or applied twice; reads answer throughout; undo brings every write back", async () => {
    const { org, store, key } = await organizationWithUnits();
    const reader = (await createApiKey(org.id, { dailyLimit: 100_000 })).key;
    const WRITES = 12;

    // The move starts while the snapshots arrive; writes that meet it wait for its flip.
    const reads: number[] = [];
    let writing = true;
    const [answers, report] = await Promise.all([
      writeSnapshots(store.id, key, 0, WRITES).finally(() => {
        writing = false;
      }),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return moveToObject(env, org.id);
      })(),
      (async () => {
        while (writing) {
          const res = await call("/api/v1/inventory?limit=500", { key: reader });
          expect(res.status).toBe(200);
          reads.push((await res.json<Feed>()).count);
        }
      })(),
    ]);

    expect(report.storage).toBe("object");
    expect(report.tables.inventory_units.rows).toBeGreaterThanOrEqual(BASE_UNITS.length);
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("object");
    // Each snapshot applied once: one new unit each, unit 0 repriced by every snapshot after the first.
    expect(answers.map((a) => a.created)).toEqual(Array(WRITES).fill(1));
    expect(answers.map((a) => a.updated)).toEqual(Array(WRITES).fill(1));
    const stock = await stockAndPrice(org.id);
    expect(stock).toHaveLength(BASE_UNITS.length + WRITES);
    expect(stock.every((u) => u.status === "in_stock")).toBe(true);
    expect(stock.find((u) => u.stock_number === "S00000")?.asking_price).toBe(30_000 + WRITES - 1);
    // Every read answered with a whole snapshot: the base units and the new ones so far.
    for (const count of reads) expect(count).toBeGreaterThanOrEqual(BASE_UNITS.length);

    // The feed now comes from the object, and D1 keeps its copy as of the flip (what an undo falls back on).
    const feed = await (await call("/api/v1/inventory?limit=500", { key: reader })).json<Feed>();
    expect(feed.count).toBe(BASE_UNITS.length + WRITES);
    const d1Copy = await env.DB.prepare("SELECT count(*) AS n FROM inventory_units WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(d1Copy?.n).toBe(report.tables.inventory_units.rows);

    // Writes after the move, with the key's record (and its flag, `d1`) still cached: D1's fence
    // refuses them, they read the flag again and land in the object only. Then the undo: every one
    // of them is back in D1, and D1 serves again.
    await writeSnapshots(store.id, key, WRITES, 3);
    const stillD1Copy = await env.DB.prepare("SELECT count(*) AS n FROM inventory_units WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(stillD1Copy?.n).toBe(report.tables.inventory_units.rows);
    expect(await stockAndPrice(org.id)).toHaveLength(BASE_UNITS.length + WRITES + 3);
    const back = await moveToD1(env, org.id);
    expect(back.storage).toBe("d1");
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
    expect(await groupDigest(getDb(env.DB), org.id)).toMatchObject({ inventory_units: back.tables.inventory_units });
    const restored = await stockAndPrice(org.id);
    expect(restored).toHaveLength(BASE_UNITS.length + WRITES + 3);
    expect(restored.find((u) => u.stock_number === "S00000")?.asking_price).toBe(30_000 + WRITES + 2);
    // The object stops serving: a request that still thinks the data is there is sent back to D1.
    expect(await orgStore(env, org.id).inventoryPage(org.id, { limit: 1 })).toEqual({ notServing: true });
    expect((await writeSnapshots(store.id, key, WRITES + 3, 1))[0]).toMatchObject({ created: 1 });

    // Moved again: the object starts from D1's rows, not what it held before.
    const again = await moveToObject(env, org.id);
    expect(again.tables.inventory_units.rows).toBe(BASE_UNITS.length + WRITES + 4);
  });

  it("moves while deal pushes arrive: each applied once, each stip alert raised once; the undo brings every deal, stip and month back to D1", async () => {
    const { org, store, key } = await organizationWithUnits();
    const reader = (await createApiKey(org.id, { dailyLimit: 100_000 })).key;
    const WRITES = 10;
    /** The i-th push: deal D-BASE_UNITS regrossed, and a new pipeline deal D-i with a new stip (one alert). */
    const push = (i: number) => ({
      deals: [
        deal("D-BASE_UNITS", store.id, { front_gross: 1000 + i }),
        deal(`D-${i}`, store.id, { stips: [{ stip: "title", state: "outstanding" }] }),
      ],
    });
    const pushes = async (from: number, count: number) => {
      const answers: { created: number; updated: number; stip_alerts: number }[] = [];
      for (let i = from; i < from + count; i++) {
        const res = await postDeals({ key }, push(i));
        expect(res.status, await res.clone().text()).toBe(200);
        answers.push(await res.json());
      }
      return answers;
    };
    const summary = async () =>
      (await (await call("/api/v1/sales-summary?limit=10", { key: reader })).json<{ salesSummary: { units: number; totalGross: number }[] }>())
        .salesSummary;

    const [answers] = await Promise.all([
      pushes(0, WRITES),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return moveToObject(env, org.id);
      })(),
    ]);
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("object");
    expect(answers.map((a) => a.created)).toEqual([2, ...Array(WRITES - 1).fill(1)]);
    expect(answers.map((a) => a.updated)).toEqual([0, ...Array(WRITES - 1).fill(1)]);
    expect(answers.map((a) => a.stip_alerts)).toEqual(Array(WRITES).fill(1));
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toHaveLength(WRITES);
    const dealsHeld = () => rowsWhereStored(org.id, "SELECT deal_number, front_gross FROM deals WHERE org_id = ? ORDER BY deal_number", org.id);
    expect(await dealsHeld()).toHaveLength(WRITES + 1);
    expect((await dealsHeld()).find((d) => d.deal_number === "D-BASE_UNITS")?.front_gross).toBe(1000 + WRITES - 1);
    // The month's rollup, from the object: every deal once, the last gross of D-BASE_UNITS.
    const grossOf = (last: number, count: number) => count * (1850 + 1320) + 1000 + last + 1320;
    expect(await summary()).toEqual([expect.objectContaining({ units: WRITES + 1, totalGross: grossOf(WRITES - 1, WRITES) })]);

    // Pushes after the move (the key's flag still cached as `d1`) land in the object only; the undo brings them back.
    await pushes(WRITES, 2);
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM deals WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(inD1?.n).toBeLessThan(WRITES + 3);
    const back = await moveToD1(env, org.id);
    expect(back.tables).toMatchObject({ deals: { rows: WRITES + 3 }, deal_stips: { rows: WRITES + 2 }, sales_monthly: { rows: 1 } });
    expect(await groupDigest(getDb(env.DB), org.id)).toMatchObject({
      deals: back.tables.deals,
      deal_stips: back.tables.deal_stips,
      sales_monthly: back.tables.sales_monthly,
    });
    expect(await summary()).toEqual([expect.objectContaining({ units: WRITES + 3, totalGross: grossOf(WRITES + 1, WRITES + 2) })]);
    // A replay after the undo changes nothing and raises nothing: D1 holds the stips the object stored.
    expect(await (await postDeals({ key }, push(WRITES + 1))).json()).toMatchObject({ created: 0, updated: 0, stip_alerts: 0 });
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toHaveLength(WRITES + 2);
  });

  it("moves while screenings are recorded: each check recorded once, the history follows the move, the undo brings every check back", async () => {
    const { org } = await organizationWithUnits();
    const key = (await createApiKey(org.id, { dailyLimit: 100_000 })).key;
    const NAMES = ["Alice", "Brenda", "Carla", "Diana", "Erin", "Fiona", "Gina", "Hanna", "Iris", "Julia", "Kara", "Lena", "Maria"];
    const WRITES = 10;
    // One SSN's last four and date of birth under a new name each time: every check after the first meets the earlier ones.
    const screen = async (i: number) => {
      const res = await call(
        "/api/v1/compliance-check",
        complianceCheck(key, { first_name: NAMES[i], last_name: "Benson", dob: "1981-06-14", ssn_last4: "5902" }),
      );
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json<{ check_id: string; red_flags: { code: string }[] }>();
    };
    const screenings = async (from: number, count: number) => {
      const answers = [];
      for (let i = from; i < from + count; i++) answers.push(await screen(i));
      return answers;
    };
    const [answers] = await Promise.all([
      screenings(0, WRITES),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return moveToObject(env, org.id);
      })(),
    ]);
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("object");
    const shared = (a: { red_flags: { code: string }[] }) => a.red_flags.some((f) => f.code === "ssn_shared_with_other_name");
    expect(answers.map(shared)).toEqual([false, ...Array(WRITES - 1).fill(true)]);
    const held = () => rowsWhereStored<{ id: string }>(org.id, "SELECT id FROM compliance_checks WHERE org_id = ? ORDER BY id", org.id);
    expect((await held()).map((r) => r.id)).toEqual(answers.map((a) => a.check_id).sort());

    // After the move (the key's flag still cached as `d1`): recorded in the object only, with the history copied there; each is read back.
    const after = await screenings(WRITES, 2);
    expect(after.map(shared)).toEqual([true, true]);
    expect(await held()).toHaveLength(WRITES + 2);
    for (const { check_id } of [answers[0], ...after]) expect((await call(`/api/v1/compliance-checks/${check_id}`, { key })).status).toBe(200);
    const back = await moveToD1(env, org.id);
    expect(back.tables.compliance_checks.rows).toBe(WRITES + 2);
    expect((await groupDigest(getDb(env.DB), org.id)).compliance_checks).toEqual(back.tables.compliance_checks);
    expect((await screenings(WRITES + 2, 1)).map(shared)).toEqual([true]);
  });

  it("a copy that loses a compliance check is not switched to: 409, the organization stays in D1; the move run again copies them whole", async () => {
    const { org } = await organizationWithUnits();
    const key = (await createApiKey(org.id)).key;
    for (const first_name of ["Alice", "Brenda"])
      expect((await call("/api/v1/compliance-check", complianceCheck(key, { first_name, last_name: "Benson", dob: "1981-06-14" }))).status).toBe(200);
    const real = orgStore(env, org.id);
    const namespace = copyingThrough(real, {
      loadChecks: (...[orgId, checks, first]: Parameters<OrganizationStore["loadChecks"]>) => real.loadChecks(orgId, checks.slice(1), first),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, org.id).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { compliance_checks: { rows: 2 } }, object: { compliance_checks: { rows: 1 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
    // Run again, the copy starts clean: the failed copy's check is not met twice.
    expect((await moveToObject(env, org.id)).tables.compliance_checks.rows).toBe(2);
  });

  it("moves while briefings are requested: each stored once, in the object; the undo brings the briefings and markers back, less what the object's retention deleted", async () => {
    const { org, store } = await organizationWithUnits();
    const key = (await createApiKey(org.id, { dailyLimit: 100_000 })).key;
    const today = isoDay(new Date());
    const old = isoDay(new Date(Date.now() - 20 * 86_400_000));
    // In D1 before the move: an aged crossing's marker and an old briefing.
    await env.DB.batch([
      env.DB.prepare("INSERT INTO aged_inventory_alerts (org_id, stock_number, stocked_on, alerted_at) VALUES (?, 'S00001', '2026-09-01', ?)").bind(
        org.id,
        new Date().toISOString(),
      ),
      env.DB.prepare("INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, ?, 'gm', ?, ?, '{}')").bind(
        org.id,
        store.id,
        old,
        `${old}T06:00:00.000Z`,
      ),
    ]);
    const briefings = async () => {
      const answers = [];
      for (const role of ROLES) {
        const res = await call("/api/v1/morning-briefing", {
          method: "POST",
          key,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ role, store_id: store.id }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        answers.push({ role, generated_at: (await res.json<{ generated_at: string }>()).generated_at });
      }
      return answers;
    };
    const [answers] = await Promise.all([
      briefings(),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return moveToObject(env, org.id);
      })(),
    ]);
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("object");
    // Each role's briefing stored once, where its answer came from: the object holds every one, as answered.
    const held = async () =>
      (
        await rowsWhereStored<{ role: string; body: string }>(
          org.id,
          "SELECT role, body FROM morning_briefings WHERE org_id = ? AND day = ? ORDER BY role",
          org.id,
          today,
        )
      ).map((r) => ({ role: r.role, generated_at: JSON.parse(r.body).generated_at }));
    expect(await held()).toEqual([...answers].sort((a, b) => a.role.localeCompare(b.role)));
    expect(await rowsWhereStored(org.id, "SELECT stock_number FROM aged_inventory_alerts WHERE org_id = ?", org.id)).toEqual([
      { stock_number: "S00001" },
    ]);

    // The object's retention deletes the old briefing (as its alarm does: test/org-storage/briefings.test.ts); the undo follows.
    await rowsWhereStored(org.id, "DELETE FROM morning_briefings WHERE day = ?", old);
    const back = await moveToD1(env, org.id);
    expect(back.tables).toMatchObject({ morning_briefings: { rows: ROLES.length }, aged_inventory_alerts: { rows: 1 } });
    expect(await briefingsDigest(getDb(env.DB), org.id)).toEqual({
      morning_briefings: back.tables.morning_briefings,
      aged_inventory_alerts: back.tables.aged_inventory_alerts,
    });
    expect(await held()).toHaveLength(ROLES.length);
    expect(await all("SELECT role FROM morning_briefings WHERE org_id = ? AND day = ?", org.id, old)).toEqual([]);
  });

  it("a copy that loses a briefing, or an aged-alert marker, is not switched to: 409, the organization stays in D1; the move run again copies them whole", async () => {
    const { org, store } = await organizationWithUnits();
    const key = (await createApiKey(org.id)).key;
    for (const role of ["gm", "fi_director"])
      expect(
        (
          await call("/api/v1/morning-briefing", {
            method: "POST",
            key,
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ role, store_id: store.id }),
          })
        ).status,
      ).toBe(200);
    const real = orgStore(env, org.id);
    const namespace = copyingThrough(real, {
      loadBriefings: (...[orgId, briefings, markers, first]: Parameters<OrganizationStore["loadBriefings"]>) =>
        real.loadBriefings(orgId, briefings.slice(1), markers, first),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, org.id).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { morning_briefings: { rows: 2 } }, object: { morning_briefings: { rows: 1 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
    // A lost aged-alert marker is refused too: it is what keeps a crossing from alerting twice.
    await env.DB.prepare(
      "INSERT INTO aged_inventory_alerts (org_id, stock_number, stocked_on, alerted_at) VALUES (?, 'S00001', '2026-09-01', '2026-10-16T00:15:00.000Z'), (?, 'S00002', '2026-09-01', '2026-10-16T00:15:00.000Z')",
    )
      .bind(org.id, org.id)
      .run();
    const losingMarker = copyingThrough(real, {
      loadBriefings: (...[orgId, briefings, markers, first]: Parameters<OrganizationStore["loadBriefings"]>) =>
        real.loadBriefings(orgId, briefings, markers.slice(1), first),
    });
    expect(await moveToObject({ DB: env.DB, ORG_STORE: losingMarker }, org.id).catch((error: unknown) => error)).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { aged_inventory_alerts: { rows: 2 } }, object: { aged_inventory_alerts: { rows: 1 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
    expect((await moveToObject(env, org.id)).tables).toMatchObject({ morning_briefings: { rows: 2 }, aged_inventory_alerts: { rows: 2 } });
  });

  it("moves while snapshots arrive on a stale feed: store.feed_resumed once, the last delivery kept, in the object only; the undo writes the object's feeds back", async () => {
    const { org, store, key } = await organizationWithUnits();
    // The feed stopped 25 hours ago, and D1's job opened its episode.
    const stoppedAt = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await env.DB.prepare("UPDATE store_feeds SET received_at = ? WHERE store_id = ?").bind(stoppedAt, store.id).run();
    await runCron("*/5 * * * *", Date.now(), env);
    expect(await listOutboxEvents(org.id, "store.feed_stale")).toHaveLength(1);
    type FeedRow = { feed: string; received_at: string; stale_since: string | null };
    const feeds = () => rowsWhereStored<FeedRow>(org.id, "SELECT feed, received_at, stale_since FROM store_feeds WHERE org_id = ?", org.id);
    const inD1 = async () =>
      (await env.DB.prepare("SELECT feed, received_at, stale_since FROM store_feeds WHERE org_id = ?").bind(org.id).all<FeedRow>()).results;

    const started = new Date().toISOString();
    await Promise.all([
      writeSnapshots(store.id, key, 0, 6),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return moveToObject(env, org.id);
      })(),
    ]);
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("object");
    // Whichever side the first snapshot landed on closed the episode, once; the feed's one row holds the last delivery.
    const resumed = await listOutboxEvents(org.id, "store.feed_resumed");
    expect(resumed.map((e) => e.data.last_received_at)).toEqual([stoppedAt]);
    const [moved] = await feeds();
    expect(moved).toMatchObject({ feed: "inventory", stale_since: null });
    expect(moved.received_at >= started).toBe(true);

    // A delivery after the flip is recorded in the object, not in D1's kept copy.
    await writeSnapshots(store.id, key, 6, 1);
    const [later] = await feeds();
    expect(later.received_at > moved.received_at).toBe(true);
    expect((await inD1())[0].received_at <= moved.received_at).toBe(true);

    const back = await moveToD1(env, org.id);
    expect(back.tables.store_feeds).toEqual((await feedsDigest(getDb(env.DB), org.id)).store_feeds);
    expect(await inD1()).toEqual([later]);
    // Back in D1 the feed is fresh and has no episode: the next snapshot raises nothing.
    await writeSnapshots(store.id, key, 7, 1);
    expect(await listOutboxEvents(org.id, "store.feed_resumed")).toHaveLength(1);
  });

  it("a write that arrives during the write pause waits for the flip, then lands once, in the object", async () => {
    const { org, store, key } = await organizationWithUnits();
    // The flag says `moving`, as in a move's write pause (here with no move under way: a move of the code before the catch-up, stopped in its pause; the move starts over).
    await env.DB.prepare("UPDATE organizations SET storage = 'moving' WHERE id = ?").bind(org.id).run();
    let settled = false;
    const write = putInventory(store.id, { key }, { units: growingSnapshot(0) }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(settled, "the write waits while the organization moves").toBe(false);
    // A read is answered meanwhile, from D1 (the copy's source, which no write changes).
    const reader = (await createApiKey(org.id)).key;
    expect((await (await call("/api/v1/inventory", { key: reader })).json<Feed>()).count).toBe(BASE_UNITS.length);

    const report = await moveToObject(env, org.id);
    expect(report.tables.inventory_units.rows).toBe(BASE_UNITS.length);
    const res = await write;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ created: 1, updated: 1 });
    expect(await stockAndPrice(org.id)).toHaveLength(BASE_UNITS.length + 1);
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM inventory_units WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(inD1?.n).toBe(BASE_UNITS.length);
  });

  it("is the operator API's storage/move and storage/undo (what `npm run storage` calls): digests, 404, 409", async () => {
    const { org } = await organizationWithUnits();
    const operator = { Authorization: `Bearer ${await createOperatorToken()}` };
    const post = (path: string) => call(path, { method: "POST", headers: operator });

    const moved = await post(`/api/operator/organizations/${org.id}/storage/move`);
    expect(moved.status).toBe(200);
    const report = await moved.json<{ storage: string; tables: Record<string, { rows: number; sha256: string }> }>();
    expect(report).toMatchObject({
      org_id: org.id,
      storage: "object",
      tables: { inventory_units: { rows: BASE_UNITS.length }, stores: { rows: 1 } },
    });
    expect(report.tables.inventory_units.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Again: already there, the same digests.
    expect(await (await post(`/api/operator/organizations/${org.id}/storage/move`)).json()).toMatchObject({ tables: report.tables });

    // An undo under way refuses a move (the flag says where a move stands).
    await env.DB.prepare("UPDATE organizations SET storage = 'returning' WHERE id = ?").bind(org.id).run();
    const refused = await post(`/api/operator/organizations/${org.id}/storage/move`);
    expect(refused.status, await refused.clone().text()).toBe(409);
    const back = await post(`/api/operator/organizations/${org.id}/storage/undo`);
    expect(back.status).toBe(200);
    expect(await back.json()).toMatchObject({ storage: "d1", tables: { inventory_units: report.tables.inventory_units } });

    expect((await post("/api/operator/organizations/org_nobody/storage/move")).status).toBe(404);
    expect((await call(`/api/operator/organizations/${org.id}/storage/move`, { method: "POST" })).status).toBe(401);
  });

  it("copies in pages: 1,201 units and their market values, 1,001 deals and their stips arrive whole, each once", async () => {
    const { org, store } = await organizationWithUnits();
    // 1,141 copies of unit 0 under new ids and stock numbers: three pages of the copy.
    await env.DB.prepare(
      `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1141)
       SELECT 'unit_page_' || printf('%05d', i), org_id, store_id, printf('P-%05d', i), vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status
       FROM inventory_units, n WHERE org_id = ? AND stock_number = 'S00000'`,
    )
      .bind(org.id)
      .run();
    // Every third unit valued, on every page and at each page's edges (ids in order, 500 a page).
    await env.DB.prepare(
      `INSERT INTO unit_market_values (unit_id, org_id, market_value, as_of, source)
       SELECT id, org_id, asking_price - 500, '2026-11-01', 'test' FROM (SELECT id, org_id, asking_price, row_number() OVER (ORDER BY id) AS n FROM inventory_units WHERE org_id = ?)
       WHERE n % 3 = 0 OR n IN (500, 501, 1000, 1001, 1201)`,
    )
      .bind(org.id)
      .run();
    // 1,001 deals over three months (three pages of the copy), every second one with a stip, at each page's edges too.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1001)
       INSERT INTO deals (id, org_id, store_id, deal_number, sold_on, status, vin, year, make, model, condition, vehicle_type, selling_price, front_gross, back_gross)
       SELECT printf('deal_%05d', i), ?, ?, printf('D%05d', i), printf('2026-%02d-15', 9 + i % 3), CASE WHEN i % 7 = 0 THEN 'unwound' ELSE 'funded' END,
              '1HGCV1F34NA012345', 2022, 'Honda', 'Accord', 'used', 'car', 25000, 1000 + i, 500.25 FROM n`,
    )
      .bind(org.id, store.id)
      .run();
    await env.DB.prepare(
      `INSERT INTO deal_stips (id, org_id, deal_id, stip, state, requested_on)
       SELECT 'stp_' || id, org_id, id, 'title', 'outstanding', '2026-11-01' FROM (SELECT id, org_id, row_number() OVER (ORDER BY id) AS n FROM deals WHERE org_id = ?)
       WHERE n % 2 = 0 OR n IN (500, 501, 1001)`,
    )
      .bind(org.id)
      .run();
    const report = await moveToObject(env, org.id);
    expect(report.tables.inventory_units.rows).toBe(1201);
    expect(report.tables.unit_market_values.rows).toBe(400 + 4);
    expect(report.tables).toMatchObject({ deals: { rows: 1001 }, deal_stips: { rows: 500 + 2 }, sales_monthly: { rows: 3 } });
    expect(await rowsWhereStored(org.id, "SELECT id FROM deal_stips")).toHaveLength(502);
    expect(await rowsWhereStored(org.id, "SELECT unit_id FROM unit_market_values")).toHaveLength(404);
    const inD1 = getDb(env.DB);
    expect({
      ...(await groupDigest(inD1, org.id)),
      ...(await lenderDigest(inD1, org.id)),
      ...(await settingsDigest(inD1, org.id)),
      ...(await webhooksDigest(inD1, org.id)),
      ...(await briefingsDigest(inD1, org.id)),
      ...(await panelsDigest(inD1, org.id)),
      ...(await feedsDigest(inD1, org.id)),
    }).toEqual(report.tables);
  });

  it("a copy that differs from D1 is not switched to: 409 with both digests, the organization stays in D1", async () => {
    const { org, store, key } = await organizationWithUnits();
    // The object's side of the copy loses one price on the way (what a bug in a copy would do).
    const real = orgStore(env, org.id);
    const namespace = copyingThrough(real, {
      load: (orgId: string, names: { id: string; name: string }[], units: StoredUnit[], values: StoredMarketValue[], first: boolean) =>
        real.load(
          orgId,
          names,
          units.map((u) => (u.stockNumber === "S00007" ? { ...u, askingPrice: 1 } : u)),
          values,
          first,
        ),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, org.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: "conflict", extra: { facts: { d1: { inventory_units: { rows: BASE_UNITS.length } } } } });
    const { facts } = (refused as DomainError).extra as { facts: Record<string, Record<string, { rows: number; sha256: string }>> };
    expect(facts.object.inventory_units.rows).toBe(BASE_UNITS.length);
    expect(facts.object.inventory_units.sha256).not.toBe(facts.d1.inventory_units.sha256);
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
    expect(await real.inventoryPage(org.id, { limit: 1 })).toEqual(NOT_SERVING);
    // Writes go on in D1.
    expect((await writeSnapshots(store.id, key, 0, 1))[0]).toMatchObject({ created: 1 });
  });

  it("a copy that loses a market value is not switched to either; the move run again starts clean and copies them whole", async () => {
    const { org, store } = await organizationWithUnits();
    // Deals too: the failed copy leaves them in the object, and the run again must not meet them there.
    await createDeal(org.id, store.id, { soldOn: "2026-10-01", frontGross: 1000, backGross: 500 });
    await createDeal(org.id, store.id, { soldOn: "2026-11-01", frontGross: 800, backGross: 0 });
    await env.DB.prepare(
      `INSERT INTO unit_market_values (unit_id, org_id, market_value, as_of, source)
       SELECT id, org_id, asking_price - 500, '2026-11-01', 'test' FROM inventory_units WHERE org_id = ? AND stock_number <= 'S00009'`,
    )
      .bind(org.id)
      .run();
    const real = orgStore(env, org.id);
    const namespace = copyingThrough(real, {
      load: (orgId: string, names: { id: string; name: string }[], units: StoredUnit[], values: StoredMarketValue[], first: boolean) =>
        real.load(orgId, names, units, values.slice(1), first),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, org.id).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { unit_market_values: { rows: 10 } }, object: { unit_market_values: { rows: 9 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
    const report = await moveToObject(env, org.id);
    expect(report.tables.unit_market_values.rows).toBe(10);
    expect(report.tables).toMatchObject({ deals: { rows: 2 }, sales_monthly: { rows: 2 } });
  });

  it("a copy whose sales rollup differs from D1's is not switched to: the rollup is verified with its deals", async () => {
    const { org, store } = await organizationWithUnits();
    await createDeal(org.id, store.id, { soldOn: "2026-10-01", frontGross: 1000, backGross: 500 });
    const real = orgStore(env, org.id);
    const namespace = copyingThrough(real, {
      loadDeals: (...[orgId, deals, stips, months]: Parameters<OrganizationStore["loadDeals"]>) =>
        real.loadDeals(
          orgId,
          deals,
          stips,
          months?.map((m) => ({ ...m, units: m.units + 1 })),
        ),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, org.id).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { sales_monthly: { rows: 1 } }, object: { sales_monthly: { rows: 1 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");
  });

  it("copies 1,001 lender decisions in pages with the episodes, refuses a copy that loses one, and the undo brings back what the object's job wrote", async () => {
    const { org, store } = await organizationWithUnits();
    // 1,001 decisions (three pages, ids in order), and one open episode of the program.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1001)
       INSERT INTO lender_decisions (id, org_id, store_id, program_id, submitted_on, score_band, decision, stips_asked, turnaround_hours)
       SELECT printf('ld_%05d', i), ?, ?, 'lp_harbor_point_bank', printf('2026-%02d-15', 6 + i % 5), 'prime',
              CASE WHEN i % 4 = 0 THEN 'declined' ELSE 'approved' END, '["Proof of income"]', CASE WHEN i % 4 = 0 THEN NULL ELSE 20 + i % 9 END FROM n`,
    )
      .bind(org.id, store.id)
      .run();
    const figures = { lender: "Harbor Point Bank", summary: "fell", before: { approval_rate: 0.78 }, after: { approval_rate: 0.41 } };
    await env.DB.prepare(
      "INSERT INTO lender_outcome_episodes (id, org_id, store_id, program_id, opened_at, figures) VALUES ('loe_z', ?, ?, 'lp_harbor_point_bank', '2026-10-01T05:00:00.000Z', ?)",
    )
      .bind(org.id, store.id, JSON.stringify(figures))
      .run();

    // A copy that drops one decision on the way is not switched to.
    const real = orgStore(env, org.id);
    const namespace = copyingThrough(real, {
      loadLenderDecisions: (...[orgId, decisions, episodes, first]: Parameters<OrganizationStore["loadLenderDecisions"]>) =>
        real.loadLenderDecisions(orgId, first ? decisions.slice(1) : decisions, episodes, first),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, org.id).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { lender_decisions: { rows: 1001 } }, object: { lender_decisions: { rows: 1000 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("d1");

    // Run again, it starts clean and copies them whole.
    const report = await moveToObject(env, org.id);
    expect(report.tables).toMatchObject({ lender_decisions: { rows: 1001 }, lender_outcome_episodes: { rows: 1 } });
    expect(await rowsWhereStored(org.id, "SELECT id FROM lender_decisions")).toHaveLength(1001);
    // The object's lender-outcome job closes the episode and opens another for the same store and program (id sorting first).
    await runInDurableObject(real, (_, state) =>
      outcomeStore(drizzle(state.storage), org.id).write(
        [{ id: "loe_a", orgId: org.id, storeId: store.id, programId: "lp_harbor_point_bank", openedAt: "2026-11-20T05:00:00.000Z", figures }],
        ["loe_z"],
        "2026-11-20T05:00:00.000Z",
        [],
      ),
    );
    // The undo writes the closed one back before the open one: D1's open-episode index is unique per store and program.
    const back = await moveToD1(env, org.id);
    expect(back.tables).toMatchObject({ lender_decisions: { rows: 1001 }, lender_outcome_episodes: { rows: 2 } });
    expect(await all("SELECT id, closed_at FROM lender_outcome_episodes WHERE org_id = ? ORDER BY id", org.id)).toEqual([
      { id: "loe_a", closed_at: null },
      { id: "loe_z", closed_at: "2026-11-20T05:00:00.000Z" },
    ]);
    expect(await lenderDigest(getDb(env.DB), org.id)).toEqual({
      lender_decisions: back.tables.lender_decisions,
      lender_outcome_episodes: back.tables.lender_outcome_episodes,
    });
  });

  it("a store added after the move shows in the object's feed under its directory name, with the units sent for it", async () => {
    const { org, key } = await organizationWithUnits();
    await moveToObject(env, org.id);
    const south = await createStore(org.id, { name: "South Lot" });
    expect((await putInventory(south.id, { key }, { units: [unit(500, { stock_number: "SOUTH-1" })] })).status).toBe(200);
    const reader = (await createApiKey(org.id)).key;
    const page = await (await call(`/api/v1/inventory?store_id=${south.id}`, { key: reader })).json<Feed>();
    expect(page.inventory.map((u) => [u.stock_number, u.store])).toEqual([["SOUTH-1", "South Lot"]]);
  });

  it("a store added after the move shows in the object's sales summary under its directory name, with the deals pushed for it", async () => {
    const { org, key } = await organizationWithUnits();
    await moveToObject(env, org.id);
    const south = await createStore(org.id, { name: "South Lot" });
    expect((await postDeals({ key }, { deals: [deal("SOUTH-D1", south.id, { status: "funded" })] })).status).toBe(200);
    const reader = (await createApiKey(org.id)).key;
    const page = await (await call(`/api/v1/sales-summary?store_id=${south.id}`, { key: reader })).json<{
      salesSummary: { store: string; units: number }[];
    }>();
    expect(page.salesSummary.map((r) => [r.store, r.units])).toEqual([["South Lot", 1]]);
  });

  it("a write that waits 10 s for a move that does not finish is refused with 503 and Retry-After, nothing written", async () => {
    const { org, store, key } = await organizationWithUnits();
    await env.DB.prepare("UPDATE organizations SET storage = 'moving' WHERE id = ?").bind(org.id).run();
    const res = await putInventory(store.id, { key }, { units: growingSnapshot(0) });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect(await res.json()).toMatchObject({ error: "upstream_timeout" });
    expect(await stockAndPrice(org.id)).toHaveLength(BASE_UNITS.length);
  });

  it("a move while events are raised and delivered: each event delivered once, its delivery and attempt in the object; the undo brings them back", async () => {
    const org = await createOrg({ place: "d1" });
    const store = await createStore(org.id);
    const { key } = await createApiKey(org.id);
    const name = "move-while-events";
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", name), events: ["inventory.aged_alert"] });
    await tellReceiverSecret(name, endpoint.secret);
    const queue = capturingQueue();
    const data = (i: number) => ({ stock_no: `M${i}`, days_on_lot: 45, recommendation: "Reprice" });
    const raise = (i: number) =>
      commitWithEvents(
        queue.env,
        getDb(env.DB),
        [],
        [{ event: "inventory.aged_alert", orgId: org.id, storeId: store.id, data: data(i) }],
        new Date(),
      );
    // Every message sent so far, fan-outs and deliveries, through the Worker's queue(): each acked.
    const drain = async () => {
      for (let message = queue.sent.shift(); message !== undefined; message = queue.sent.shift())
        expect(await consumeOne(queue.env, message, 1)).toMatchObject({ acked: true });
    };
    for (let i = 0; i < 3; i++) await raise(i);
    await drain();
    // Raised, fanned out and delivered while the move copies: a fan-out or an attempt that meets it waits for the flip.
    const during = (async () => {
      for (let i = 3; i < 9; i++) {
        await raise(i);
        await drain();
      }
    })();
    await Promise.all([moveToObject(env, org.id), during]);
    for (let i = 9; i < 12; i++) await raise(i);
    await drain();

    const events = (await listOutboxEvents(org.id, "inventory.aged_alert")).map((e) => e.id).sort();
    expect(events).toHaveLength(12);
    const received = (await receivedBy(name)).map((r) => r.headers["x-service-webhook-id"]).sort();
    expect(received).toEqual(events);
    const held = await rowsWhereStored<{ event_id: string; status: string; attempt_count: number }>(
      org.id,
      "SELECT event_id, status, attempt_count FROM webhook_deliveries WHERE org_id = ? ORDER BY event_id",
      org.id,
    );
    expect(held).toEqual(events.map((event_id) => ({ event_id, status: "delivered", attempt_count: 1 })));
    const back = await moveToD1(env, org.id);
    expect(back.tables.webhook_deliveries.rows).toBe(12);
    expect(back.tables.webhook_attempts.rows).toBe(12);
    expect(
      await rowsWhereStored(org.id, "SELECT event_id, status, attempt_count FROM webhook_deliveries WHERE org_id = ? ORDER BY event_id", org.id),
    ).toEqual(held);
  });

  it("an event raised while its organization moves is fanned out at the flip, in the object: its message waits and is acked, not sent back to the queue for 20 minutes", async () => {
    const org = await createOrg({ place: "d1" });
    const store = await createStore(org.id);
    const { key } = await createApiKey(org.id);
    await createEndpoint(key, { url: receiverUrl("ok", "fan-out-while-moving"), events: ["inventory.aged_alert"] });
    await env.DB.prepare("UPDATE organizations SET storage = 'moving' WHERE id = ?").bind(org.id).run();
    const queue = capturingQueue();
    const data = { stock_no: "MV1", days_on_lot: 45, recommendation: "Reprice" };
    await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "inventory.aged_alert", orgId: org.id, storeId: store.id, data }], new Date());
    const [eventMessage] = queue.sent.splice(0);
    let settled = false;
    const fanOut = consumeOne(queue.env, eventMessage, 1).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(settled, "the fan-out waits while the organization moves").toBe(false);
    await moveToObject(env, org.id);
    expect(await fanOut).toEqual({ acked: true, retry: null });
    expect(queue.sent).toEqual([{ kind: "delivery", orgId: org.id, deliveryId: expect.stringMatching(/^dlv_/) }]);
    expect(await rowsWhereStored(org.id, "SELECT event, status FROM webhook_deliveries WHERE org_id = ?", org.id)).toEqual([
      { event: "inventory.aged_alert", status: "pending" },
    ]);
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE org_id = ?").bind(org.id).first<{ n: number }>();
    expect(inD1?.n).toBe(0);
  });

  it("an endpoint deleted in the object after the move is gone after the undo, with its deliveries; the one kept is listed", async () => {
    const org = await createOrg({ place: "d1" });
    const { key } = await createApiKey(org.id);
    const kept = await createEndpoint(key, { url: receiverUrl("ok", "undo-kept"), events: ["inventory.aged_alert"] });
    const gone = await createEndpoint(key, { url: receiverUrl("ok", "undo-gone"), events: ["deal.stip_alert"] });
    await env.DB.prepare(
      "INSERT INTO event_outbox (id, org_id, event, data, occurred_at, fanned_out_at) VALUES ('evt_undo_gone', ?, 'deal.stip_alert', '{}', ?, ?)",
    )
      .bind(org.id, new Date().toISOString(), new Date().toISOString())
      .run();
    await env.DB.prepare(
      "INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event, status, created_at, updated_at) VALUES ('dlv_undo_gone', ?, ?, 'evt_undo_gone', 'deal.stip_alert', 'delivered', ?, ?)",
    )
      .bind(org.id, gone.id, new Date().toISOString(), new Date().toISOString())
      .run();
    await moveToObject(env, org.id);
    const moved = (await createApiKey(org.id)).key;
    expect((await call(`/api/v1/webhooks/${gone.id}`, { method: "DELETE", key: moved })).status).toBe(204);

    const back = await moveToD1(env, org.id);
    expect(back.tables.webhook_endpoints.rows).toBe(1);
    const after = (await createApiKey(org.id)).key;
    expect((await (await call("/api/v1/webhooks", { key: after })).json<{ endpoints: { id: string }[] }>()).endpoints.map((e) => e.id)).toEqual([
      kept.id,
    ]);
    expect((await call(`/api/v1/webhooks/${gone.id}`, { key: after })).status).toBe(404);
    expect(await all("SELECT id FROM webhook_deliveries WHERE org_id = ?", org.id)).toEqual([]);
  });
});

describe("the settings group's lender panels and screening thresholds move and come back", () => {
  const panelOf = (orgId: string, storeId: string) =>
    rowsWhereStored<{ program_id: string }>(orgId, "SELECT program_id FROM store_lender_panel WHERE store_id = ? ORDER BY program_id", storeId).then(
      (rows) => rows.map((r) => r.program_id),
    );
  const panelAudit = (orgId: string) =>
    rowsWhereStored<{ new_value: string }>(
      orgId,
      "SELECT new_value FROM settings_audit WHERE org_id = ? AND area = 'lender_panel' ORDER BY new_value",
      orgId,
    ).then((rows) => rows.map((r) => r.new_value));

  it("a panel PUT during a move waits for the flip and lands once in the object; the undo writes the panel, the thresholds and their audit rows back", async () => {
    const { orgId, storeId } = await createDeskOrg({ place: "d1", programIds: ["lp_harbor_point_bank"] });
    const broker = (await createBrokerToken(orgId)).token;
    const put = (programs: string[]) => brokerCall(`/api/settings/stores/${storeId}/lender-panel`, broker, { method: "PUT", body: { programs } });
    expect((await put(["lp_fresh_start_auto_lending"])).status).toBe(200);
    const thresholds = (body: Record<string, number>) => brokerCall("/api/settings/compliance", broker, { method: "PATCH", body });
    expect((await thresholds({ minimum_age: 21 })).status).toBe(200);
    const [moved, during] = await Promise.all([
      moveToObject(env, orgId),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return put(["lp_harbor_point_bank", "lp_fresh_start_auto_lending"]);
      })(),
    ]);
    expect(during.status).toBe(200);
    expect(moved.tables).toMatchObject({ store_lender_panel: { rows: expect.any(Number) }, compliance_settings: { rows: 1 } });
    expect(await panelOf(orgId, storeId)).toEqual(["lp_fresh_start_auto_lending", "lp_harbor_point_bank"]);
    // Each change audited once, wherever it landed.
    expect(await panelAudit(orgId)).toEqual(['["lp_fresh_start_auto_lending","lp_harbor_point_bank"]', '["lp_fresh_start_auto_lending"]']);

    // After the move: a change in the object (D1's copy, kept for the undo, is not written), then the undo.
    // Two programs, so the undo writes back more than one row.
    expect((await put(["lp_cedar_valley_bank", "lp_harbor_point_bank"])).status).toBe(200);
    expect((await thresholds({ minimum_age: 20 })).status).toBe(200);
    const d1Panel = await env.DB.prepare("SELECT count(*) AS n FROM store_lender_panel WHERE store_id = ?").bind(storeId).first<{ n: number }>();
    expect(d1Panel?.n).toBe(moved.tables.store_lender_panel.rows);
    const back = await moveToD1(env, orgId);
    expect(back.storage).toBe("d1");
    expect(await panelOf(orgId, storeId)).toEqual(["lp_cedar_valley_bank", "lp_harbor_point_bank"]);
    expect(await panelAudit(orgId)).toHaveLength(3);
    const row = await env.DB.prepare("SELECT minimum_age FROM compliance_settings WHERE org_id = ?").bind(orgId).first();
    expect(row).toEqual({ minimum_age: 20 });
    expect(await panelsDigest(getDb(env.DB), orgId)).toEqual({
      store_lender_panel: back.tables.store_lender_panel,
      compliance_settings: back.tables.compliance_settings,
    });
    // Back in D1, a PUT writes D1 again.
    expect((await put(["lp_fresh_start_auto_lending"])).status).toBe(200);
    expect(await panelOf(orgId, storeId)).toEqual(["lp_fresh_start_auto_lending"]);
  });

  it("refuses a copy that loses a panel row: 409, the organization stays in D1", async () => {
    const { orgId } = await createDeskOrg({ place: "d1", programIds: ["lp_harbor_point_bank", "lp_fresh_start_auto_lending"] });
    const real = orgStore(env, orgId);
    const namespace = copyingThrough(real, {
      loadLenderPanels: (o, panels, thresholds) => real.loadLenderPanels(o, panels.slice(1), thresholds),
    });
    const refused = await moveToObject({ DB: env.DB, ORG_STORE: namespace }, orgId).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: "conflict",
      extra: { facts: { d1: { store_lender_panel: { rows: 2 } }, object: { store_lender_panel: { rows: 1 } } } },
    });
    expect(await readOrgStorage(getDb(env.DB), orgId)).toBe("d1");
  });
});
