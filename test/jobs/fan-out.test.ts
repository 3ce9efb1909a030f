import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { RETENTION_RULES } from "../../src/db/queries/retention";
import worker from "../../src/index";
import { SCHEDULE } from "../../src/jobs";
import type { JobMessage } from "../../src/jobs/queue";
import { recordingD1 } from "../helpers/d1-recorder";
import { createOrg, createStore } from "../helpers/factories";
import { capturingQueue } from "../helpers/queue-driver";

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

/** The tables of an organization's own data: its object's, none of them D1's any more. */
const ORGANIZATION_TABLES =
  /\b(inventory_units|deals|deal_stips|lender_decisions|lender_outcome_episodes|morning_briefings|aged_inventory_alerts|store_feeds|webhook_endpoints|webhook_deliveries|webhook_attempts|compliance_checks)\b/;

// An organization's own jobs run on its object's alarm (test/org-storage/alarm.test.ts): the crons run the global ones only.
describe("the crons run the global jobs only: their work does not grow with the organizations", () => {
  beforeAll(async () => {
    for (let i = 0; i < 20; i++) await createStore((await createOrg()).id);
  });

  it("00:15 sends one purge message per retention rule of D1's tables, and none for an organization", async () => {
    const { messages, sendBatches } = await scheduledOnly("15 0 * * *", Date.now());
    expect(messages.filter((m) => m.job === "purge-expired-records").map((m) => ("table" in m ? m.table : null))).toEqual(
      RETENTION_RULES.map((rule) => rule.table),
    );
    expect(messages.filter((m) => "orgId" in m)).toEqual([]);
    expect(sendBatches.every((b) => b.length <= 100)).toBe(true);
  });

  it("no cron reads or writes an organization's own tables in D1", async () => {
    for (const cron of Object.keys(SCHEDULE)) {
      // The 04:30 and 05:00 refreshes download from their upstreams, which this test does not stand in for: they read no tenant table either way.
      if (cron === "30 4 * * *" || cron === "0 5 * * *") continue;
      const { statements } = await scheduledOnly(cron, Date.now());
      expect(
        statements.filter((s) => ORGANIZATION_TABLES.test(s.sql)).map((s) => s.sql),
        cron,
      ).toEqual([]);
    }
  });
});
