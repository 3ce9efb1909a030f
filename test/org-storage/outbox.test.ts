import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RecordedEvent } from "../../src/db/queries/events";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { relayOrgEvents } from "../../src/jobs/relay-org-events";
import { loadRealList } from "../helpers/compliance";
import { createEndpoint, eventually, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";
import { capturingQueue } from "../helpers/queue-driver";
import { createTestApp } from "../helpers/test-app";

/** An organization with a store, an ingest key and an endpoint for stip alerts at the test receiver named `name`. */
async function setup(name: string) {
  const org = await createOrg();
  const store = await createStore(org.id);
  const key = await createIngestKey(org.id);
  const endpoint = await createEndpoint((await createApiKey(org.id)).key, { url: receiverUrl("ok", name), events: ["deal.stip_alert"] });
  await tellReceiverSecret(name, endpoint.secret);
  return { org, store, key };
}

const withStip = (storeId: string, number = "D1") => ({
  deals: [deal(number, storeId, { stips: [{ stip: "proof_of_income", state: "outstanding" }] })],
});

/** Calls a native binding's method on the binding itself (a Proxy would otherwise be `this`). */
const passThrough = <T extends object>(target: T, prop: string | symbol) => {
  const value = Reflect.get(target, prop);
  return typeof value === "function" ? value.bind(target) : value;
};

/**
 * The D1 binding whose first batch holding a statement on `event_outbox` fails, as D1 failing
 * between the object's transaction and the request's record of it would; everything else runs.
 */
function d1FailingOutboxBatchOnce(): D1Database {
  let armed = true;
  const onOutbox = new WeakSet<object>();
  const wrap = <T extends D1Database | D1DatabaseSession>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === "withSession") return (constraint: D1SessionConstraint) => wrap((t as D1Database).withSession(constraint));
        if (prop === "prepare")
          return (query: string) => {
            const statement = t.prepare(query);
            if (!/event_outbox/.test(query)) return statement;
            onOutbox.add(statement);
            return new Proxy(statement, {
              get: (s, p) =>
                p === "bind"
                  ? (...values: unknown[]) => {
                      const bound = s.bind(...values);
                      onOutbox.add(bound);
                      return bound;
                    }
                  : passThrough(s, p),
            });
          };
        if (prop === "batch")
          return (statements: D1PreparedStatement[]) => {
            if (armed && statements.some((s) => onOutbox.has(s))) {
              armed = false;
              return Promise.reject(new Error("D1_ERROR: injected failure"));
            }
            return t.batch(statements);
          };
        return passThrough(t, prop);
      },
    });
  return wrap(env.DB);
}

/** A deals push through the Worker whose D1 refuses the batch that records its events. */
const postDealsFailingD1 = (key: string, body: unknown) =>
  createTestApp(undefined, { ...env, DB: d1FailingOutboxBatchOnce() }).request("/api/v1/ingest/deals", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Service-API-Key": key },
    body: JSON.stringify(body),
  });

const objectOutbox = (orgId: string) =>
  runInDurableObject(orgStore(env, orgId), (_, state) =>
    state.storage.sql
      .exec<{ id: string; event: string; relayed: number }>("SELECT id, event, relayed_at IS NOT NULL AS relayed FROM event_outbox")
      .toArray(),
  );
const alarmOf = (orgId: string) => runInDurableObject(orgStore(env, orgId), (_, state) => state.storage.getAlarm());
const nightlyAt = (orgId: string) => runInDurableObject(orgStore(env, orgId), (_, state) => state.storage.get<number>("nightly_at"));

describe("an organization's object records its events with its writes (its outbox), and relays them to D1", () => {
  it("a normal push: the alert recorded and relayed by the request, once, under the object's id; no relay left for the alarm", async () => {
    const { org, store, key } = await setup("outbox-normal");
    const res = await postDeals({ key }, withStip(store.id));
    expect(await res.json()).toMatchObject({ created: 1, stip_alerts: 1 });
    const recorded = await objectOutbox(org.id);
    expect(recorded).toEqual([{ id: expect.stringMatching(/^evt_/), event: "deal.stip_alert", relayed: 1 }]);
    const [inD1] = await listOutboxEvents(org.id, "deal.stip_alert");
    expect(inD1.id).toBe(recorded[0].id);
    // The alarm is the nightly run's only: nothing waits to be relayed.
    expect(await alarmOf(org.id)).toBe(await nightlyAt(org.id));
    const [received] = await eventually(async () => (await receivedBy("outbox-normal")).length > 0 && receivedBy("outbox-normal"));
    expect(JSON.parse(received.body)).toMatchObject({ id: inD1.id, event: "deal.stip_alert", org_id: org.id, store_id: store.id });
  });

  it("a push whose D1 step fails still delivers its deal.stip_alert, once, after the object's alarm; a replay adds nothing", async () => {
    const { org, store, key } = await setup("outbox-d1-fails");
    const failed = await postDealsFailingD1(key, withStip(store.id));
    expect(failed.status).toBe(500);
    // The deal and its alert were written together in the object; D1 has neither the delivery nor the alert.
    expect(await objectOutbox(org.id)).toEqual([{ id: expect.any(String), event: "deal.stip_alert", relayed: 0 }]);
    expect(await listOutboxEvents(org.id)).toEqual([]);
    // The relay's alarm comes within the minute, before the nightly run, which it does not move.
    const nightly = await nightlyAt(org.id);
    const alarm = await alarmOf(org.id);
    expect(alarm).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(alarm).toBeLessThan(nightly ?? 0);

    expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    const [relayed] = await objectOutbox(org.id);
    expect(relayed.relayed).toBe(1);
    expect((await listOutboxEvents(org.id, "deal.stip_alert")).map((e) => e.id)).toEqual([relayed.id]);
    // The nightly jobs did not run early, and their alarm stands.
    expect(await rowsInObject(org.id, "SELECT role FROM morning_briefings")).toEqual([]);
    expect(await alarmOf(org.id)).toBe(nightly);

    // The DMS sends the push again: the deal is as stored, so nothing new is alerted.
    expect(await (await postDeals({ key }, withStip(store.id))).json()).toMatchObject({ unchanged: 1, stip_alerts: 0 });
    await eventually(async () => (await receivedBy("outbox-d1-fails")).length > 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const received = await receivedBy("outbox-d1-fails");
    expect(received.map((r) => JSON.parse(r.body).id)).toEqual([relayed.id]);
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toHaveLength(1);
  });

  it("a relay run twice records each event once in D1 and sends it once; the alarm after a lost mark sends nothing again", async () => {
    const { org, store, key } = await setup("outbox-twice");
    const body = { deals: [deal("T1", store.id, { stips: ["title", "insurance"].map((stip) => ({ stip, state: "outstanding" as const })) })] };
    expect((await postDealsFailingD1(key, body)).status).toBe(500);
    const waiting = await runInDurableObject(orgStore(env, org.id), (_, state) =>
      state.storage.sql
        .exec<{ id: string; org_id: string; store_id: string; event: string; data: string; occurred_at: string }>("SELECT * FROM event_outbox")
        .toArray()
        .map(
          (r): RecordedEvent => ({
            id: r.id,
            orgId: r.org_id,
            storeId: r.store_id,
            event: r.event,
            data: JSON.parse(r.data),
            occurredAt: r.occurred_at,
          }),
        ),
    );
    expect(waiting).toHaveLength(2);

    const queue = capturingQueue();
    await relayOrgEvents(queue.env, waiting, new Date());
    await relayOrgEvents(queue.env, waiting, new Date());
    expect(queue.sent.map((m) => (m.kind === "event" ? m.eventId : m.deliveryId)).sort()).toEqual(waiting.map((e) => e.id).sort());
    const inD1 = await listOutboxEvents(org.id, "deal.stip_alert");
    expect(inD1.map((e) => e.id).sort()).toEqual(waiting.map((e) => e.id).sort());
    // The same envelope as the request would have recorded: its store, data and time.
    expect(inD1.find((e) => e.id === waiting[0].id)).toMatchObject({ store_id: store.id, data: waiting[0].data, timestamp: waiting[0].occurredAt });

    // The object never heard of those relays: its alarm relays again, which D1 already holds, so nothing is sent twice.
    expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    expect((await objectOutbox(org.id)).map((e) => e.relayed)).toEqual([1, 1]);
    expect(await listOutboxEvents(org.id, "deal.stip_alert")).toHaveLength(2);
    expect(await receivedBy("outbox-twice")).toEqual([]);
  });

  it("relayed rows are deleted a day after their relay, not before; rows waiting are kept", async () => {
    const { org, store, key } = await setup("outbox-prune");
    await postDeals({ key }, withStip(store.id, "P1"));
    await runInDurableObject(orgStore(env, org.id), async (instance, state) => {
      const sql = state.storage.sql;
      sql.exec("UPDATE event_outbox SET relayed_at = ?", new Date(Date.now() - 25 * 3_600_000).toISOString());
      sql.exec(
        "INSERT INTO event_outbox (id, org_id, event, data, occurred_at, relayed_at) VALUES ('evt_recent', ?, 'deal.stip_alert', '{}', ?, ?)",
        org.id,
        new Date(Date.now() - 3_600_000).toISOString(),
        new Date(Date.now() - 3_600_000).toISOString(),
      );
      sql.exec(
        "INSERT INTO event_outbox (id, org_id, event, data, occurred_at) VALUES ('evt_waiting', ?, 'deal.stip_alert', '{}', ?)",
        org.id,
        new Date().toISOString(),
      );
      await (instance as unknown as { markRelayed(orgId: string, ids: string[]): Promise<void> }).markRelayed(org.id, []);
      expect(sql.exec("SELECT id FROM event_outbox ORDER BY id").toArray()).toEqual([{ id: "evt_recent" }, { id: "evt_waiting" }]);
    });
  });

  it("two pushes while D1 fails: the relay's timer stays the first event's, and one alarm relays both, once each", async () => {
    const { org, store, key } = await setup("outbox-two-failures");
    expect((await postDealsFailingD1(key, withStip(store.id, "W1"))).status).toBe(500);
    const first = await alarmOf(org.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await postDealsFailingD1(key, withStip(store.id, "W2"))).status).toBe(500);
    // A later event does not push the waiting one's relay further out.
    expect(await alarmOf(org.id)).toBe(first);
    expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    expect((await listOutboxEvents(org.id, "deal.stip_alert")).map((e) => e.data.deal_number).sort()).toEqual(["W1", "W2"]);
    expect((await objectOutbox(org.id)).map((e) => e.relayed)).toEqual([1, 1]);
  });

  it("a compliance hold whose D1 step fails still raises its compliance.hold_triggered, once, after the object's alarm", async () => {
    await loadRealList();
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const listed = { first_name: "Ramzan", last_name: "Kadyrov", dob: "1976-10-05" };
    const failed = await createTestApp(undefined, { ...env, DB: d1FailingOutboxBatchOnce() }).request("/api/v1/compliance-check", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Service-API-Key": key },
      body: JSON.stringify(listed),
    });
    expect(failed.status).toBe(500);
    // The check and its event were written together in the object; D1 has no event yet.
    expect(await objectOutbox(org.id)).toEqual([{ id: expect.any(String), event: "compliance.hold_triggered", relayed: 0 }]);
    expect(await listOutboxEvents(org.id)).toEqual([]);

    expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    const [relayed] = await objectOutbox(org.id);
    expect(relayed.relayed).toBe(1);
    const [raised] = await listOutboxEvents(org.id, "compliance.hold_triggered");
    expect(raised.id).toBe(relayed.id);
    const [check] = await rowsInObject<{ id: string }>(org.id, "SELECT id FROM compliance_checks");
    expect(raised.data).toMatchObject({ check_id: check.id, triggered_rule: "ofac_sdn_match" });
  });
});
