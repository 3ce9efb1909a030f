import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { auctionEstimate } from "../../src/engines/aged-inventory/recommendation";
import type { ReportsAlertReportSchema } from "../../src/routes/reports/reports.routes";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createOtherOrgWithAgedUnit, createValuedUnit, daysAgo } from "../helpers/reports";

type Report = z.infer<typeof ReportsAlertReportSchema>;

const usd = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`;
describe("GET /api/v1/inventory-alerts", () => {
  let key: string;
  let otherKey: string;
  let report: Report;
  const byStock = (stock: string) => report.alerts.find((a) => a.stock_no === stock);

  // Store defaults (DOMAIN §10.4): aged at 45 days, used recon $1,200 (car), pack $500, holding $35/day, used floor plan 8.5%.
  beforeAll(async () => {
    const org = await createOrg();
    const store = await createStore(org.id, { isPrimary: true });
    key = (await createApiKey(org.id)).key;
    const unit = (stockNumber: string, days: number, cost: number, askingPrice: number, marketValue?: number, condition?: "new" | "used") =>
      createValuedUnit(org.id, store.id, { stockNumber, stockedOn: daysAgo(days), cost, askingPrice, marketValue, condition });
    await unit("A-FINE", 5, 18_000, 24_995, 25_000);
    await unit("A-OVER", 10, 20_000, 26_500, 25_000);
    await unit("A-AGED", 50, 18_000, 24_995, 25_000);
    await unit("A-BOTH", 50, 18_000, 26_500, 25_000);
    await unit("A-EQUITY", 20, 30_000, 30_000, 29_800, "new");
    await unit("A-WHOLESALE", 95, 15_000, 19_995, 20_000);
    await unit("A-REVIEW", 65, 15_000, 19_995, 20_000);
    await unit("A-TODAY", 45, 18_000, 24_995, 25_000);
    await unit("A-YESTERDAY", 44, 18_000, 24_995, 25_000);
    await unit("A-NOVALUE", 10, 20_000, 30_000);

    otherKey = await createOtherOrgWithAgedUnit();

    const res = await call("/api/v1/inventory-alerts", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    report = await res.json();
  });

  it("gives each crafted unit its alert kind, and none to a healthy unit", () => {
    expect(Object.fromEntries(report.alerts.map((a) => [a.stock_no, a.alert_type]))).toEqual({
      "A-OVER": "overpriced",
      "A-AGED": "aged",
      "A-BOTH": "aged_and_overpriced",
      "A-EQUITY": "equity_below_floorplan",
      "A-WHOLESALE": "wholesale_candidate",
      "A-REVIEW": "aged",
      "A-TODAY": "aged",
      "A-NOVALUE": "overpriced",
    });
    expect(byStock("A-WHOLESALE")?.conditions).toEqual(["wholesale_candidate", "aged"]);
  });

  it("lists a unit that reaches the 45-day threshold today, not one at 44 days", () => {
    expect(byStock("A-TODAY")?.days_on_lot).toBe(45);
    expect(byStock("A-YESTERDAY")).toBeUndefined();
  });

  it("recommends a repricing or a wholesale figure, with the numbers", () => {
    const over = byStock("A-OVER")!;
    expect(over.recommended_price).toBe(24_995); // the list price just under market
    expect(over.recommendation).toContain(`to ${usd(24_995)}`);
    expect(over.recommendation).toContain("6% over market $25,000");
    const aged = byStock("A-AGED")!;
    expect(aged.recommended_price).toBe(24_195); // 97% of market, under a round hundred
    const wholesale = byStock("A-WHOLESALE")!;
    // At 95 days (past the 90-day auction line): wholesale value 82% of the lower of market and asking × 89.2% kept (90% at 90 less 5 points a month) = $14,625, less $500 fees.
    expect(wholesale.wholesale_est).toBe(14_125);
    expect(wholesale.recommended_price).toBe(14_125);
    expect(wholesale.action).toBe("wholesale");
    expect(wholesale.recommendation).toContain(
      "expected auction proceeds about $14,125: wholesale value $14,625 (82% of the $19,995 asking price, under market $20,000, 89.2% of it kept at 95 days) less $500 auction and transport fees",
    );
    // The same unit at 65 days is in its wholesale review, and retail at $19,395 less 30 more days of holding beats the auction's $14,950: repriced (docs/domain/gross.md#wholesale-policy).
    const review = byStock("A-REVIEW")!;
    expect(review.action).toBe("reprice");
    expect(review.recommended_price).toBe(19_395);
    expect(review.wholesale_est).toBe(14_950);
    expect(review.recommendation).toContain("retail still nets more than the auction");
    const store = { wholesaleRatioPct: 82, auctionFees: 500 };
    for (const alert of report.alerts) {
      // A new unit is never wholesaled: no auction figure at all.
      if (alert.condition === "new") expect(alert.wholesale_est).toBeNull();
      else expect(alert.wholesale_est).toBe(auctionEstimate(Math.min(alert.market_value, alert.list_price), alert.days_on_lot, store).proceeds);
    }
  });

  it("estimates market value from cost when the unit has no valuation, and says so", () => {
    const unit = byStock("A-NOVALUE")!;
    expect(unit.market_value_source).toBe("estimate");
    // (cost 20,000 + recon 1,200) / 0.88 = $24,091 → $24,100: the retail market, no wholesale curve on it.
    expect(unit.market_value).toBe(24_100);
    expect(byStock("A-OVER")?.market_value_source).toBe("valuation");
  });

  it("orders by exposure and totals the aged units' cost", () => {
    const exposures = report.alerts.map((a) => a.exposure_usd);
    expect(exposures).toEqual([...exposures].sort((a, b) => b - a));
    // Exposure = cost + recon + floor-plan interest (8.5% a year) accrued over the days on lot.
    expect(byStock("A-AGED")?.exposure_usd).toBe(Math.round(18_000 + 1_200 + (18_000 * 0.085 * 50) / 365));
    const aged = report.alerts.filter((a) => a.days_on_lot >= 45);
    expect(report.total_aged_units).toBe(5);
    expect(report.total_aged_exposure_usd).toBe(aged.reduce((sum, a) => sum + a.exposure_usd, 0));
  });

  it("shows another organization only its own units", async () => {
    const res = await call("/api/v1/inventory-alerts", { key: otherKey });
    const other: Report = await res.json();
    expect(other.alerts.map((a) => a.stock_no)).toEqual(["B-AGED"]);
    expect(report.alerts.some((a) => a.stock_no.startsWith("B-"))).toBe(false);
  });

  it("needs a key with the inventory-alerts scope", async () => {
    expect((await call("/api/v1/inventory-alerts")).status).toBe(401);
    const org = await createOrg();
    const scoped = await createApiKey(org.id, { scopes: ["market-pulse"] });
    expect((await call("/api/v1/inventory-alerts", { key: scoped.key })).status).toBe(403);
  });
});

describe("GET /api/v1/inventory-alerts?store_id=", () => {
  let twoStores: string;
  let north: string;
  let south: string;
  beforeAll(async () => {
    const org = await createOrg();
    north = (await createStore(org.id, { isPrimary: true })).id;
    south = (await createStore(org.id)).id;
    twoStores = (await createApiKey(org.id)).key;
    await createValuedUnit(org.id, north, { stockNumber: "N-AGED", stockedOn: daysAgo(50), cost: 18_000, askingPrice: 24_995, marketValue: 25_000 });
    await createValuedUnit(org.id, south, { stockNumber: "S-AGED", stockedOn: daysAgo(70), cost: 15_000, askingPrice: 19_995, marketValue: 20_000 });
    await createValuedUnit(org.id, south, {
      stockNumber: "S-NEW",
      stockedOn: daysAgo(95),
      cost: 40_000,
      askingPrice: 44_995,
      marketValue: 45_000,
      condition: "new",
    });
  });
  const alertsFor = async (query: string) => {
    const res = await call(`/api/v1/inventory-alerts${query}`, { key: twoStores });
    return { status: res.status, body: (await res.json()) as Report & { error?: string } };
  };

  it("lists only the named store's units, with that store's totals", async () => {
    const all = await alertsFor("");
    expect(all.body.alerts.map((a) => a.stock_no).sort()).toEqual(["N-AGED", "S-AGED", "S-NEW"]);
    expect(all.body.total_aged_units).toBe(3);
    const southOnly = await alertsFor(`?store_id=${south}`);
    expect(southOnly.status).toBe(200);
    expect(southOnly.body.alerts.map((a) => a.stock_no).sort()).toEqual(["S-AGED", "S-NEW"]);
    expect(southOnly.body.alerts.every((a) => a.store_id === south)).toBe(true);
    expect(southOnly.body.total_aged_units).toBe(2);
    const northOnly = await alertsFor(`?store_id=${north}`);
    expect(northOnly.body.alerts.map((a) => a.stock_no)).toEqual(["N-AGED"]);
    expect(northOnly.body.total_aged_units).toBe(1);
  });

  it("answers 404 not_found for a store that is not the organization's, as the feeds do", async () => {
    const unknown = await alertsFor("?store_id=sto_nowhere");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not_found");
  });

  it("refuses another store's cursor with 422", async () => {
    const page = await alertsFor(`?store_id=${south}&limit=1`);
    expect(page.body.next_cursor).not.toBeNull();
    const crossed = await alertsFor(`?store_id=${north}&cursor=${encodeURIComponent(page.body.next_cursor!)}`);
    expect(crossed.status).toBe(422);
  });
});
