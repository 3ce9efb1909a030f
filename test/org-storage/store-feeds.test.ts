/**
 * The store feeds group in an organization's object (docs/scaling.md, docs/ingestion.md#when-a-feed-stops):
 * a delivery is recorded with the snapshot or push it records, in the object's transaction; every
 * `data_as_of` is read there, with the thresholds the object keeps; the stale check runs on the
 * object's alarm, due when the first feed would go stale, and D1's 5-minute job leaves the
 * organization alone.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { nextNightlyRun } from "../../src/jobs/org-nightly";
import { eventually, listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { rowsInObject } from "../helpers/org-storage";
import { runCron } from "../helpers/queue-driver";
import { createStaffUser, logIn, staffCall } from "../helpers/staff";

const HOUR = 3_600_000;
type Ages = {
  data_as_of: { store_id: string; feed: string; as_of: string | null; stale: boolean; stale_after_hours: number }[];
  data_warnings: string[];
};
type FeedRow = { feed: string; received_at: string; stale_since: string | null };

async function setup(name: string) {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true, name: `Feeds ${name}` });
  const key = await createIngestKey(org.id);
  return { org, store, key };
}

const object = (orgId: string) => orgStore(env, orgId);
/** The object's feed rows, and when its feeds' check is due (its key-value timer). */
const objectFeeds = (orgId: string) =>
  runInDurableObject(object(orgId), async (_, state) => ({
    rows: state.storage.sql.exec<FeedRow>("SELECT feed, received_at, stale_since FROM store_feeds ORDER BY feed").toArray(),
    checkAt: await state.storage.get<number>("feed_check_at"),
    alarm: await state.storage.getAlarm(),
  }));
/** Moves the store's last delivery `hours` back in the object, as if the feed had stopped then. */
const ageInObject = (orgId: string, feed: string, hours: number) =>
  runInDurableObject(object(orgId), (_, state) => {
    const at = new Date(Date.now() - hours * HOUR).toISOString();
    state.storage.sql.exec("UPDATE store_feeds SET received_at = ? WHERE feed = ?", at, feed);
    return at;
  });

/** Every answer that carries `data_as_of`, each call with its own parameters so no isolate's copy answers it. */
let calls = 0;
async function ages(key: string, storeId: string) {
  const n = ++calls;
  const read = async (path: string) => {
    const res = await call(path, { key });
    expect(res.status, path).toBe(200);
    return (await res.json<Ages>()).data_as_of;
  };
  return {
    alerts: await read(`/api/v1/inventory-alerts?limit=${300 - n}&store_id=${storeId}`),
    inventory: await read(`/api/v1/inventory?limit=${300 - n}`),
    sales: await read(`/api/v1/sales-summary?limit=${150 - (n % 100)}&store_id=${storeId}`),
  };
}

describe("an organization's store feeds are in its object", () => {
  it("the answers' data_as_of are the deliveries the object recorded, and a push is read there", async () => {
    const { org, store, key } = await setup("ages");
    expect((await putInventory(store.id, { key }, { units: [unit(1)] })).status).toBe(200);
    expect((await postDeals({ key }, { deals: [deal("D-1", store.id)] })).status).toBe(200);
    const reader = (await createApiKey(org.id)).key;
    const before = await ages(reader, store.id);
    expect(before.alerts.map((a) => [a.feed, a.stale])).toEqual([["inventory", false]]);
    expect(before.sales.map((a) => [a.feed, a.stale])).toEqual([["deals", false]]);

    const pushed = new Date().toISOString();
    expect((await putInventory(store.id, { key }, { units: [unit(1), unit(2)] })).status).toBe(200);
    expect((await postDeals({ key }, { deals: [deal("D-2", store.id)] })).status).toBe(200);
    const now = await ages(reader, store.id);
    expect(now.alerts[0].as_of! >= pushed).toBe(true);
    expect(now.sales[0].as_of! >= pushed).toBe(true);
    expect(now.inventory.map((e) => [e.store_id, e.feed, e.as_of])).toEqual([[store.id, "inventory", now.alerts[0].as_of]]);
    const stored = await rowsInObject<FeedRow>(
      org.id,
      "SELECT feed, received_at, stale_since FROM store_feeds WHERE org_id = ? ORDER BY feed",
      org.id,
    );
    expect(stored.map((r) => [r.feed, r.received_at])).toEqual([
      ["deals", now.sales[0].as_of],
      ["inventory", now.alerts[0].as_of],
    ]);
  });

  it("a stopped feed goes stale on the object's alarm: store.feed_stale once, not again on the next alarm; the next push raises store.feed_resumed; D1's job leaves it be", async () => {
    const { org, store, key } = await setup("episode");
    await putInventory(store.id, { key }, { units: [unit(1)] });
    // The check is due when the feed would go stale: its delivery plus the store's 24 hours (a second after).
    const armed = await objectFeeds(org.id);
    expect(armed.checkAt).toBe(Date.parse(armed.rows[0].received_at) + 24 * HOUR + 1000);
    expect(armed.alarm).toBeLessThanOrEqual(armed.checkAt ?? 0);

    await ageInObject(org.id, "inventory", 25);
    // No cron checks an organization's feeds: its object does.
    await runCron("*/5 * * * *", Date.now(), env);
    expect(await listOutboxEvents(org.id, "store.feed_stale")).toHaveLength(0);

    expect(await runDurableObjectAlarm(object(org.id))).toBe(true);
    const stale = await listOutboxEvents(org.id, "store.feed_stale");
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({
      store_id: store.id,
      data: {
        feed: "inventory",
        store_name: "Feeds episode",
        stale_after_hours: 24,
        summary: expect.stringContaining("past the store's 24-hour threshold"),
      },
    });
    const open = await objectFeeds(org.id);
    expect(open.rows[0].stale_since).not.toBeNull();
    // With the episode open, nothing more is due: the alarm is the nightly run's.
    expect(open.checkAt).toBeUndefined();
    await runDurableObjectAlarm(object(org.id));
    expect(await listOutboxEvents(org.id, "store.feed_stale")).toHaveLength(1);

    expect((await putInventory(store.id, { key }, { units: [unit(1)] })).status).toBe(200);
    const resumed = await listOutboxEvents(org.id, "store.feed_resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0].data).toMatchObject({ feed: "inventory", stale_since: open.rows[0].stale_since, gap_hours: 25 });
    await putInventory(store.id, { key }, { units: [unit(1)] });
    expect(await listOutboxEvents(org.id, "store.feed_resumed")).toHaveLength(1);
    const closed = await objectFeeds(org.id);
    expect(closed.rows[0].stale_since).toBeNull();
    expect(closed.checkAt).toBe(Date.parse(closed.rows[0].received_at) + 24 * HOUR + 1000);
  });

  it("a firing for the feeds' check runs no nightly job: the nightly run stays set for its time", async () => {
    const { org, store, key } = await setup("firing");
    await putInventory(store.id, { key }, { units: [unit(1)] });
    // The feed goes stale within a minute, before the next nightly run; a PATCH (of nothing new) sets the check for it.
    const now = Date.now();
    const staleAt = Math.min(now + 60_000, (now + nextNightlyRun(now)) / 2);
    await runInDurableObject(object(org.id), (_, state) => {
      state.storage.sql.exec("UPDATE store_feeds SET received_at = ?", new Date(staleAt - 24 * HOUR).toISOString());
    });
    const cookie = await logIn(await createStaffUser(org.id));
    expect((await staffCall(`/api/settings/stores/${store.id}`, cookie, { method: "PATCH", body: { inventory_stale_hours: 24 } })).status).toBe(200);
    const nightlyAt = () => runInDurableObject(object(org.id), (_, state) => state.storage.get<number>("nightly_at"));
    const before = await nightlyAt();
    const armed = await objectFeeds(org.id);
    expect(armed.alarm).toBe(armed.checkAt);
    expect(armed.alarm).toBeLessThan(before ?? 0);
    await runDurableObjectAlarm(object(org.id));
    expect(await nightlyAt()).toBe(before);
    expect(await listOutboxEvents(org.id, "morning_briefing.ready")).toHaveLength(0);
  });

  it("a lowered threshold, changed in the object, moves the check and makes the feed stale; the answers say so with the new threshold", async () => {
    const { org, store, key } = await setup("threshold");
    await putInventory(store.id, { key }, { units: [unit(1)] });
    const receivedAt = await ageInObject(org.id, "inventory", 10);
    const reader = (await createApiKey(org.id)).key;
    expect((await ages(reader, store.id)).alerts[0]).toMatchObject({ stale: false, stale_after_hours: 24 });

    const cookie = await logIn(await createStaffUser(org.id));
    const res = await staffCall(`/api/settings/stores/${store.id}`, cookie, { method: "PATCH", body: { inventory_stale_hours: 6 } });
    expect(res.status).toBe(200);
    expect((await ages(reader, store.id)).alerts[0]).toMatchObject({ stale: true, stale_after_hours: 6 });
    // The change moved the check to the delivery plus 6 hours, which has passed: the alarm fires on its own, at once.
    const stale = await eventually(async () => {
      const events = await listOutboxEvents(org.id, "store.feed_stale");
      return events.length > 0 && events;
    });
    expect(stale.map((e) => [e.data.feed, e.data.last_received_at, e.data.stale_after_hours])).toEqual([["inventory", receivedAt, 6]]);
    expect((await objectFeeds(org.id)).rows[0].stale_since).not.toBeNull();
  });
});
