import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { RETENTION_RULES } from "../../src/db/queries/retention";
import worker from "../../src/index";
import type { JobMessage } from "../../src/jobs/queue";
import { recordingD1 } from "../helpers/d1-recorder";
import { eventually, listOutboxEvents } from "../helpers/events";
import { createOrg, createStore, createUnit } from "../helpers/factories";
import { capturingQueue, consumeJob } from "../helpers/queue-driver";
import { all } from "../helpers/sql";

const DAY = 86_400_000;
const count = async (sql: string, ...params: unknown[]) => (await all<{ n: number }>(sql, ...params))[0].n;

/** The scheduled handler alone, with a JOBS queue that records each sendBatch call and a D1 that records each statement. */
async function scheduledOnly(cron: string, at: number) {
  const sendBatches: JobMessage[][] = [];
  const jobs = {
    async send(body: JobMessage) {
      sendBatches.push([body]);
    },
    async sendBatch(messages: Iterable<MessageSendRequest<JobMessage>>) {
      sendBatches.push([...messages].map((m) => m.body));
    },
  } as unknown as Queue<JobMessage>;
  const d1 = recordingD1();
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(at), cron }), { ...capturingQueue().env, DB: d1.DB, JOBS: jobs }, ctx);
  await waitOnExecutionContext(ctx);
  return { sendBatches, messages: sendBatches.flat(), statements: d1.statements };
}

// The crons' fan-out, and the jobs its messages run for an organization in D1: an organization in its object skips them and
// runs its own on its alarm (test/org-storage/alarm.test.ts, test/events/aged-alert.test.ts).
describe("crons fan out through the jobs queue: the cron's own work does not grow with the stores", () => {
  let born: string;
  beforeAll(async () => {
    // More organizations than one sendBatch carries.
    for (let i = 0; i < 130; i++) await createOrg({ place: "d1" });
    // Sent nothing: it runs its jobs on its own alarm.
    born = (await createOrg()).id;
  });

  it("06:00 sends one message per organization in D1 (none for one in its object), at most 100 per sendBatch, after one D1 query", async () => {
    const organizations = await count("SELECT count(*) AS n FROM organizations WHERE storage = 'd1'");
    const { sendBatches, messages, statements } = await scheduledOnly("0 6 * * *", Date.now());
    expect(messages).toHaveLength(organizations);
    expect(messages.map((m) => ("orgId" in m ? m.orgId : null))).not.toContain(born);
    expect(new Set(messages.map((m) => m.job))).toEqual(new Set(["organization-morning-briefings"]));
    expect(sendBatches).toHaveLength(Math.ceil(organizations / 100));
    expect(Math.max(...sendBatches.map((b) => b.length))).toBeLessThanOrEqual(100);
    expect(statements).toHaveLength(1);
  });

  it("00:15 sends one aged-alerts message per organization in D1 and one purge message per retention rule", async () => {
    const organizations = await count("SELECT count(*) AS n FROM organizations WHERE storage = 'd1'");
    const { messages, sendBatches } = await scheduledOnly("15 0 * * *", Date.now());
    expect(messages.filter((m) => m.job === "aged-inventory-alerts")).toHaveLength(organizations);
    expect(messages.filter((m) => m.job === "purge-expired-records")).toHaveLength(RETENTION_RULES.length);
    expect(sendBatches.every((b) => b.length <= 100)).toBe(true);
  });

  it("through the real queue, the 06:00 cron builds every role's briefing of every store", async () => {
    const org = await createOrg({ place: "d1" });
    const stores = [await createStore(org.id), await createStore(org.id)];
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "0 6 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const day = new Date().toISOString().slice(0, 10);
    await eventually(
      async () => (await count("SELECT count(*) AS n FROM morning_briefings WHERE org_id = ? AND day = ?", org.id, day)) === 12,
      20_000,
    );
    const ready = await listOutboxEvents(org.id, "morning_briefing.ready");
    expect(new Set(ready.map((e) => e.store_id))).toEqual(new Set(stores.map((s) => s.id)));
    expect(ready).toHaveLength(12);
  });

  it("a store's briefings message delivered twice stores and raises each briefing once", async () => {
    const org = await createOrg({ place: "d1" });
    const store = await createStore(org.id);
    const message: JobMessage = { job: "store-morning-briefings", orgId: org.id, storeId: store.id, scheduledTime: Date.now() };
    const bindings = capturingQueue().env;
    expect((await consumeJob(bindings, message)).acked).toBe(true);
    expect((await consumeJob(bindings, message, 2)).acked).toBe(true);
    expect(await count("SELECT count(*) AS n FROM morning_briefings WHERE store_id = ?", store.id)).toBe(6);
    expect(await listOutboxEvents(org.id, "morning_briefing.ready")).toHaveLength(6);
  });

  it("an organization's aged-alerts message delivered twice alerts each crossing once", async () => {
    const org = await createOrg({ place: "d1" });
    const store = await createStore(org.id);
    const now = Date.UTC(2026, 10, 26, 0, 15);
    await createUnit(org.id, store.id, { stockNumber: `A45-${org.id}`, stockedOn: new Date(now - 45 * DAY).toISOString().slice(0, 10) });
    const message: JobMessage = { job: "aged-inventory-alerts", orgId: org.id, scheduledTime: now };
    const bindings = capturingQueue().env;
    await consumeJob(bindings, message);
    await consumeJob(bindings, message, 2);
    expect((await listOutboxEvents(org.id, "inventory.aged_alert")).map((e) => e.data.stock_no)).toEqual([`A45-${org.id}`]);
  });

  it("the same message running twice at once stores and raises each briefing and each alert once (the second retries and finds them)", async () => {
    const org = await createOrg({ place: "d1" });
    const store = await createStore(org.id);
    const now = Date.UTC(2026, 10, 26, 6, 0);
    await createUnit(org.id, store.id, { stockNumber: `C45-${org.id}`, stockedOn: new Date(now - 45 * DAY).toISOString().slice(0, 10) });
    const bindings = capturingQueue().env;
    for (const message of [
      { job: "store-morning-briefings", orgId: org.id, storeId: store.id, scheduledTime: now },
      { job: "aged-inventory-alerts", orgId: org.id, scheduledTime: now },
    ] satisfies JobMessage[]) {
      const twice = await Promise.all([consumeJob(bindings, message), consumeJob(bindings, message)]);
      // A retried one runs again, as the queue would, and adds nothing.
      for (const run of twice) if (!run.acked) expect((await consumeJob(bindings, message, 2)).acked).toBe(true);
    }
    expect(await count("SELECT count(*) AS n FROM morning_briefings WHERE store_id = ?", store.id)).toBe(6);
    expect(await listOutboxEvents(org.id, "morning_briefing.ready")).toHaveLength(6);
    expect(await listOutboxEvents(org.id, "inventory.aged_alert")).toHaveLength(1);
  });
});
