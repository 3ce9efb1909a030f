import type { DealToLoad, MarketValueToLoad, StipToLoad, UnitToLoad } from "../../../src/db/org-store";
import { marketObservationRows } from "../../../src/demo/demo-data-reports";
import { daysBefore, isoDay } from "../../../src/engines/dates";
import { type BenchArea, ENGINE_TARGET, READ_TARGET } from "../scenario";

const MODELS = [
  ["Toyota", "RAV4", "suv", 31_000],
  ["Toyota", "Camry", "car", 27_000],
  ["Honda", "CR-V", "suv", 30_000],
  ["Honda", "Civic", "car", 23_000],
  ["Ford", "F-150", "truck", 42_000],
  ["Chevrolet", "Equinox", "suv", 26_000],
] as const;
const STIPS = ["Proof of income", "Proof of residence", "Proof of insurance", "References"];

const tuple = (row: unknown[]) => `(${row.map((v) => (typeof v === "number" ? String(v) : `'${String(v).replaceAll("'", "''")}'`)).join(", ")})`;

/** A small deterministic stream, so every bench run seeds the same store. */
function stream(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * A store as a dealer's looks: 120 units of mixed age (a fifth past 45 days) with valuations,
 * 160 deals over the last 60 days, 12 of them waiting for funding with open stips, and the
 * public series history the pulse reads.
 */
export const reportsBench: BenchArea = {
  name: "reports",
  async seed(db, { orgId, storeId }) {
    const random = stream(42);
    const now = new Date();
    const day = (daysAgo: number) => isoDay(daysBefore(now, daysAgo));
    const units: UnitToLoad[] = [];
    const values: MarketValueToLoad[] = [];
    for (let i = 0; i < 120; i++) {
      const [make, model, type, price] = MODELS[i % MODELS.length];
      const condition = i % 3 === 0 ? "new" : "used";
      const age = Math.floor(random() * (i % 5 === 0 ? 120 : 45));
      const market = Math.round(price * (condition === "new" ? 1 : 0.75) * (0.9 + random() * 0.2));
      const cost = Math.round(market * (condition === "new" ? 0.92 : 0.8));
      const asking = Math.round((market * (0.97 + random() * 0.1)) / 100) * 100 - 5;
      const id = `unit_bench_rep_${i}`;
      units.push({
        id,
        orgId,
        storeId,
        stockNumber: `R${1000 + i}`,
        vin: `VINBENCHREP${String(i).padStart(6, "0")}`,
        year: 2023,
        make,
        model,
        trim: "Base",
        condition,
        vehicleType: type,
        mileage: condition === "new" ? 12 : 38_000,
        stockedOn: day(age),
        cost,
        askingPrice: asking,
        status: "in_stock",
      });
      values.push({ unitId: id, orgId, marketValue: market, asOf: day(0), source: "bench" });
    }
    const deals: DealToLoad[] = [];
    const stips: StipToLoad[] = [];
    for (let i = 0; i < 160; i++) {
      const [make, model, , price] = MODELS[Math.floor(random() * MODELS.length)];
      const waiting = i < 12;
      const id = `deal_bench_rep_${i}`;
      const soldOn = day(waiting ? i : Math.floor(random() * 60));
      deals.push({
        id,
        orgId,
        storeId,
        dealNumber: `RB${10_000 + i}`,
        soldOn,
        status: waiting ? "submitted" : "funded",
        vin: `VINBENCHDEAL${String(i).padStart(5, "0")}`,
        year: 2023,
        make,
        model,
        condition: i % 3 === 0 ? "new" : "used",
        vehicleType: "car",
        sellingPrice: price,
        lender: "Harbor Point Bank",
        beacon: 560 + Math.floor(random() * 260),
        amountFinanced: Math.round(price * 0.85),
        frontGross: Math.round(800 + random() * 2000),
        backGross: Math.round(900 + random() * 1500),
      });
      if (waiting)
        stips.push({ id: `stip_bench_rep_${i}`, orgId, dealId: id, stip: STIPS[i % STIPS.length], state: "outstanding", requestedOn: soldOn });
    }
    // The public series history the pulse reads is D1's: literal multi-row inserts, a few statements rather than hundreds through Miniflare's proxy.
    const observations = marketObservationRows(day(0)).map((o) => [o.seriesId, o.date, o.value, o.fetchedAt]);
    for (let i = 0; i < observations.length; i += 100)
      await db
        .prepare(
          `INSERT OR IGNORE INTO market_observations (series_id, date, value, fetched_at) VALUES ${observations
            .slice(i, i + 100)
            .map(tuple)
            .join(", ")}`,
        )
        .run();
    return { units, values, deals, stips };
  },
  scenarios: ({ key }) => [
    { name: "inventory-alerts", path: "/api/v1/inventory-alerts", headers: { "X-Service-API-Key": key }, metered: true, target: READ_TARGET },
    {
      name: "morning-briefing",
      path: "/api/v1/morning-briefing",
      method: "POST",
      body: { role: "gm" },
      headers: { "X-Service-API-Key": key },
      metered: true,
      target: ENGINE_TARGET,
    },
    { name: "market-pulse", path: "/api/v1/market-pulse", headers: { "X-Service-API-Key": key }, metered: true, target: READ_TARGET },
  ],
};
