import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { RETENTION_RULES } from "../../src/db/queries/retention";
import {
  agedInventoryAlerts,
  complianceChecks,
  type DELIVERY_STATUSES,
  eventOutbox,
  idempotencyKeys,
  keyUsageDaily,
  marketRefreshFailures,
  marketRefreshRuns,
  morningBriefings,
  platformDaily,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "../../src/db/schema";
import { isoDay } from "../../src/engines/dates";
import { createOrg, createStore } from "../helpers/factories";
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

describe("purge-expired-records (00:15): every growing table keeps its rows for its documented time, then deletes them", () => {
  it("deletes the rows past each rule's retention and keeps those inside it, for every rule", async () => {
    const org = await createOrg();
    const store = await createStore(org.id);
    const o = org.id;
    const db = getDb(env.DB);
    const tested = new Set<string>();
    const at = (table: string) => {
      tested.add(table);
      return { expired: expiredAt(table), kept: keptAt(table) };
    };

    const briefings = at("morning_briefings");
    await db.insert(morningBriefings).values(
      (
        [
          ["gm", briefings.expired],
          ["fi_director", briefings.kept],
        ] as const
      ).map(([role, when]) => ({ orgId: o, storeId: store.id, role, day: isoDay(when), generatedAt: when.toISOString(), body: {} })),
    );

    // Outbox events: fanned out and unreferenced (deleted), never fanned out (kept for the sweeper), referenced by a
    // delivery still pending (kept with it), and recent.
    const events = at("event_outbox");
    const deliveries = at("webhook_deliveries");
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
      .values([
        event("evt_old", events.expired, true),
        event("evt_not_fanned_out", events.expired, false),
        event("evt_pending", events.expired, true),
        event("evt_delivered", deliveries.expired, true),
        event("evt_new", events.kept, true),
      ]);
    await db
      .insert(webhookEndpoints)
      .values({ id: `whk-${o}`, orgId: o, url: "https://hooks.example.test/r", events: ["deal.stip_alert"], secretCiphertext: "x" });
    const delivery = async (id: string, eventId: string, status: (typeof DELIVERY_STATUSES)[number], when: Date) => {
      const time = when.toISOString();
      await db.insert(webhookDeliveries).values({
        id: `${id}-${o}`,
        orgId: o,
        endpointId: `whk-${o}`,
        eventId: `${eventId}-${o}`,
        event: "deal.stip_alert",
        status,
        createdAt: time,
        updatedAt: time,
      });
      await db
        .insert(webhookAttempts)
        .values({ deliveryId: `${id}-${o}`, attempt: 1, orgId: o, attemptedAt: time, durationMs: 10, outcome: "delivered" });
    };
    await delivery("dlv_old", "evt_delivered", "delivered", deliveries.expired);
    await delivery("dlv_pending", "evt_pending", "pending", deliveries.expired);
    await delivery("dlv_new", "evt_new", "failed", deliveries.kept);

    const alerts = at("aged_inventory_alerts");
    await db.insert(agedInventoryAlerts).values([
      { orgId: o, stockNumber: "OLD", stockedOn: "2026-01-01", alertedAt: alerts.expired.toISOString() },
      { orgId: o, stockNumber: "NEW", stockedOn: "2026-01-01", alertedAt: alerts.kept.toISOString() },
    ]);

    const checks = at("compliance_checks");
    const check = (id: string, when: Date) => ({
      id: `${id}-${o}`,
      orgId: o,
      keyId: "key",
      result: "pass" as const,
      score: 0,
      holdScore: 95,
      flagScore: 85,
      maxListAgeDays: 45,
      redFlags: [],
      safeguardsFlags: [],
      personHash: "p",
      nameHash: "n",
      dobHash: "d",
      checkedAt: when.toISOString(),
    });
    await db.insert(complianceChecks).values([check("chk_old", checks.expired), check("chk_new", checks.kept)]);

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

    expect(await ids("SELECT role AS id FROM morning_briefings WHERE org_id = ?", o)).toEqual(["fi_director"]);
    expect(await ids("SELECT id FROM webhook_deliveries WHERE org_id = ?", o)).toEqual([`dlv_new-${o}`, `dlv_pending-${o}`]);
    // A delivery's attempts go with it.
    expect(await ids("SELECT delivery_id AS id FROM webhook_attempts WHERE org_id = ?", o)).toEqual([`dlv_new-${o}`, `dlv_pending-${o}`]);
    expect(await ids("SELECT id FROM event_outbox WHERE org_id = ?", o)).toEqual([`evt_new-${o}`, `evt_not_fanned_out-${o}`, `evt_pending-${o}`]);
    expect(await ids("SELECT stock_number AS id FROM aged_inventory_alerts WHERE org_id = ?", o)).toEqual(["NEW"]);
    expect(await ids("SELECT id FROM compliance_checks WHERE org_id = ?", o)).toEqual([`chk_new-${o}`]);
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
    const store = await createStore(org.id);
    const oldest = new Date(NOW - (keptDays("morning_briefings") + 1) * DAY);
    // 6 roles × 1,700 expired days = 10,200 rows: more than one message's 20 statements × 500 rows,
    // generated by SQLite in one statement (through drizzle they would be hundreds of inserts).
    await run(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1699),
            r(role) AS (VALUES ('gm'), ('used_car_manager'), ('fi_director'), ('bdc_manager'), ('sales_manager'), ('new_car_manager'))
       INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body)
       SELECT ?, ?, role, date(?, '-' || i || ' days'), ?, '{}' FROM n, r`,
      org.id,
      store.id,
      isoDay(oldest),
      oldest.toISOString(),
    );
    await getDb(env.DB)
      .insert(morningBriefings)
      .values({ orgId: org.id, storeId: store.id, role: "gm", day: isoDay(NOW), generatedAt: new Date(NOW).toISOString(), body: {} });
    const consumed = await runCron("15 0 * * *", NOW);
    const briefingPurges = consumed.filter((m) => m.job === "purge-expired-records" && m.table === "morning_briefings");
    expect(briefingPurges).toHaveLength(2);
    expect(await all("SELECT day FROM morning_briefings WHERE org_id = ?", org.id)).toEqual([{ day: isoDay(NOW) }]);
  });
});
