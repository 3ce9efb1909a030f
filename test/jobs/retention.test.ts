import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { RETENTION_RULES } from "../../src/db/queries/retention";
import { eventOutbox, idempotencyKeys, keyUsageDaily, marketRefreshFailures, marketRefreshRuns, platformDaily } from "../../src/db/schema";
import { isoDay } from "../../src/engines/dates";
import { createOrg } from "../helpers/factories";
import { runCron } from "../helpers/queue-driver";
import { all } from "../helpers/sql";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 0, 15);
const keptDays = (table: string) => {
  const rule = RETENTION_RULES.find((r) => r.table === table);
  if (!rule) throw new Error(`no retention rule for ${table}`);
  return rule.keptDays;
};
/** Just past a table's retention, and just inside it. */
const expiredAt = (table: string) => new Date(NOW - (keptDays(table) + 1) * DAY);
const keptAt = (table: string) => new Date(NOW - (keptDays(table) - 1) * DAY);

const run = (sql: string, ...params: unknown[]) =>
  env.DB.prepare(sql)
    .bind(...params)
    .run();
const ids = async (sql: string, ...params: unknown[]) => (await all<{ id: string }>(sql, ...params)).map((r) => r.id).sort();

// An organization's own tables' rules run in its object: test/org-storage/{briefings,webhooks,compliance-checks}.test.ts.
describe("purge-expired-records (00:15): every growing table of D1 keeps its rows for its documented time, then deletes them", () => {
  it("deletes the rows past each rule's retention and keeps those inside it, for every rule", async () => {
    const org = await createOrg();
    const o = org.id;
    const db = getDb(env.DB);
    const tested = new Set<string>();
    const at = (table: string) => {
      tested.add(table);
      return { expired: expiredAt(table), kept: keptAt(table) };
    };

    // D1's outbox: fanned out (deleted), never fanned out (kept for the sweeper), and recent. A delivery keeps its own
    // copy of the event it sends, in the organization's object.
    const events = at("event_outbox");
    const event = (id: string, when: Date, fannedOut: boolean) => ({
      id: `${id}-${o}`,
      orgId: o,
      event: "deal.stip_alert",
      data: {},
      occurredAt: when.toISOString(),
      fannedOutAt: fannedOut ? when.toISOString() : null,
    });
    await db
      .insert(eventOutbox)
      .values([event("evt_old", events.expired, true), event("evt_not_fanned_out", events.expired, false), event("evt_new", events.kept, true)]);

    const usage = at("key_usage_daily");
    await db
      .insert(keyUsageDaily)
      .values([usage.expired, usage.kept].map((when) => ({ day: isoDay(when), keyId: `key-${o}`, orgId: o, requests: 1 })));

    const platform = at("platform_daily");
    await db.insert(platformDaily).values([platform.expired, platform.kept].map((when) => ({ day: isoDay(when), requests: 5, serverErrors: 0 })));

    const runs = at("market_refresh_runs");
    for (const [id, when] of [
      ["mrr_old", runs.expired],
      ["mrr_new", runs.kept],
    ] as const) {
      const time = when.toISOString();
      await db
        .insert(marketRefreshRuns)
        .values({ id: `${id}-${o}`, startedAt: time, finishedAt: time, status: "partial", observationsAdded: 0, entriesAdded: 0 });
      await db
        .insert(marketRefreshFailures)
        .values({ id: `mrf-${id}-${o}`, runId: `${id}-${o}`, seriesId: "X", reason: "HTTP 500", occurredAt: time });
    }

    const keys = at("idempotency_keys");
    await db.insert(idempotencyKeys).values([
      { scope: o, key: "old", fingerprint: "f", requestId: "r", createdAt: keys.expired.toISOString() },
      { scope: o, key: "new", fingerprint: "f", requestId: "r", createdAt: keys.kept.toISOString() },
    ]);

    expect([...tested].sort()).toEqual(RETENTION_RULES.map((r) => r.table).sort());
    const consumed = await runCron("15 0 * * *", NOW);
    expect(consumed.filter((m) => m.job === "purge-expired-records").map((m) => (m as { table: string }).table)).toEqual(
      RETENTION_RULES.map((r) => r.table),
    );

    expect(await ids("SELECT id FROM event_outbox WHERE org_id = ?", o)).toEqual([`evt_new-${o}`, `evt_not_fanned_out-${o}`]);
    expect(await ids("SELECT key AS id FROM idempotency_keys WHERE scope = ?", o)).toEqual(["new"]);
    expect(await ids("SELECT day AS id FROM key_usage_daily WHERE org_id = ?", o)).toEqual([isoDay(usage.kept)]);
    expect(await ids("SELECT day AS id FROM platform_daily WHERE day IN (?, ?)", isoDay(platform.expired), isoDay(platform.kept))).toEqual([
      isoDay(platform.kept),
    ]);
    expect(await ids("SELECT id FROM market_refresh_runs WHERE id LIKE ?", `%-${o}`)).toEqual([`mrr_new-${o}`]);
    expect(await ids("SELECT run_id AS id FROM market_refresh_failures WHERE id LIKE ?", `%-${o}`)).toEqual([`mrr_new-${o}`]);
  });

  it("deletes in bounded chunks: a rule with more expired rows than one message deletes continues in a next message", async () => {
    const org = await createOrg();
    const oldest = new Date(NOW - (keptDays("event_outbox") + 1) * DAY);
    // 10,200 events fanned out: more than one message's 20 statements × 500 rows, generated by SQLite in one
    // statement (through drizzle they would be hundreds of inserts).
    await run(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 10199)
       INSERT INTO event_outbox (id, org_id, event, data, occurred_at, fanned_out_at)
       SELECT ? || '-' || i, ?, 'deal.stip_alert', '{}', ?, ? FROM n`,
      org.id,
      org.id,
      oldest.toISOString(),
      oldest.toISOString(),
    );
    const recent = new Date(NOW).toISOString();
    await getDb(env.DB)
      .insert(eventOutbox)
      .values({ id: `evt_new-${org.id}`, orgId: org.id, event: "deal.stip_alert", data: {}, occurredAt: recent, fannedOutAt: recent });
    const consumed = await runCron("15 0 * * *", NOW);
    const outboxPurges = consumed.filter((m) => m.job === "purge-expired-records" && m.table === "event_outbox");
    expect(outboxPurges).toHaveLength(2);
    expect(await all("SELECT id FROM event_outbox WHERE org_id = ?", org.id)).toEqual([{ id: `evt_new-${org.id}` }]);
  });
});
