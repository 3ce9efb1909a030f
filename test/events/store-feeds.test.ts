/**
 * Answers that know how old their data is (docs/ingestion.md#when-a-feed-stops), through the Worker:
 * ingestion records each delivery, answers carry `data_as_of`, a stale feed raises
 * `store.feed_stale` once per episode and `store.feed_resumed` on the next delivery, both signed and
 * delivered through the queue; another organization sees none of it. The stale check runs on each
 * organization's object's alarm.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { createEndpoint, eventually, listOutboxEvents, receivedBy, receiverUrl, tellReceiverSecret } from "../helpers/events";
import { call, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { rearmFeedCheck } from "../helpers/object-sql";
import { rowsInObject } from "../helpers/org-storage";
import { createStaffUser, logIn, staffCall } from "../helpers/staff";

const HOUR = 3_600_000;
type Ages = {
  data_as_of: { store_id: string; feed: string; as_of: string | null; stale: boolean; stale_after_hours: number; warning: string | null }[];
  data_warnings: string[];
};

async function setup(name: string) {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true, name: `North ${name}` });
  const key = await createIngestKey(org.id);
  return { org, store, key };
}

/** Moves the store's last delivery `hours` back, as if the feed had stopped then. */
async function ageFeed(orgId: string, storeId: string, feed: string, hours: number) {
  const receivedAt = new Date(Date.now() - hours * HOUR).toISOString();
  await rowsInObject(orgId, "UPDATE store_feeds SET received_at = ? WHERE store_id = ? AND feed = ?", receivedAt, storeId, feed);
  await rearmFeedCheck(orgId);
}

/** The organization's object's alarm, whose every firing checks its feeds. */
const checkFeeds = async (orgId: string) => expect(await runDurableObjectAlarm(orgStore(env, orgId))).toBe(true);

/** The inventory-alerts answer, each call with its own `limit` so no isolate copy answers it. */
let alertCalls = 0;
const alerts = async (key: string, storeId?: string) => {
  const query = new URLSearchParams({ limit: String(400 - ++alertCalls), ...(storeId ? { store_id: storeId } : {}) });
  const res = await call(`/api/v1/inventory-alerts?${query}`, { key });
  expect(res.status).toBe(200);
  return res.json<Ages>();
};

describe("data_as_of", () => {
  it("an answer on a store's inventory says when it was received, and past the threshold warns in words", async () => {
    const { org, store, key } = await setup("ages");
    expect((await putInventory(store.id, { key }, { units: [unit(1)] })).status).toBe(200);
    const fresh = await alerts(key, store.id);
    expect(fresh.data_as_of).toEqual([
      expect.objectContaining({ store_id: store.id, feed: "inventory", stale: false, stale_after_hours: 24, warning: null }),
    ]);
    expect(Date.now() - Date.parse(fresh.data_as_of[0].as_of ?? "")).toBeLessThan(60_000);
    expect(fresh.data_warnings).toEqual([]);

    await ageFeed(org.id, store.id, "inventory", 31);
    const stale = await alerts(key, store.id);
    expect(stale.data_as_of[0]).toMatchObject({ stale: true });
    expect(stale.data_warnings).toEqual([
      expect.stringMatching(/^Inventory for North ages was last received 31 hours ago .*past the store's 24-hour threshold/),
    ]);

    // The inventory feed and the morning briefing carry the same, and the briefing leads with it.
    const feed = await (await call(`/api/v1/inventory?store_id=${store.id}`, { key })).json<Ages>();
    expect(feed.data_as_of[0]).toMatchObject({ feed: "inventory", stale: true });
    const briefing = await (
      await call("/api/v1/morning-briefing", {
        method: "POST",
        key,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ role: "gm" }),
      })
    ).json<Ages & { sections: { id: string; figures: { label: string }[] }[] }>();
    expect(briefing.sections[0].id).toBe("stale_data");
    expect(briefing.sections[0].figures[0].label).toBe(stale.data_warnings[0]);
    expect(briefing.data_as_of.map((d) => [d.feed, d.stale])).toEqual([
      ["inventory", true],
      ["deals", false],
    ]);
  });

  it("the threshold is the store's setting: a manager who allows 48 hours sees 31 hours as fresh; 0 hours is refused", async () => {
    const { org, store, key } = await setup("setting");
    await putInventory(store.id, { key }, { units: [unit(1)] });
    await ageFeed(org.id, store.id, "inventory", 31);
    const cookie = await logIn(await createStaffUser(org.id));
    const res = await staffCall(`/api/settings/stores/${store.id}`, cookie, { method: "PATCH", body: { inventory_stale_hours: 48 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ inventory_stale_hours: 48, deals_stale_hours: 72 });
    expect((await alerts(key, store.id)).data_as_of[0]).toMatchObject({ stale: false, stale_after_hours: 48, warning: null });
    const refused = await staffCall(`/api/settings/stores/${store.id}`, cookie, { method: "PATCH", body: { inventory_stale_hours: 0 } });
    expect(refused.status).toBe(422);
  });
});

describe("store.feed_stale and store.feed_resumed", () => {
  it("a stopped feed raises feed_stale once per episode and feed_resumed on the next delivery, signed and delivered; another organization sees none", async () => {
    const { org, store, key } = await setup("episode");
    const other = await setup("bystander");
    const endpoint = await createEndpoint(key, { url: receiverUrl("ok", "feed-episode"), events: ["store.feed_stale", "store.feed_resumed"] });
    await tellReceiverSecret("feed-episode", endpoint.secret);
    await putInventory(store.id, { key }, { units: [unit(1)] });
    await postDeals({ key }, { deals: [deal("D-1", store.id)] });
    await putInventory(other.store.id, { key: other.key }, { units: [unit(1)] });
    await ageFeed(org.id, store.id, "inventory", 25);
    await ageFeed(other.org.id, other.store.id, "inventory", 25);

    await checkFeeds(org.id);
    await checkFeeds(org.id);
    await checkFeeds(other.org.id);
    const stale = await listOutboxEvents(org.id, "store.feed_stale");
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({
      store_id: store.id,
      data: {
        feed: "inventory",
        store_name: "North episode",
        stale_after_hours: 24,
        summary: expect.stringContaining("past the store's 24-hour threshold"),
      },
    });
    // The deals feed (72 hours) is fresh: no episode.
    expect(stale.some((e) => e.data.feed === "deals")).toBe(false);

    expect((await putInventory(store.id, { key }, { units: [unit(1)] })).status).toBe(200);
    const resumed = await listOutboxEvents(org.id, "store.feed_resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0].data).toMatchObject({ feed: "inventory", stale_since: expect.any(String), gap_hours: expect.any(Number) });
    // A second delivery is no news.
    await putInventory(store.id, { key }, { units: [unit(1)] });
    expect(await listOutboxEvents(org.id, "store.feed_resumed")).toHaveLength(1);

    const delivered = await eventually(async () => {
      const log = await receivedBy("feed-episode");
      return log.length >= 2 && log;
    });
    expect(delivered.every((d) => d.verified)).toBe(true);
    expect(delivered.map((d) => JSON.parse(d.body).event).sort()).toEqual(["store.feed_resumed", "store.feed_stale"]);
    expect(delivered.every((d) => JSON.parse(d.body).org_id === org.id)).toBe(true);

    // The bystander's own episode is its own; it never sees this organization's store or events.
    const theirs = await listOutboxEvents(other.org.id);
    expect(theirs.map((e) => e.store_id)).toEqual([other.store.id]);
    const theirAges = await alerts(other.key);
    expect(theirAges.data_as_of.map((d) => d.store_id)).toEqual([other.store.id]);
    expect((await call(`/api/v1/inventory-alerts?store_id=${store.id}`, { key: other.key })).status).toBe(404);
  });
  it("three deliveries at the same moment after a stale episode raise store.feed_resumed once", async () => {
    const { org, store, key } = await setup("race");
    await putInventory(store.id, { key }, { units: [unit(1)] });
    await ageFeed(org.id, store.id, "inventory", 25);
    await checkFeeds(org.id);
    expect(await listOutboxEvents(org.id, "store.feed_stale")).toHaveLength(1);

    const answers = await Promise.all([1, 2, 3].map(() => putInventory(store.id, { key }, { units: [unit(1)] })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await listOutboxEvents(org.id, "store.feed_resumed")).toHaveLength(1);
  });
});
