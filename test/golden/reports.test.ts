/**
 * Golden scenarios for the inventory alerts, the briefings, the aged-inventory job and the
 * market data, as a GM or used-car manager states them. Each names the rule that decides it
 * (docs/domain/reports.md#… or docs/domain/gross.md#…). Inventories are built with factories.
 */
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { upsertObservation } from "../../src/db/queries/reports";
import { type AlertUnit, evaluateUnit, type StoreSettings } from "../../src/engines/reports/alerts";
import { buildBriefing, unitsToMoveForShare } from "../../src/engines/reports/briefings";
import { buildMarketPulse } from "../../src/engines/reports/pulse";
import type { BriefingSchema, ReportsAlertReportSchema } from "../../src/routes/reports/reports.routes";
import { DEFAULT_STORE } from "../helpers/deal-desk-reference";
import { listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { runAlarmsThrough } from "../helpers/object-sql";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";
import { createValuedUnit, daysAgo, seedDemoOrgs } from "../helpers/reports";

type Report = z.infer<typeof ReportsAlertReportSchema>;
type Alert = Report["alerts"][number];
type Briefing = z.infer<typeof BriefingSchema>;

type Condition = "new" | "used";
type UnitSpec = [stock: string, days: number, cost: number, asking: number, market: number, condition?: Condition];

/** Every retail price a recommendation asks for. */
const retailAsks = (text: string) =>
  [...text.matchAll(/(?:retail it this week at|Reprice to|price it at|Retail it now at|hold at) \$([\d,]+)/g)].map((m) =>
    Number(m[1].replaceAll(",", "")),
  );
/** Every deadline a recommendation sets, in days from today ("turn it before 60 days" names none: -1). */
const deadlines = (text: string) => [
  ...[...text.matchAll(/in the (-?\d+) days before/g)].map((m) => Number(m[1])),
  ...[...text.matchAll(/ages in (-?\d+) days/g)].map((m) => Number(m[1])),
  ...[...text.matchAll(/before \d+ days/g)].map(() => -1),
];

async function orgWithUnits(units: UnitSpec[], settings = "") {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  if (settings) await rowsInObject(org.id, `UPDATE stores SET ${settings} WHERE id = ?`, store.id);
  const { key } = await createApiKey(org.id);
  for (const [stockNumber, days, cost, askingPrice, marketValue, condition] of units) {
    await createValuedUnit(org.id, store.id, {
      stockNumber,
      stockedOn: daysAgo(days),
      cost,
      askingPrice,
      marketValue,
      condition: condition ?? "used",
    });
  }
  return { orgId: org.id, storeId: store.id, key };
}

const alertsOf = async (key: string) => await (await call("/api/v1/inventory-alerts", { key })).json<Report>();
const briefingOf = async (key: string, role: string) =>
  (
    await call("/api/v1/morning-briefing", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ role }) })
  ).json<Briefing>();
const figure = (b: Briefing, section: string, id: string) => b.sections.find((s) => s.id === section)?.figures.find((f) => f.id === id);

// Store defaults: used aged at 45, new at 90; car recon $1,200; pack $500 used / $300 new; $35 a day; floor plan 8.5% used, 7% new.
const LOT: UnitSpec[] = [
  ["N155", 155, 38_000, 41_995, 41_500, "new"],
  ["N60", 60, 30_000, 32_995, 33_000, "new"],
  ["N95-EQ", 95, 40_000, 41_000, 39_000, "new"],
  ["U55", 55, 22_500, 25_000, 25_000],
  ["U95", 95, 19_500, 22_995, 22_500],
  ["U50-OVER", 50, 18_000, 26_500, 25_000],
  ["U44", 44, 18_000, 24_995, 25_000],
  ["U45", 45, 18_000, 24_995, 25_000],
  ["U59", 59, 15_000, 19_995, 20_000],
  ["U60", 60, 15_000, 19_995, 20_000],
  ["R103", 10, 18_000, 25_750, 25_000],
  ["R103-PLUS", 10, 18_000, 25_751, 25_000],
  ["EQ0", 0, 30_000, 30_000, 30_000, "new"],
  ["EQ-1", 0, 30_000, 30_000, 29_999, "new"],
];

let lot: { key: string; alerts: Alert[]; totalAged: number; gm: Briefing };
const unit = (stock: string) => lot.alerts.find((a) => a.stock_no === stock);
let summitKey: string;

beforeAll(async () => {
  // The demo seed first: a briefing caches the market pulse for a minute in this isolate.
  ({ summitKey } = await seedDemoOrgs());
  const { key } = await orgWithUnits(LOT);
  const report = await alertsOf(key);
  lot = { key, alerts: report.alerts, totalAged: report.total_aged_units, gm: await briefingOf(key, "gm") };
});

describe("new units age differently (docs/domain/reports.md#new-units-age-differently)", () => {
  it("a new unit at 155 days is never told to 'turn it before 60 days': the new-car manager dealer-trades, demos or incentivises it", () => {
    const a = unit("N155")!;
    expect(a.alert_type).toBe("aged");
    expect(a.owner).toBe("new_car_manager");
    expect(a.recommendation).not.toMatch(/before 60 days/);
    expect(a.recommendation).toMatch(/dealer-trade.*demo.*OEM incentive.*curtailment/);
    for (const d of deadlines(a.recommendation)) expect(d).toBeGreaterThan(0);
  });

  it("a new unit at 60 days, priced at market, needs no decision yet (new units age at 90)", () => {
    expect(unit("N60")).toBeUndefined();
  });

  it("a new unit under its floor-plan payoff is never sent to wholesale", () => {
    const a = unit("N95-EQ")!;
    expect(a.conditions).not.toContain("wholesale_candidate");
    expect(a.alert_type).toBe("equity_below_floorplan");
    expect(a.recommendation).not.toMatch(/wholesale/i);
    expect(a.recommendation).toMatch(/new-car manager/);
  });

  it("every new unit's alert says its threshold is 90 days and its owner the new-car manager; every used one 45 and the used-car manager", () => {
    for (const a of lot.alerts) {
      expect(a.aged_threshold_days).toBe(a.condition === "new" ? 90 : 45);
      expect(a.owner).toBe(a.condition === "new" ? "new_car_manager" : "used_car_manager");
    }
  });
});

describe("wholesale candidate (docs/domain/reports.md#wholesale-candidate)", () => {
  it("a 55-day used unit under water at its $25,000 market is reviewed against the auction's $19,075 (82% wholesale × 95.5% kept − $500 fees, never 95.5% of retail); retail still nets more, so it is repriced", () => {
    const a = unit("U55")!;
    expect(a.alert_type).toBe("aged");
    expect(a.action).toBe("reprice");
    expect(a.wholesale_est).toBe(19_075);
    expect(a.recommendation).toContain("retail still nets more than the auction");
    expect(a.recommendation).toContain(
      "expected auction proceeds about $19,075: wholesale value $19,575 (82% of market $25,000, 95.5% of it kept at 55 days) less $500 auction and transport fees",
    );
    // One action: the retail price, never an order to send it.
    expect(a.recommendation).not.toMatch(/send it to auction|to auction this/);
  });

  it("a used unit at 95 days listed at $22,995 is never told to retail above $22,995, and its auction figure is under the market", () => {
    const a = unit("U95")!;
    expect(a.alert_type).toBe("wholesale_candidate");
    for (const price of retailAsks(a.recommendation)) expect(price).toBeLessThanOrEqual(22_995);
    expect(a.wholesale_est).toBe(15_950);
    expect(a.wholesale_est!).toBeLessThan(a.market_value);
  });

  it("a used unit at 59 days has a deadline one day ahead; at 60 days it is in its wholesale review, kept while retail nets more (docs/domain/gross.md#wholesale-policy)", () => {
    expect(unit("U59")?.alert_type).toBe("aged");
    expect(unit("U59")?.recommendation).toContain("in the 1 days before its 60-day wholesale review");
    expect(unit("U60")?.recommendation).toMatch(/^Wholesale review \(60 days on the lot, reviewed at 60\)/);
    expect(unit("U60")?.action).toBe(unit("U60")?.recommendation.includes("retail still nets more") ? "reprice" : "wholesale");
  });
});

describe("aged alert thresholds (docs/domain/reports.md#aged-alert-thresholds)", () => {
  it("a used unit at 44 days is not aged; at 45 it is, handed to the used-car manager", () => {
    expect(unit("U44")).toBeUndefined();
    expect(unit("U45")?.alert_type).toBe("aged");
    expect(unit("U45")?.owner).toBe("used_car_manager");
  });

  it("an aged used unit listed 6% over market is repriced to just under market, never above its asking price", () => {
    const a = unit("U50-OVER")!;
    expect(a.alert_type).toBe("aged_and_overpriced");
    expect(a.recommended_price).toBe(24_995);
    expect(a.recommendation).toContain("in the 10 days before its 60-day wholesale review");
  });

  it("a unit listed at exactly 3% over market is not overpriced; a dollar more is", () => {
    expect(unit("R103")).toBeUndefined();
    expect(unit("R103-PLUS")?.alert_type).toBe("overpriced");
    expect(unit("R103-PLUS")?.recommended_price).toBe(24_995);
  });

  it("equity exactly at the floor-plan payoff is not below it; a dollar under is", () => {
    expect(unit("EQ0")).toBeUndefined();
    expect(unit("EQ-1")?.alert_type).toBe("equity_below_floorplan");
  });

  it("the aged total counts new units from 90 days and used units from 45", () => {
    // Used U55, U95, U50-OVER, U45, U59, U60 and new N155, N95-EQ.
    expect(lot.totalAged).toBe(8);
  });
});

describe("the GM's briefing (docs/domain/reports.md#briefing-kpis)", () => {
  it("the GM's aged bucket hands used units to the used-car manager and new units to the new-car manager, never wholesale for new", () => {
    const f = figure(lot.gm, "aged_inventory", "aged_units")!;
    expect(f.value).toBe(8);
    expect(f.action).toMatch(/used-car manager to a retail-toward-market or wholesale decision on the 6 used units/);
    expect(f.action).toMatch(/new-car manager for a plan on the 2 new units at or past 90 days.*dealer-trade/);
    expect(f.action).not.toMatch(/new units[^.]*wholesale/);
  });

  it("the GM's aged floor-plan interest sums only the aged units' interest, not every alert's", () => {
    const apr = (c?: Condition) => (c === "new" ? 7 : 8.5);
    const aged = LOT.filter(([, days, , , , c]) => days >= (c === "new" ? 90 : 45));
    const expected = aged.reduce((sum, [, days, cost, , , c]) => sum + Math.round((cost * apr(c) * days) / 100 / 365), 0);
    // R103-PLUS (10 days, $42 accrued) has an alert but is not aged.
    expect(figure(lot.gm, "aged_inventory", "aged_floorplan_interest")?.value).toBe(expected);
  });

  it("with 4 of 20 used units past 60 days the GM is told to move 3 (1 of 17 is under 10%), not 2; a unit at exactly 60 and new units do not count", async () => {
    const units: UnitSpec[] = [
      ["O61", 61, 15_000, 19_995, 20_000],
      ["O70", 70, 15_000, 19_995, 20_000],
      ["O80", 80, 15_000, 19_995, 20_000],
      ["O100", 100, 15_000, 19_995, 20_000],
      ["AT60", 60, 15_000, 19_995, 20_000],
      ...Array.from({ length: 15 }, (_, i): UnitSpec => [`F${i}`, 10, 15_000, 19_995, 20_000]),
      ["NEW120-A", 120, 30_000, 33_000, 33_000, "new"],
      ["NEW120-B", 120, 30_000, 33_000, 33_000, "new"],
    ];
    const { key } = await orgWithUnits(units);
    const gm = await briefingOf(key, "gm");
    const f = figure(gm, "aged_inventory", "share_over_60_days")!;
    expect(f.label).toBe("Used units over 60 days: 4 of 20");
    expect(f.value).toBe(20);
    expect(f.action).toMatch(/^Move 3 of the 4 used units past 60 days out/);
    expect(f.action).toContain("(1 of 17)");
  });

  it("a store within the over-60 target keeps its own review cadence, not a templated 45 days", async () => {
    const { key } = await orgWithUnits([["W10", 10, 15_000, 19_995, 20_000]], "aged_threshold_days = 40");
    const f = figure(await briefingOf(key, "gm"), "aged_inventory", "share_over_60_days")!;
    expect(f.action).toBe("Within target: keep the 40-day review cadence.");
  });

  it("38 of 195 used units over 60 days needs 21 moved to get under 10%, not 19", () => {
    expect(unitsToMoveForShare(38, 195, 10)).toBe(21);
    expect(unitsToMoveForShare(39, 200, 10)).toBe(22);
    expect(unitsToMoveForShare(19, 200, 10)).toBe(0);
  });

  it("the units to move are the fewest that bring the share under the target", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 50 }), (total, over, target) => {
        const o = Math.min(over, total);
        const n = unitsToMoveForShare(o, total, target);
        const under = (k: number) => o - k === 0 || ((o - k) * 100) / (total - k) < target;
        expect(under(n)).toBe(true);
        if (n > 0) expect(under(n - 1)).toBe(false);
      }),
    );
  });
});

describe("reports that agree with themselves (docs/domain/reports.md#one-figure-one-number)", () => {
  it("a new unit at exactly 90 days is counted aged by the GM, the new-car manager and the alerts alike (not 13 against 12)", async () => {
    const units: UnitSpec[] = [
      ["N90", 90, 40_000, 44_995, 45_000, "new"],
      ["N91", 91, 38_000, 41_995, 42_000, "new"],
      ["N89", 89, 38_000, 41_995, 42_000, "new"],
      ["N40", 40, 30_000, 32_995, 33_000, "new"],
    ];
    const { key } = await orgWithUnits(units);
    const gm = await briefingOf(key, "gm");
    const ncm = await briefingOf(key, "new_car_manager");
    const alerts = await alertsOf(key);
    const agedNewAlerts = alerts.alerts.filter((a) => a.condition === "new" && a.days_on_lot >= a.aged_threshold_days).length;
    expect(agedNewAlerts).toBe(2);
    expect(figure(ncm, "new_units_by_age", "new_units_aged")?.value).toBe(2);
    expect(ncm.total_aged_units).toBe(2);
    expect(gm.total_aged_units).toBe(2);
    expect(figure(gm, "aged_inventory", "aged_units")?.action).toContain("the 2 new units at or past 90 days");
    // The bands under the threshold: 0–29, 30–59, 60–89; N89 is in the last, not "over 90".
    expect(figure(ncm, "new_units_by_age", "new_units_60_89_days")?.value).toBe(1);
    expect(figure(ncm, "new_units_by_age", "new_units_30_59_days")?.value).toBe(1);
  });

  it("the used-car manager is told to send to auction only the units whose own alert says auction, never one with a retail price this week", async () => {
    const units: UnitSpec[] = [
      // A used SUV at 95 days: past the 90-day auction line, so it goes to auction, one action.
      ["S95", 95, 24_000, 29_995, 30_000],
      // The same SUV at 70 days: in its review, and retail still nets more than the auction.
      ["S70", 70, 24_000, 29_995, 30_000],
      // Aged at 50 days with gross left in it: a retail price this week, not the auction.
      ["S50", 50, 20_000, 27_995, 28_000],
      // Aged at 50 days and under water after holding: reviewed, and retail still nets more than the auction.
      ["S50-WATER", 50, 25_500, 27_495, 27_000],
    ];
    const { key } = await orgWithUnits(units);
    const ucm = await briefingOf(key, "used_car_manager");
    const alerts = (await alertsOf(key)).alerts;
    const action = Object.fromEntries(alerts.map((a) => [a.stock_no, a.action]));
    expect(action).toEqual({ S95: "wholesale", S70: "reprice", "S50-WATER": "reprice", S50: "reprice" });
    const send = figure(ucm, "wholesale_recommendations", "wholesale_candidates")!;
    expect(send.value).toBe(1);
    expect(send.action).toMatch(/^Send S95 \(~\$[\d,]+\) to auction this week\.$/);
    for (const a of alerts) {
      // One bucket: an auction recommendation names no retail price, a retail one no auction.
      if (a.action === "wholesale") expect(retailAsks(a.recommendation)).toEqual([]);
      else expect(a.recommendation).not.toMatch(/send it to auction|to auction this/);
    }
  });

  it("pack counts in an aged unit's projected gross: $455 over cost before a $500 pack is under water, so it is reviewed for wholesale", async () => {
    // 47 days: market $23,300 − (20,000 + recon 1,200 + 47 × $35 + pack 500) = −$45; without the pack +$455.
    const { key } = await orgWithUnits([["P47", 47, 20_000, 23_495, 23_300]]);
    const alert = (await alertsOf(key)).alerts.find((a) => a.stock_no === "P47")!;
    expect(alert.recommendation).toContain("Wholesale review (aged at 45 with projected front gross -$45 after holding cost)");
  });

  it("a new truck that cost $42,000 and sells for $44,000 at 120 days is not −$7,540: floor-plan interest only, $8 a day", async () => {
    const { key } = await orgWithUnits([["T-NEW", 120, 42_000, 44_000, 44_500, "new"]]);
    const alert = (await alertsOf(key)).alerts.find((a) => a.stock_no === "T-NEW")!;
    expect(alert.wholesale_est).toBeNull();
    expect(alert.action).toBe("new_unit_plan");
    expect(alert.recommendation).toContain("each more day costs $8 to hold");
    expect(alert.recommendation).not.toMatch(/wholesale|auction/i);
  });
});

describe("the aged-inventory job (docs/domain/reports.md#new-units-age-differently)", () => {
  it("alerts a new unit when it reaches 90 days, not 45, and says the same as the inventory-alerts report", async () => {
    // The organization's object runs the job on its alarm, at the 00:15 UTC run (docs/scaling.md#jobs-where-the-data-is).
    const { agedAt: now } = nightlyRuns();
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    const stockedDaysBefore = (days: number) => new Date(now - days * 86_400_000).toISOString().slice(0, 10);
    await createValuedUnit(org.id, store.id, {
      stockNumber: `J-NEW45-${org.id}`,
      stockedOn: stockedDaysBefore(45),
      cost: 30_000,
      askingPrice: 33_000,
      marketValue: 33_000,
      condition: "new",
    });
    await createValuedUnit(org.id, store.id, {
      stockNumber: `J-NEW90-${org.id}`,
      stockedOn: stockedDaysBefore(90),
      cost: 30_000,
      askingPrice: 33_000,
      marketValue: 33_000,
      condition: "new",
    });
    await createValuedUnit(org.id, store.id, {
      stockNumber: `J-USED45-${org.id}`,
      stockedOn: stockedDaysBefore(45),
      cost: 18_000,
      askingPrice: 24_995,
      marketValue: 25_000,
    });
    await runAlarmsThrough(org.id, now);
    const events = await listOutboxEvents(org.id, "inventory.aged_alert");
    const byStock = new Map(events.map((e) => [e.data.stock_no as string, e.data.recommendation as string]));
    expect([...byStock.keys()].sort()).toEqual([`J-NEW90-${org.id}`, `J-USED45-${org.id}`].sort());
    expect(byStock.get(`J-NEW90-${org.id}`)).toMatch(/^Aged new unit: 90 days \(new units age at 90\)/);
    expect(byStock.get(`J-USED45-${org.id}`)).toMatch(/^Aged: 45 days \(aged at 45\)/);
  });
});

describe("every alert, any unit (docs/domain/gross.md#sunk-cost-is-not-a-price)", () => {
  const store: StoreSettings = { ...DEFAULT_STORE, id: "sto_prop" };
  const now = new Date("2026-11-26T12:00:00Z");
  const unitArb = fc.record({
    days: fc.integer({ min: 0, max: 400 }),
    cost: fc.integer({ min: 5_000, max: 90_000 }),
    markup: fc.double({ min: 0.8, max: 1.5, noNaN: true }),
    marketRatio: fc.option(fc.double({ min: 0.7, max: 1.3, noNaN: true }), { nil: null }),
    condition: fc.constantFrom("new", "used", "cpo") as fc.Arbitrary<"new" | "used" | "cpo">,
  });
  const build = (u: { days: number; cost: number; markup: number; marketRatio: number | null; condition: "new" | "used" | "cpo" }): AlertUnit => {
    const askingPrice = Math.round(u.cost * u.markup);
    return {
      stockNumber: "P1",
      storeId: store.id,
      year: 2022,
      make: "Toyota",
      model: "Camry",
      trim: "SE",
      condition: u.condition,
      vehicleType: "car",
      stockedOn: new Date(now.getTime() - u.days * 86_400_000).toISOString().slice(0, 10),
      cost: u.cost,
      askingPrice,
      marketValue: u.marketRatio === null ? null : Math.round(askingPrice * u.marketRatio),
    };
  };

  it("no aged recommendation ever asks above the current price", () => {
    fc.assert(
      fc.property(unitArb, (u) => {
        const a = evaluateUnit(build(u), store, now);
        if (!a || a.daysOnLot < a.agedThresholdDays) return;
        for (const price of retailAsks(a.recommendation)) expect(price).toBeLessThanOrEqual(a.listPrice);
        if (a.alertType !== "wholesale_candidate") expect(a.recommendedPrice).toBeLessThanOrEqual(a.listPrice);
      }),
    );
  });

  it("every deadline in a recommendation is ahead of the unit, and a new unit is never wholesaled", () => {
    fc.assert(
      fc.property(unitArb, (u) => {
        const a = evaluateUnit(build(u), store, now);
        if (!a) return;
        for (const d of deadlines(a.recommendation)) expect(d).toBeGreaterThan(0);
        if (a.condition === "new") {
          expect(a.conditions).not.toContain("wholesale_candidate");
          expect(a.recommendation).not.toMatch(/wholesale/i);
        }
      }),
    );
  });
});

describe("demo market data (docs/domain/reports.md#demo-market-data)", () => {
  it("the seeded market feed says every entry is a demo value, in its source label and its flag", async () => {
    const feed = await (await call("/api/moat/public")).json<{ entries: { source: string; demo: boolean }[] }>();
    expect(feed.entries.length).toBeGreaterThan(0);
    for (const e of feed.entries) {
      expect(e.demo).toBe(true);
      expect(e.source).toMatch(/^DEMO VALUE \(seeded, not published\): modelled on /);
    }
  });

  it("the market pulse marks seeded readings as demo; a published reading for the same date clears it", async () => {
    const pulse = async () =>
      (await call("/api/v1/market-pulse", { key: summitKey })).json<{
        consumer_sentiment: { value: number; as_of: string; source: string; demo: boolean };
      }>();
    const seeded = (await pulse()).consumer_sentiment;
    expect(seeded.demo).toBe(true);
    expect(seeded.source).toMatch(/^DEMO VALUE/);
    await getDb(env.DB).batch([upsertObservation(getDb(env.DB), "UMCSENT", { date: seeded.as_of, value: seeded.value }, new Date().toISOString())]);
    const row = await env.DB.prepare("SELECT is_demo AS demo FROM market_observations WHERE series_id = 'UMCSENT' AND date = ?")
      .bind(seeded.as_of)
      .first<{ demo: number }>();
    expect(row?.demo).toBe(0);
  });
});

describe("an aged unit's price says which rule set it (docs/domain/reports.md)", () => {
  it("under market, the reprice reads as 97% of market, not 'toward market' (which would read as a raise); over market, toward market", async () => {
    const { key } = await orgWithUnits([
      ["UNDER", 50, 18_000, 24_000, 25_000],
      ["OVER", 50, 18_000, 26_000, 25_000],
    ]);
    const { alerts } = await alertsOf(key);
    const under = alerts.find((a) => a.stock_no === "UNDER")!;
    const over = alerts.find((a) => a.stock_no === "OVER")!;
    expect(under.recommendation).toContain("97% of market $25,000, not above the $24,000 asking price");
    expect(under.recommendation).not.toContain("toward market");
    expect(over.recommendation).toContain("toward market $25,000, not above the $26,000 asking price");
  });
});

describe("the cost tied up in a unit: exposure_usd = cost + recon + accrued floor-plan interest (docs/reports.md)", () => {
  it("a $20,000 used car at 50 days has $21,433 tied up: cost, the $1,200 recon allocation and $233 of floor-plan interest", () => {
    const now = new Date("2026-11-26T12:00:00Z");
    const alert = evaluateUnit(
      {
        stockNumber: "R50",
        storeId: "sto_recon",
        year: 2021,
        make: "Honda",
        model: "Accord",
        trim: "EX",
        condition: "used",
        vehicleType: "car",
        stockedOn: new Date(now.getTime() - 50 * 86_400_000).toISOString().slice(0, 10),
        cost: 20_000,
        askingPrice: 23_995,
        marketValue: 24_000,
      },
      { ...DEFAULT_STORE, id: "sto_recon" },
      now,
    );
    // $20,000 × 8.5% × 50 / 365 = $232.88 of interest.
    expect(alert).toMatchObject({ exposureUsd: 21_433, accruedInterestUsd: 233 });
  });
});

describe("the GM's aged-units sentence counts in words a manager reads (docs/domain/reports.md#one-figure-one-number)", () => {
  it("one aged new truck and one used car past 60 days: 'the 1 new unit', 'the 1 used unit', 'the 1 wholesale move'", () => {
    const now = new Date("2026-11-26T12:00:00Z");
    const stocked = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
    const base = { storeId: "sto_gm", year: 2022, make: "Ford", trim: "", marketValue: null } as const;
    const units: AlertUnit[] = [
      {
        ...base,
        stockNumber: "N95",
        model: "F-150",
        condition: "new",
        vehicleType: "truck",
        stockedOn: stocked(95),
        cost: 41_000,
        askingPrice: 44_995,
      },
      {
        ...base,
        stockNumber: "U95",
        model: "Fusion",
        condition: "used",
        vehicleType: "car",
        stockedOn: stocked(95),
        cost: 9000,
        askingPrice: 10_995,
      },
    ];
    const gm = buildBriefing(
      { role: "gm", store: { ...DEFAULT_STORE, id: "sto_gm" }, units, deals: [], openStips: [], pulse: buildMarketPulse([], [], 0.25) },
      now,
    );
    const actions = gm.sections.flatMap((s) => s.figures.map((f) => f.action)).join(" ");
    expect(actions).toContain("on the 1 used unit (");
    expect(actions).toContain("for a plan on the 1 new unit at or past 90 days");
    expect(actions).toContain("Approve the 1 wholesale move to stop its holding cost.");
  });
});
