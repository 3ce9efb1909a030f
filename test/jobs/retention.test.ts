import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RETENTION_RULES } from "../../src/db/queries/retention";
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
    const tested = new Set<string>();
    const at = (table: string) => {
      tested.add(table);
      return { expired: expiredAt(table), kept: keptAt(table) };
    };

    const briefings = at("morning_briefings");
    for (const [role, when] of [
      ["gm", briefings.expired],
      ["fi_director", briefings.kept],
    ] as const)
      await run(
        "INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, ?, ?, ?, ?, '{}')",
        o,
        store.id,
        role,
        isoDay(when),
        when.toISOString(),
      );

    // Outbox events: sent and unreferenced (deleted), never sent (kept for the sweeper), referenced by a
    // delivery still pending (kept with it), and recent.
    const events = at("event_outbox");
    const deliveries = at("webhook_deliveries");
    const event = (id: string, when: Date, enqueued: boolean) =>
      run(
        "INSERT INTO event_outbox (id, org_id, event, data, occurred_at, enqueued_at) VALUES (?, ?, 'deal.stip_alert', '{}', ?, ?)",
        `${id}-${o}`,
        o,
        when.toISOString(),
        enqueued ? when.toISOString() : null,
      );
    await event("evt_old", events.expired, true);
    await event("evt_unsent", events.expired, false);
    await event("evt_pending", events.expired, true);
    await event("evt_delivered", deliveries.expired, true);
    await event("evt_new", events.kept, true);
    await run(
      "INSERT INTO webhook_endpoints (id, org_id, url, events, secret_ciphertext) VALUES (?, ?, 'https://hooks.example.test/r', '[\"deal.stip_alert\"]', 'x')",
      `whk-${o}`,
      o,
    );
    const delivery = async (id: string, eventId: string, status: string, when: Date) => {
      await run(
        "INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'deal.stip_alert', ?, ?, ?)",
        `${id}-${o}`,
        o,
        `whk-${o}`,
        `${eventId}-${o}`,
        status,
        when.toISOString(),
        when.toISOString(),
      );
      await run(
        "INSERT INTO webhook_attempts (delivery_id, attempt, org_id, attempted_at, duration_ms, outcome) VALUES (?, 1, ?, ?, 10, 'delivered')",
        `${id}-${o}`,
        o,
        when.toISOString(),
      );
    };
    await delivery("dlv_old", "evt_delivered", "delivered", deliveries.expired);
    await delivery("dlv_pending", "evt_pending", "pending", deliveries.expired);
    await delivery("dlv_new", "evt_new", "failed", deliveries.kept);

    const alerts = at("aged_inventory_alerts");
    for (const [stock, when] of [
      ["OLD", alerts.expired],
      ["NEW", alerts.kept],
    ] as const)
      await run(
        "INSERT INTO aged_inventory_alerts (org_id, stock_number, stocked_on, alerted_at) VALUES (?, ?, '2026-01-01', ?)",
        o,
        stock,
        when.toISOString(),
      );

    const checks = at("compliance_checks");
    for (const [id, when] of [
      ["chk_old", checks.expired],
      ["chk_new", checks.kept],
    ] as const)
      await run(
        `INSERT INTO compliance_checks (id, org_id, key_id, result, score, hold_score, flag_score, max_list_age_days, red_flags,
           safeguards_flags, person_hash, name_hash, dob_hash, checked_at) VALUES (?, ?, 'key', 'pass', 0, 95, 85, 45, '[]', '[]', 'p', 'n', 'd', ?)`,
        `${id}-${o}`,
        o,
        when.toISOString(),
      );

    const usage = at("key_usage_daily");
    for (const when of [usage.expired, usage.kept])
      await run("INSERT INTO key_usage_daily (day, key_id, org_id, requests) VALUES (?, ?, ?, 1)", isoDay(when), `key-${o}`, o);

    const platform = at("platform_daily");
    for (const when of [platform.expired, platform.kept])
      await run("INSERT INTO platform_daily (day, requests, server_errors) VALUES (?, 5, 0)", isoDay(when));

    const runs = at("market_refresh_runs");
    for (const [id, when] of [
      ["mrr_old", runs.expired],
      ["mrr_new", runs.kept],
    ] as const) {
      await run(
        "INSERT INTO market_refresh_runs (id, started_at, finished_at, status, observations_added, entries_added) VALUES (?, ?, ?, 'partial', 0, 0)",
        `${id}-${o}`,
        when.toISOString(),
        when.toISOString(),
      );
      await run(
        "INSERT INTO market_refresh_failures (id, run_id, series_id, reason, occurred_at) VALUES (?, ?, 'X', 'HTTP 500', ?)",
        `mrf-${id}-${o}`,
        `${id}-${o}`,
        when.toISOString(),
      );
    }

    const keys = at("idempotency_keys");
    for (const [key, when] of [
      ["old", keys.expired],
      ["new", keys.kept],
    ] as const)
      await run(
        "INSERT INTO idempotency_keys (scope, key, fingerprint, request_id, created_at) VALUES (?, ?, 'f', 'r', ?)",
        o,
        key,
        when.toISOString(),
      );

    expect([...tested].sort()).toEqual(RETENTION_RULES.map((r) => r.table).sort());
    const consumed = await runCron("15 0 * * *", NOW);
    expect(consumed.filter((m) => m.job === "purge-expired-records").map((m) => (m as { table: string }).table)).toEqual(
      RETENTION_RULES.map((r) => r.table),
    );

    expect(await ids("SELECT role AS id FROM morning_briefings WHERE org_id = ?", o)).toEqual(["fi_director"]);
    expect(await ids("SELECT id FROM webhook_deliveries WHERE org_id = ?", o)).toEqual([`dlv_new-${o}`, `dlv_pending-${o}`]);
    // A delivery's attempts go with it.
    expect(await ids("SELECT delivery_id AS id FROM webhook_attempts WHERE org_id = ?", o)).toEqual([`dlv_new-${o}`, `dlv_pending-${o}`]);
    expect(await ids("SELECT id FROM event_outbox WHERE org_id = ?", o)).toEqual([`evt_new-${o}`, `evt_pending-${o}`, `evt_unsent-${o}`]);
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
    // 6 roles × 1,700 expired days = 10,200 rows: more than one message's 20 statements × 500 rows.
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
    await run(
      "INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, ?, 'gm', ?, ?, '{}')",
      org.id,
      store.id,
      isoDay(NOW),
      new Date(NOW).toISOString(),
    );
    const consumed = await runCron("15 0 * * *", NOW);
    const briefingPurges = consumed.filter((m) => m.job === "purge-expired-records" && m.table === "morning_briefings");
    expect(briefingPurges).toHaveLength(2);
    expect(await all("SELECT day FROM morning_briefings WHERE org_id = ?", org.id)).toEqual([{ day: isoDay(NOW) }]);
  });
});
