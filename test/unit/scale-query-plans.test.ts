import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { explainAll, parseQueryLog } from "../../scripts/bench-scale/query-plans";

/** A tenant table (org_id) with the usual index, and a reference table without org_id. */
function database() {
  const db = new DatabaseSync(":memory:");
  db.exec(`
    CREATE TABLE deals (id TEXT PRIMARY KEY, org_id TEXT NOT NULL, lender TEXT, sold_on TEXT);
    CREATE INDEX deals_org_sold_idx ON deals (org_id, sold_on);
    CREATE TABLE credit_tiers (tier TEXT PRIMARY KEY, score_min INTEGER);
  `);
  const insert = db.prepare("INSERT INTO deals (id, org_id, lender, sold_on) VALUES (?, ?, 'Ally', '2026-11-01')");
  for (let i = 0; i < 1500; i++) insert.run(`d${i}`, i < 1200 ? "org_big" : "org_small");
  return db;
}

const logged = (sql: string, params: (string | number)[] = []) => ({ sql, params, phase: "probe" });

describe("bench:scale's EXPLAIN QUERY PLAN check", () => {
  it("flags a full scan of a tenant table, under its alias too, and a full pass over one of its indexes, but not a seek", () => {
    const plans = explainAll(database(), [
      logged('select "id" from "deals" where "deals"."lender" = ?', ["Ally"]),
      logged('select "c"."id" from "deals" "c" where "c"."lender" = ?', ["Ally"]),
      logged('select "id" from "deals" where "deals"."org_id" = ? and "deals"."sold_on" >= ?', ["org_big", "2026-01-01"]),
      logged('select count(*) from "deals"'),
      logged('select "tier" from "credit_tiers"'),
    ]);
    expect(plans.map((p) => p.tenantScans)).toEqual([["deals"], ["deals"], [], ["deals"], []]);
  });

  it("reports reads of every row an organization has in a growing table, and whether a join repeats them", () => {
    const plans = explainAll(database(), [
      logged('select "id" from "deals" where "deals"."org_id" = ?', ["org_big"]),
      logged(
        'select "a"."id" from "deals" "a" left join "deals" "b" on "b"."org_id" = "a"."org_id" and "b"."lender" = "a"."lender" where "a"."org_id" = ? and "a"."sold_on" > ?',
        ["org_big", "2026-10-01"],
      ),
    ]);
    expect(plans[0].orgWideReads).toEqual([{ table: "deals", nested: false }]);
    expect(plans[1].orgWideReads).toEqual([{ table: "deals", nested: true }]);
  });

  it("reads the Worker's query log lines out of wrangler's output", () => {
    expect(parseQueryLog('[wrangler:info] {"query_log":{"sql":"select 1","params":[2]}}')).toEqual({ sql: "select 1", params: [2] });
    expect(parseQueryLog("GET /api/v1/inventory 200 OK (12ms)")).toBeUndefined();
  });
});
