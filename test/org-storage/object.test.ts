import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getTableName } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import migrations from "../../migrations-org/migrations";
import * as orgSchema from "../../src/db/org-schema";
import { openOrgStore } from "../../src/db/org-store";
import { type OrganizationStore, OrgStorageClosedError, OrgStorageMismatchError } from "../../src/durable-objects/org-storage";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { createOrg, createStore, createUnit } from "../helpers/factories";

const ORG_TABLES = Object.values(orgSchema)
  .filter((table) => table instanceof SQLiteTable)
  .map((table) => getTableName(table));

describe("an organization's storage object", () => {
  it("refuses every call made for another organization, and serves its own", async () => {
    // Both born in their objects, A's unit written in its own.
    const a = await createOrg();
    const b = await createOrg();
    const store = await createStore(a.id, { name: "North Lot" });
    await createUnit(a.id, store.id, { stockNumber: "A-1", stockedOn: "2026-11-01" });

    await runInDurableObject(orgStore(env, a.id), async (objectOfA: OrganizationStore) => {
      // A routing mistake (B's call sent to A's object) fails instead of answering with A's units.
      // Refused whether the method throws at once or rejects (an RPC caller sees a rejection either way).
      const refused = (call: () => unknown) => expect(Promise.resolve().then(call)).rejects.toThrow(OrgStorageMismatchError);
      await refused(() => objectOfA.inventoryPage(b.id, { limit: 10 }));
      await refused(() =>
        objectOfA.applySnapshot(b.id, [], store.id, [], { allowEmpty: true, confirmRemovals: undefined }, new Date().toISOString()),
      );
      await refused(() => objectOfA.storeSettingsList(b.id));
      await refused(() => objectOfA.markRelayed(b.id, []));
      await refused(() => objectOfA.seed(b.id));
      const own = await objectOfA.inventoryPage(a.id, { limit: 10 });
      expect(own.rows.map((row) => row[0])).toEqual(["A-1"]);
    });
    // B's own object holds nothing of A's.
    expect((await orgStore(env, b.id).inventoryPage(b.id, { limit: 10 })).rows).toEqual([]);
  });

  it("refuses a request before it is seeded, and a second seed once open", async () => {
    const id = `org_unseeded_${crypto.randomUUID().slice(0, 8)}`;
    await runInDurableObject(orgStore(env, id), async (object: OrganizationStore) => {
      await expect(object.inventoryPage(id, { limit: 10 })).rejects.toThrow(OrgStorageClosedError);
      await object.seed(id);
      expect((await object.inventoryPage(id, { limit: 10 })).rows).toEqual([]);
      await expect(object.seed(id)).rejects.toThrow("open already");
    });
  });

  it("migrates an object on the previous schema version when it starts, and every table reads afterwards", async () => {
    const org = await createOrg();
    await runInDurableObject(orgStore(env, org.id), async (_: OrganizationStore, state) => {
      // Back to an object that ran version 1: everything dropped, the later migrations (the updated_at triggers, the market values) not applied.
      const sql = state.storage.sql;
      for (const { type, name } of sql
        .exec<{ type: string; name: string }>(
          "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY type DESC",
        )
        .toArray()) {
        sql.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`);
      }
      const previous = { ...migrations, journal: { ...migrations.journal, entries: migrations.journal.entries.slice(0, 1) } };
      await openOrgStore(state.storage, previous);
      expect(sql.exec("SELECT name FROM sqlite_master WHERE type = 'trigger'").toArray()).toEqual([]);
      // Rows written by the previous version's code: no updated_at (its triggers came later).
      sql.exec("INSERT INTO storage_owner (org_id, active) VALUES (?, 1)", org.id);
      sql.exec("INSERT INTO stores (id, org_id, name) VALUES ('sto_old', ?, 'Old Lot')", org.id);
      sql.exec(
        `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, created_at)
         VALUES ('unit_old', ?, 'sto_old', 'OLD-1', '1HGCM82633A000001', 2021, 'Honda', 'Accord', 'EX', 'used', 'car', 30000, '2026-10-01', 18000, 21000, '2026-10-01T09:00:00.000Z')`,
        org.id,
      );

      // What the object's start runs: the bundled version, from wherever the object's schema is.
      await openOrgStore(state.storage);
      sql.exec(
        "INSERT INTO unit_market_values (unit_id, org_id, market_value, as_of, source) VALUES ('unit_old', ?, 20000, '2026-10-02', 'mmr')",
        org.id,
      );
      // The deals group (version 4): a deal and its stip, written as the previous code never could; the rollup follows the deal.
      sql.exec(
        `INSERT INTO deals (id, org_id, store_id, deal_number, sold_on, status, vin, year, make, model, condition, vehicle_type, selling_price, front_gross, back_gross, created_at)
         VALUES ('deal_old', ?, 'sto_old', 'D-OLD', '2026-10-03', 'funded', '1HGCM82633A000001', 2021, 'Honda', 'Accord', 'used', 'car', 21000, 1500, 800, '2026-10-03T09:00:00.000Z')`,
        org.id,
      );
      sql.exec(
        "INSERT INTO deal_stips (id, org_id, deal_id, stip, state, requested_on) VALUES ('stp_old', ?, 'deal_old', 'title', 'outstanding', '2026-10-03')",
        org.id,
      );
      expect(sql.exec("SELECT sale_month, units, total_gross, updated_at FROM sales_monthly").toArray()).toEqual([
        { sale_month: "2026-10", units: 1, total_gross: 2300, updated_at: "2026-10-03T09:00:00.000Z" },
      ]);
      // The object's outbox (version 5): an event recorded, not relayed yet.
      sql.exec(
        `INSERT INTO event_outbox (id, org_id, store_id, event, data, occurred_at) VALUES ('evt_old', ?, 'sto_old', 'deal.stip_alert', '{"stip":"title"}', '2026-10-03T09:00:00.000Z')`,
        org.id,
      );
      // The compliance checks group (version 6): a check as the screening records it, hashes only.
      sql.exec(
        `INSERT INTO compliance_checks (id, org_id, key_id, result, score, hold_score, flag_score, max_list_age_days, red_flags, safeguards_flags, person_hash, name_hash, dob_hash, checked_at)
         VALUES ('chk_old', ?, 'key_old', 'pass', 12, 95, 85, 45, '[]', '[]', 'p', 'n', 'd', '2026-10-03T09:00:00.000Z')`,
        org.id,
      );
      // The lender decisions group (version 7): a decision and an episode.
      sql.exec(
        `INSERT INTO lender_decisions (id, org_id, store_id, program_id, deal_id, submitted_on, score_band, decision, stips_asked, turnaround_hours)
         VALUES ('ld_old', ?, 'sto_old', 'lp_harbor_point_bank', 'deal_old', '2026-10-02', 'prime', 'approved', '[]', 20)`,
        org.id,
      );
      sql.exec(
        "INSERT INTO lender_outcome_episodes (id, org_id, store_id, program_id, opened_at, figures) VALUES ('loe_old', ?, 'sto_old', 'lp_harbor_point_bank', '2026-10-04T05:00:00.000Z', '{}')",
        org.id,
      );
      // The settings group (version 8): the old store's settings columns came at their defaults; an audit row of a change.
      expect(sql.exec("SELECT pack_used, aged_threshold_days FROM stores").one()).toEqual({ pack_used: 500, aged_threshold_days: 45 });
      sql.exec(
        `INSERT INTO settings_audit (id, org_id, store_id, area, field, old_value, new_value, actor, changed_at)
         VALUES ('set_old', ?, 'sto_old', 'store', 'pack_used', '500', '650', 'staff:usr_old', '2026-10-05T09:00:00.000Z')`,
        org.id,
      );
      // The webhooks group (version 9): an endpoint, a delivery of the old event, an attempt; the event recorded before reads as no sample.
      sql.exec(
        "INSERT INTO webhook_endpoints (id, org_id, url, events, secret_ciphertext) VALUES ('whk_old', ?, 'https://hooks.example.com/old', '[\"deal.stip_alert\"]', 'c')",
        org.id,
      );
      sql.exec(
        `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event, created_at, updated_at)
         VALUES ('dlv_old', ?, 'whk_old', 'evt_old', 'deal.stip_alert', '2026-10-03T09:00:00.000Z', '2026-10-03T09:00:00.000Z')`,
        org.id,
      );
      sql.exec(
        "INSERT INTO webhook_attempts (delivery_id, attempt, org_id, attempted_at, duration_ms, outcome) VALUES ('dlv_old', 1, ?, '2026-10-03T09:00:01.000Z', 40, 'delivered')",
        org.id,
      );
      expect(sql.exec("SELECT sample, fanned_out_at FROM event_outbox").one()).toEqual({ sample: 0, fanned_out_at: null });
      // The briefings group (version 10): a day's briefing and an aged crossing's marker.
      sql.exec(
        `INSERT INTO morning_briefings (org_id, store_id, role, day, generated_at, body) VALUES (?, 'sto_old', 'gm', '2026-10-04', '2026-10-04T06:00:00.000Z', '{}')`,
        org.id,
      );
      sql.exec(
        "INSERT INTO aged_inventory_alerts (org_id, stock_number, stocked_on, alerted_at) VALUES (?, 'OLD-1', '2026-10-01', '2026-11-15T00:15:00.000Z')",
        org.id,
      );
      // The lender panels and screening thresholds (version 11): a store's program, the organization's own thresholds.
      sql.exec("INSERT INTO store_lender_panel (org_id, store_id, program_id) VALUES (?, 'sto_old', 'lp_harbor_point_bank')", org.id);
      sql.exec(
        "INSERT INTO compliance_settings (org_id, hold_score, flag_score, max_list_age_days, minimum_age, maximum_age) VALUES (?, 97, 88, 30, 18, 110)",
        org.id,
      );
      // The store feeds (version 12): a store's last inventory delivery.
      sql.exec(
        "INSERT INTO store_feeds (org_id, store_id, feed, received_at) VALUES (?, 'sto_old', 'inventory', '2026-11-01T05:00:00.000Z')",
        org.id,
      );
      for (const table of ORG_TABLES) expect(sql.exec(`SELECT * FROM "${table}"`).toArray(), table).toHaveLength(1);
      const [unit] = sql.exec<{ updated_at: string }>("SELECT updated_at FROM inventory_units").toArray();
      expect(unit.updated_at).toBe("2026-10-01T09:00:00.000Z");
      // The new version's triggers hold: a change stamps updated_at, as D1 does.
      sql.exec("UPDATE inventory_units SET asking_price = 20500 WHERE id = 'unit_old'");
      expect(sql.exec<{ updated_at: string }>("SELECT updated_at FROM inventory_units").one().updated_at > "2026-11-01").toBe(true);
      // Started again on the current version, it applies nothing twice.
      await openOrgStore(state.storage);
      expect(sql.exec("SELECT count(*) AS n FROM __drizzle_migrations").one().n).toBe(migrations.journal.entries.length);
    });
  });
});
