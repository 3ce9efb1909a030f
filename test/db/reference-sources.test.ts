import { describe, expect, it } from "vitest";
import { createDeskOrg, loadDemoSeed, post } from "../helpers/deal-desk";
import { all } from "../helpers/sql";

/** The project's internal notes, which a reader of a row or an answer does not have: a figure cites its public source. */
const INTERNAL = /\b(DOMAIN|SPEC|DESIGN|PLATFORM)(\.md)?\s*§|\b(DOMAIN|SPEC|DESIGN|PLATFORM)\.md\b|\/work\/shared/;

describe("reference rows cite public sources", () => {
  // Every table with a `source` column, found in the database itself: a new one is covered too.
  it("no stored row's source, after every migration and the demo seed, cites an internal document", async () => {
    await loadDemoSeed();
    const tables = await all<{ name: string }>(
      // drizzle-kit writes column names in backticks, and ALTER TABLE … ADD keeps the table's SQL up to date.
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%`source` text%'",
    );
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["credit_tiers", "stip_types", "lender_term_limits", "fi_word_tracks"]));
    const cited: string[] = [];
    for (const { name } of tables) {
      const rows = await all<{ source: string | null }>(`SELECT DISTINCT source FROM ${name}`);
      for (const { source } of rows) if (source && INTERNAL.test(source)) cited.push(`${name}: ${source}`);
    }
    expect(cited).toEqual([]);
  });

  it("no answer of the deal desk repeats one", async () => {
    const { key } = await createDeskOrg();
    const deal = { beacon: 560, down_payment: 3000, vehicle_price: 20000, vehicle_type: "car", known_issues: ["bk13"] };
    const answers = await Promise.all([
      post("/api/v1/lender-route", key, deal),
      post("/api/v1/stip-check", key, { lender: "Fresh Start Auto Lending", beacon: 548, known_issues: ["bk13"], income_type: "w2" }),
      post("/api/v1/deal-coach", key, {
        beacon: 700,
        vehicle_price: 30000,
        trade_value: 10000,
        trade_payoff: 12500,
        down_payment: 3000,
        term_months: 60,
      }),
      post("/api/v1/gross-calc", key, { purchase_price: 18500, selling_price: 22995, vehicle_type: "suv", days_on_lot: 52 }),
    ]);
    for (const answer of answers) {
      const text = await answer.text();
      expect(answer.status, text).toBe(200);
      expect(text).not.toMatch(INTERNAL);
    }
  });
});
