import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { expectedAuctionProceeds } from "../../src/engines/aged-inventory/recommendation";
import type { ReportsAlertReportSchema } from "../../src/routes/reports/reports.routes";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createOtherOrgWithAgedUnit, createValuedUnit, daysAgo } from "../helpers/reports";

type Report = z.infer<typeof ReportsAlertReportSchema>;

const usd = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`;
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
  await unit("A-WHOLESALE", 65, 15_000, 19_995, 20_000);
  await unit("A-TODAY", 45, 18_000, 24_995, 25_000);
  await unit("A-YESTERDAY", 44, 18_000, 24_995, 25_000);
  await unit("A-NOVALUE", 10, 20_000, 30_000);

  otherKey = await createOtherOrgWithAgedUnit();

  const res = await call("/api/v1/inventory-alerts", { key });
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/json");
  report = await res.json();
});

describe("GET /api/v1/inventory-alerts", () => {
  it("gives each crafted unit its alert kind, and none to a healthy unit", () => {
    expect(Object.fromEntries(report.alerts.map((a) => [a.stock_no, a.alert_type]))).toEqual({
      "A-OVER": "overpriced",
      "A-AGED": "aged",
      "A-BOTH": "aged_and_overpriced",
      "A-EQUITY": "equity_below_floorplan",
      "A-WHOLESALE": "wholesale_candidate",
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
    // Expected auction proceeds at 65 days: 95% at 60 days less 5 points a month, 94.2% of market.
    expect(wholesale.wholesale_est).toBe(18_825);
    expect(wholesale.recommendation).toContain("wholesale at about $18,825 (expected auction proceeds: 94.2% of market $20,000 at 65 days)");
    for (const alert of report.alerts) {
      if (alert.condition === "new") expect(alert.wholesale_est).toBe(alert.market_value);
      else expect(alert.wholesale_est).toBe(expectedAuctionProceeds(alert.market_value, alert.days_on_lot));
    }
  });

  it("estimates market value from cost when the unit has no valuation, and says so", () => {
    const unit = byStock("A-NOVALUE")!;
    expect(unit.market_value_source).toBe("estimate");
    // (cost 20,000 + recon 1,200) / 0.88, kept at 99.3% after 10 days.
    expect(unit.market_value).toBe(23_925);
    expect(byStock("A-OVER")?.market_value_source).toBe("valuation");
  });

  it("orders by exposure and totals the aged units' cost", () => {
    const exposures = report.alerts.map((a) => a.exposure_usd);
    expect(exposures).toEqual([...exposures].sort((a, b) => b - a));
    // Exposure = cost + recon + floor-plan interest (8.5% a year) accrued over the days on lot.
    expect(byStock("A-AGED")?.exposure_usd).toBe(Math.round(18_000 + 1_200 + (18_000 * 0.085 * 50) / 365));
    const aged = report.alerts.filter((a) => a.days_on_lot >= 45);
    expect(report.total_aged_units).toBe(4);
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
