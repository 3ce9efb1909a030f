import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import type { MarketPulseSchema } from "../../src/routes/reports/reports.routes";
import { call, createApiKey, createOrg } from "../helpers/factories";
import { seedDemoOrgs } from "../helpers/reports";

type Pulse = z.infer<typeof MarketPulseSchema>;

let keys: { summitKey: string; lakesideKey: string };
let pulse: Pulse;

beforeAll(async () => {
  keys = await seedDemoOrgs();
  const res = await call("/api/v1/market-pulse", { key: keys.summitKey });
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/json");
  pulse = await res.json();
});

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

describe("GET /api/v1/market-pulse", () => {
  it("carries every figure with its value, the change from the prior reading, as_of and source", () => {
    const figures = [pulse.consumer_sentiment, pulse.gas_price, pulse.wholesale_index, ...pulse.lender_environment.rates];
    // The schema allows null before any reading exists; the seeded organizations have every one.
    const present = figures.filter((f) => f !== null);
    expect(present.length).toBe(8);
    for (const f of present) {
      expect(typeof f.value).toBe("number");
      expect(typeof f.change).toBe("number");
      expect(f.as_of).toMatch(ISO_DAY);
      expect(f.prior_as_of! < f.as_of).toBe(true);
      expect(f.source.length).toBeGreaterThan(3);
    }
    expect(pulse.as_of).toBe([...present.map((f) => f.as_of)].sort().at(-1));
  });

  it("scores the seeded readings the DOMAIN §8.4 way", () => {
    expect(pulse.consumer_sentiment).toMatchObject({ series_id: "UMCSENT", value: 53.6, change: -1.5, reading: "weak" });
    expect(pulse.gas_price).toMatchObject({ series_id: "EMM_EPMR_PTE_NUS_DPG", value: 3.12, change: -0.04, favour_fuel_efficient: false });
    expect(pulse.lender_environment).toMatchObject({ trend: "stable", change_pts: -0.15, threshold_pts: 0.25 });
    expect(pulse.wholesale_index).toMatchObject({ series_id: "MANHEIM_UVVI", value: 205 });
  });

  it("lists the feed's high and medium alerts, newest first", () => {
    expect(pulse.market_alerts.length).toBeGreaterThan(0);
    expect(pulse.market_alerts.length).toBeLessThanOrEqual(5);
    expect(pulse.market_alerts.every((a) => a.severity !== "low")).toBe(true);
    const dates = pulse.market_alerts.map((a) => a.date);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it("needs a key with the market-pulse scope", async () => {
    expect((await call("/api/v1/market-pulse")).status).toBe(401);
    const org = await createOrg();
    const { key } = await createApiKey(org.id, { scopes: ["inventory-alerts"] });
    expect((await call("/api/v1/market-pulse", { key })).status).toBe(403);
  });
});
