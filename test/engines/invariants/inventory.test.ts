/**
 * Inventory, gross and aging invariants (docs/domain/invariants.md#inventory-gross-and-aging): rules
 * a manager would never see broken, over generated units and stores (new, used and CPO, every body
 * type, with and without the store's own settings), run through the engines themselves.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConditionGrades } from "../../../src/db/queries/appraisal";
import {
  ACTIONS,
  AUCTION_DAYS,
  agedRepriceTarget,
  auctionEstimate,
  type GradeFactor,
  retailWindowDays,
  WHOLESALE_DAYS,
  WHOLESALE_GRADES,
  type WholesaleGrade,
} from "../../../src/engines/aged-inventory/recommendation";
import { daysBefore, isoDay } from "../../../src/engines/dates";
import type { UnitCondition, VehicleType } from "../../../src/engines/deal-math/vocabulary";
import { calculateGross, type GrossInput, type GrossResult } from "../../../src/engines/gross";
import { dailyHoldingCost, holdingCostFor, holdingFiguresOf } from "../../../src/engines/holding-cost";
import { type AlertUnit, buildAlertReport, evaluateUnit, type StoreSettings } from "../../../src/engines/reports/alerts";
import { type Briefing, buildBriefing, type Role } from "../../../src/engines/reports/briefings";
import { buildMarketPulse } from "../../../src/engines/reports/pulse";
import { COACH_REFERENCE, DEFAULT_STORE } from "../../helpers/deal-desk-reference";
import { ORG_WITHOUT_OWN_ROWS, referenceDb } from "../../helpers/reference-d1";
import { holds } from "./check";

/** The auction condition grades the migrations ship (D1 table appraisal_condition_grades). */
let grades: GradeFactor[] = [];
beforeAll(async () => {
  grades = await loadConditionGrades(referenceDb(), ORG_WITHOUT_OWN_ROWS);
});
const gradeOf = (grade: WholesaleGrade): GradeFactor => {
  const row = grades.find((g) => g.grade === grade);
  if (!row) throw new Error(`no condition grade row for ${grade}`);
  return row;
};

const NOW = new Date("2026-11-28T12:00:00Z");
const TARGETS = COACH_REFERENCE.frontGrossTargets;
const PULSE = buildMarketPulse([], [], 0.25);

/** The shipped defaults, or a store that states its own figures (within the settings API's ranges). */
const storeArb: fc.Arbitrary<StoreSettings> = fc.oneof(
  fc.constant({ ...DEFAULT_STORE, id: "sto_default" }),
  fc.record({
    id: fc.constant("sto_own"),
    packNew: fc.integer({ min: 0, max: 1000 }),
    packUsed: fc.integer({ min: 0, max: 1500 }),
    holdingCostPerDay: fc.integer({ min: 10, max: 80 }),
    holdingHighValueCost: fc.integer({ min: 15_000, max: 60_000 }),
    holdingHighValueDailyPct: fc.double({ min: 0, max: 0.3, noNaN: true }),
    floorplanAprNew: fc.double({ min: 0, max: 14, noNaN: true }),
    floorplanAprUsed: fc.double({ min: 0, max: 14, noNaN: true }),
    floorplanAssistanceNewPerDay: fc.double({ min: 0, max: 20, noNaN: true }),
    overheadNewPerDay: fc.double({ min: 0, max: 30, noNaN: true }),
    wholesaleRatioPct: fc.double({ min: 50, max: 95, noNaN: true }),
    auctionFees: fc.integer({ min: 0, max: 1500 }),
    reconCar: fc.integer({ min: 0, max: 3000 }),
    reconTruck: fc.integer({ min: 0, max: 3000 }),
    reconSuv: fc.integer({ min: 0, max: 3000 }),
    reconVan: fc.integer({ min: 0, max: 3000 }),
    agedThresholdDays: fc.integer({ min: 20, max: 75 }),
    agedThresholdDaysNew: fc.integer({ min: 45, max: 150 }),
  }),
);

const conditionArb = fc.constantFrom<UnitCondition>("new", "used", "cpo");
const vehicleArb = fc.constantFrom<VehicleType>("car", "truck", "suv", "van");

/** A unit as the lot holds it: cost $4,000–$120,000, priced 0.85–1.4× cost, market 0.8–1.25× its price (or no valuation). */
const unitArb = (stock: string) =>
  fc
    .record({
      condition: conditionArb,
      vehicleType: vehicleArb,
      cost: fc.integer({ min: 4_000, max: 120_000 }),
      markup: fc.double({ min: 0.85, max: 1.4, noNaN: true }),
      marketRatio: fc.option(fc.double({ min: 0.8, max: 1.25, noNaN: true }), { nil: undefined }),
      days: fc.integer({ min: 0, max: 400 }),
    })
    .map(({ condition, vehicleType, cost, markup, marketRatio, days }): AlertUnit => {
      const askingPrice = Math.round(cost * markup);
      return {
        stockNumber: stock,
        storeId: "",
        year: 2022,
        make: "Make",
        model: "Model",
        trim: "",
        condition,
        vehicleType,
        stockedOn: isoDay(daysBefore(NOW, days)),
        cost,
        askingPrice,
        marketValue: marketRatio === undefined ? null : Math.round(askingPrice * marketRatio),
      };
    });

const alertOf = (unit: AlertUnit, store: StoreSettings) => evaluateUnit({ ...unit, storeId: store.id }, store, NOW);

/** A gross-calc request over the same ranges (gross-calc takes new or used). */
interface GrossCase {
  condition: "new" | "used";
  vehicleType: VehicleType;
  purchasePrice: number;
  markup: number;
  marketRatio: number | undefined;
  daysOnLot: number;
  grade: WholesaleGrade;
}
const grossArb: fc.Arbitrary<GrossCase> = fc.record({
  condition: fc.constantFrom<"new" | "used">("new", "used"),
  vehicleType: vehicleArb,
  purchasePrice: fc.integer({ min: 4_000, max: 120_000 }),
  markup: fc.double({ min: 0.85, max: 1.4, noNaN: true }),
  marketRatio: fc.option(fc.double({ min: 0.8, max: 1.25, noNaN: true }), { nil: undefined }),
  daysOnLot: fc.integer({ min: 0, max: 400 }),
  grade: fc.constantFrom<WholesaleGrade>(...WHOLESALE_GRADES),
});
const grossInput = (g: GrossCase): GrossInput => {
  const sellingPrice = Math.round(g.purchasePrice * g.markup);
  return {
    purchasePrice: g.purchasePrice,
    sellingPrice,
    vehicleType: g.vehicleType,
    daysOnLot: g.daysOnLot,
    condition: g.condition,
    marketValue: g.marketRatio === undefined ? undefined : Math.round(sellingPrice * g.marketRatio),
    grade: gradeOf(g.grade),
  };
};
const grossOf = (g: GrossCase, store: StoreSettings) => calculateGross(grossInput(g), store, TARGETS);

const dollars = (text: string, lead: string) =>
  [...text.matchAll(new RegExp(`${lead} \\$([\\d,]+)`, "g"))].map((m) => Number(m[1].replaceAll(",", "")));
/** Every retail price a sentence asks for. */
const retailAsks = (text: string) => ["Reprice to", "price it at", "hold at", "to"].flatMap((lead) => dollars(text, lead));
/** Every distance to a deadline a sentence names. */
const deadlines = (text: string) =>
  [...text.matchAll(/(?:in the (-?\d+) days before|ages in (-?\d+) days|aged in (-?\d+) days|cushion in (-?\d+) days)/g)].map((m) =>
    Number(m[1] ?? m[2] ?? m[3] ?? m[4]),
  );

describe("inventory, gross and aging invariants", () => {
  it("no wholesale or auction figure is at or above the retail market", () => {
    holds(
      fc.property(unitArb("U1"), storeArb, grossArb, (unit, store, g) => {
        const alert = alertOf(unit, store);
        if (alert?.wholesaleEst != null) expect(alert.wholesaleEst).toBeLessThan(alert.marketValue);
        for (const figure of dollars(alert?.recommendation ?? "", "(?:auction proceeds about|wholesale value)")) {
          expect(figure).toBeLessThan(alert!.marketValue);
        }
        const r = grossOf(g, store);
        if (r.expected_auction_proceeds !== null) expect(r.expected_auction_proceeds).toBeLessThan(r.market_value);
      }),
    );
  });

  it("new units never get a wholesale or auction figure", () => {
    holds(
      fc.property(unitArb("N1"), storeArb, grossArb, (unit, store, g) => {
        const alert = alertOf({ ...unit, condition: "new" }, store);
        if (alert) {
          expect(alert.wholesaleEst).toBeNull();
          expect(alert.action).not.toBe("wholesale");
          expect(alert.conditions).not.toContain("wholesale_candidate");
          expect(alert.recommendation).not.toMatch(/wholesale|auction/i);
        }
        const r = grossOf({ ...g, condition: "new" }, store);
        expect(r.expected_auction_proceeds).toBeNull();
        expect(r.aging_stage).not.toBe("wholesale");
        expect(r.pricing_recommendation).not.toMatch(/wholesale|auction/i);
      }),
    );
  });

  it("no recommended price is above the unit's asking price", () => {
    holds(
      fc.property(unitArb("U1"), storeArb, grossArb, (unit, store, g) => {
        const alert = alertOf(unit, store);
        if (alert) {
          expect(alert.recommendedPrice).toBeLessThanOrEqual(alert.listPrice);
          for (const price of retailAsks(alert.recommendation.replace(/asking price.*$/, ""))) expect(price).toBeLessThanOrEqual(alert.listPrice);
        }
        const input = grossInput(g);
        const r = calculateGross(input, store, TARGETS);
        for (const price of [...dollars(r.pricing_recommendation, "Reprice to"), ...dollars(r.pricing_recommendation, "price it at")]) {
          expect(price).toBeLessThanOrEqual(input.sellingPrice);
        }
      }),
    );
  });

  it("'hold at $X' only under the asking price, on a fresh unit priced under market", () => {
    holds(
      fc.property(grossArb, storeArb, (g, store) => {
        const input = grossInput(g);
        const r = calculateGross(input, store, TARGETS);
        for (const hold of dollars(r.pricing_recommendation, "hold at")) {
          expect(hold).toBeLessThan(input.sellingPrice);
          expect(input.daysOnLot).toBeLessThan(30);
          expect(input.sellingPrice).toBeLessThan(r.market_value);
        }
      }),
    );
  });

  it("a unit is in one recommendation bucket only", () => {
    holds(
      fc.property(fc.array(unitArb("U"), { minLength: 1, maxLength: 30 }), storeArb, (units, store) => {
        const lot = units.map((u, i) => ({ ...u, stockNumber: `U${i}`, storeId: store.id }));
        const report = buildAlertReport(lot, new Map([[store.id, store]]), NOW);
        for (const a of report.alerts) {
          expect(ACTIONS).toContain(a.action);
          if (a.action === "wholesale") {
            expect(a.recommendedPrice).toBe(a.wholesaleEst);
            expect(a.recommendation).not.toMatch(/Reprice|price it at|hold at|Hold the price/);
          } else {
            // It may weigh the auction (a wholesale review kept for retail says what the auction would pay), never send it there.
            expect(a.recommendation).not.toMatch(/send it to auction|to auction this|wholesale at/i);
          }
          expect(a.conditions.includes("wholesale_candidate")).toBe(a.action === "wholesale");
        }
        // Across the briefings: the auction list and the retail promotions never share a unit.
        const briefings = briefingsOf(lot, store);
        const sendFigure = figureOf(briefings.used_car_manager, "wholesale_candidates");
        const sent = new Set([...(sendFigure?.action ?? "").matchAll(/(U\d+) \(~/g)].map((m) => m[1]));
        const promoted = briefings.bdc_manager.sections.flatMap((s) =>
          s.figures.filter((f) => f.id.startsWith("promote_")).map((f) => f.id.slice(8)),
        );
        for (const stock of promoted) expect(sent.has(stock)).toBe(false);
      }),
    );
  });

  it("a used unit goes to auction only when retail no longer pays, or at the 90-day line; the alerts, gross-calc and briefings agree", () => {
    holds(
      fc.property(unitArb("U"), storeArb, (generated, store) => {
        const unit = { ...generated, condition: generated.condition === "new" ? ("used" as const) : generated.condition, storeId: store.id };
        const alert = alertOf(unit, store);
        const days = Math.round((NOW.getTime() - Date.parse(`${unit.stockedOn}T12:00:00Z`)) / 86_400_000);
        if (alert === null || days < WHOLESALE_DAYS) return;
        // The retail path, stated from the rows: the aged price, less cost, recon, pack, holding to date and one more window.
        const market = alert.marketValue;
        const price = agedRepriceTarget(unit.askingPrice, market);
        const figures = holdingFiguresOf(store);
        const daily = dailyHoldingCost(unit.cost, figures, unit.condition);
        const recon = { car: store.reconCar, truck: store.reconTruck, suv: store.reconSuv, van: store.reconVan }[unit.vehicleType];
        const retailGross =
          price - unit.cost - recon - store.packUsed - holdingCostFor(unit.cost, days, figures, unit.condition) - retailWindowDays(days) * daily;
        const proceeds = auctionEstimate(Math.min(market, unit.askingPrice), days, store).proceeds;
        const retailPays = price - retailWindowDays(days) * daily > proceeds + 0.01;
        const retailLoses = price - retailWindowDays(days) * daily < proceeds - 0.01;
        if (days >= AUCTION_DAYS || retailLoses) expect(alert.action, `${days} days, retail gross ${retailGross}`).toBe("wholesale");
        if (days < AUCTION_DAYS && retailPays) {
          expect(alert.action, `${days} days, retail gross ${retailGross}`).toBe("reprice");
          expect(alert.recommendedPrice).toBe(price);
          expect(alert.recommendation).toContain("retail still nets more than the auction");
          expect(alert.recommendation).toContain(`front gross then about`);
          expect(retailGross).toBeLessThan(Number.POSITIVE_INFINITY);
        }
        // The same unit through gross-calc takes the same decision, and the briefings' auction list holds it only if the alert does.
        if (unit.condition === "used") {
          const gross = calculateGross(
            {
              purchasePrice: unit.cost,
              sellingPrice: unit.askingPrice,
              vehicleType: unit.vehicleType,
              daysOnLot: days,
              condition: "used",
              marketValue: market,
            },
            store,
            TARGETS,
          );
          expect(gross.aging_stage === "wholesale").toBe(alert.action === "wholesale");
        }
        const sendFigure = figureOf(briefingsOf([unit], store).used_car_manager, "wholesale_candidates");
        expect((sendFigure?.action ?? "").includes(`${unit.stockNumber} (~`)).toBe(alert.action === "wholesale");
      }),
    );
  });

  it("the same figure is the same number in every role's briefing and in the alerts", () => {
    holds(
      fc.property(fc.array(unitArb("U"), { minLength: 0, maxLength: 30 }), storeArb, (units, store) => {
        const lot = units.map((u, i) => ({ ...u, stockNumber: `U${i}`, storeId: store.id }));
        const report = buildAlertReport(lot, new Map([[store.id, store]]), NOW);
        const b = briefingsOf(lot, store);
        const agedNew = report.alerts.filter((a) => a.condition === "new" && a.daysOnLot >= a.agedThresholdDays).length;
        const agedUsed = report.totalAgedUnits - agedNew;
        const toWholesale = report.alerts.filter((a) => a.action === "wholesale").length;
        // Aged units: the alerts, the GM, and each manager's own share.
        expect(b.gm.totalAgedUnits).toBe(report.totalAgedUnits);
        expect(figureOf(b.gm, "aged_units")?.value).toBe(report.totalAgedUnits);
        expect(b.new_car_manager.totalAgedUnits).toBe(agedNew);
        expect(figureOf(b.new_car_manager, "new_units_aged")?.value).toBe(agedNew);
        expect(b.used_car_manager.totalAgedUnits).toBe(agedUsed);
        const gmAction = figureOf(b.gm, "aged_units")?.action ?? "";
        if (agedNew > 0) expect(gmAction).toContain(`the ${agedNew} new unit${agedNew === 1 ? "" : "s"} at or past`);
        if (agedUsed > 0) expect(gmAction).toContain(`the ${agedUsed} used unit${agedUsed === 1 ? "" : "s"} (`);
        // The new-car manager's age bands are real ranges under the threshold and add up to every new unit.
        for (const f of b.new_car_manager.sections.flatMap((s) => s.figures)) {
          const band = f.id.match(/^new_units_(\d+)_(\d+)_days$/);
          if (band) expect(Number(band[1])).toBeLessThanOrEqual(Number(band[2]));
          if (band) expect(Number(band[2])).toBeLessThan(store.agedThresholdDaysNew);
        }
        // The new-car manager's age bands add up to every new unit.
        const bands = b.new_car_manager.sections.flatMap((s) => s.figures.filter((f) => f.id.startsWith("new_units_")).map((f) => f.value));
        expect(bands.reduce((x, y) => x + y, 0)).toBe(lot.filter((u) => u.condition === "new").length);
        // Units to wholesale and their proceeds: the GM's and the used-car manager's are the alerts'.
        const gmWholesale = figureOf(b.gm, "wholesale_candidates")!;
        const ucmWholesale = figureOf(b.used_car_manager, "wholesale_candidates")!;
        expect(gmWholesale.value).toBe(toWholesale);
        expect(ucmWholesale.value).toBe(toWholesale);
        expect(gmWholesale.label.match(/about (\$[\d,]+)/)?.[1]).toBe(ucmWholesale.label.match(/about (\$[\d,]+)/)?.[1]);
        // The over-60 share is one figure.
        expect(figureOf(b.gm, "share_over_60_days")).toEqual(figureOf(b.used_car_manager, "share_over_60_days"));
      }),
    );
  });

  it("every deadline in a recommendation is still ahead of the unit", () => {
    holds(
      fc.property(unitArb("U1"), storeArb, grossArb, (unit, store, g) => {
        for (const d of deadlines(alertOf(unit, store)?.recommendation ?? "")) expect(d).toBeGreaterThan(0);
        for (const d of deadlines(grossOf(g, store).pricing_recommendation)) expect(d).toBeGreaterThan(0);
        // The aged line itself, which generated days rarely hit: on its day the unit is aged, not "aged in 0 days".
        const agedLine = g.condition === "new" ? store.agedThresholdDaysNew : store.agedThresholdDays;
        for (const d of deadlines(grossOf({ ...g, daysOnLot: agedLine }, store).pricing_recommendation)) expect(d).toBeGreaterThan(0);
      }),
    );
  });

  it("holding cost is never negative and never falls as days or cost rise, for every condition", () => {
    holds(
      fc.property(
        storeArb,
        conditionArb,
        fc.integer({ min: 1_000, max: 150_000 }),
        fc.integer({ min: 1_000, max: 150_000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        (store, condition, c1, c2, d1, d2) => {
          const figures = holdingFiguresOf(store);
          const [lo, hi] = c1 <= c2 ? [c1, c2] : [c2, c1];
          const [short, long] = d1 <= d2 ? [d1, d2] : [d2, d1];
          expect(dailyHoldingCost(lo, figures, condition)).toBeGreaterThanOrEqual(0);
          expect(holdingCostFor(lo, short, figures, condition)).toBeGreaterThanOrEqual(0);
          expect(holdingCostFor(lo, long, figures, condition)).toBeGreaterThanOrEqual(holdingCostFor(lo, short, figures, condition));
          expect(dailyHoldingCost(hi, figures, condition)).toBeGreaterThanOrEqual(dailyHoldingCost(lo, figures, condition));
        },
      ),
    );
  });

  it("a new unit carries its floor-plan interest less assistance plus overhead, never the used-car figure", () => {
    holds(
      fc.property(storeArb, fc.integer({ min: 5_000, max: 150_000 }), (store, cost) => {
        const interest = (cost * store.floorplanAprNew) / 100 / 365;
        const expected = Math.max(0, interest - store.floorplanAssistanceNewPerDay) + store.overheadNewPerDay;
        expect(dailyHoldingCost(cost, holdingFiguresOf(store), "new")).toBeCloseTo(expected, 2);
      }),
    );
  });

  it("expected auction proceeds never rise as a unit ages or grades rougher", () => {
    holds(
      fc.property(
        storeArb,
        fc.integer({ min: 2_000, max: 150_000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        (store, market, a, b) => {
          const [young, old] = a <= b ? [a, b] : [b, a];
          expect(auctionEstimate(market, old, store).proceeds).toBeLessThanOrEqual(auctionEstimate(market, young, store).proceeds);
          expect(auctionEstimate(market, young, store, gradeOf("poor")).proceeds).toBeLessThanOrEqual(
            auctionEstimate(market, young, store, gradeOf("fair")).proceeds,
          );
          expect(auctionEstimate(market, young, store, gradeOf("fair")).proceeds).toBeLessThanOrEqual(
            auctionEstimate(market, young, store, gradeOf("good")).proceeds,
          );
        },
      ),
    );
  });

  it("every input field of gross-calc changes the answer, or is informational where docs/domain/gross.md says so", () => {
    const alternatives: { [K in keyof GrossCase]: GrossCase[K][] } = {
      condition: ["new", "used"],
      vehicleType: ["car", "truck", "suv", "van"],
      purchasePrice: [4_500, 19_000, 61_000],
      markup: [0.9, 1.1, 1.35],
      marketRatio: [undefined, 0.85, 1.2],
      daysOnLot: [0, 50, 200],
      grade: ["good", "fair", "poor"],
    };
    /** Documented as informational (docs/domain/gross.md#every-input-counts): grade on a new unit; body type on a new unit (no recon), or between two types the store allocates alike. */
    const informational = (field: keyof GrossCase, g: GrossCase, store: StoreSettings) =>
      (field === "grade" && (g.condition === "new" || auctionAlikeAtEveryGrade(grossInput(g), store))) ||
      (field === "vehicleType" &&
        (g.condition === "new" || new Set([store.reconCar, store.reconTruck, store.reconSuv, store.reconVan]).size === 1)) ||
      // A new unit that costs nothing a day (assistance covers the interest, no overhead) does not change with days until it ages.
      (field === "daysOnLot" && g.condition === "new" && dailyHoldingCost(g.purchasePrice, holdingFiguresOf(store), "new") === 0);
    const answer = (r: GrossResult) => JSON.stringify(r);
    holds(
      fc.property(grossArb, storeArb, (g, store) => {
        const base = answer(grossOf(g, store));
        for (const field of Object.keys(alternatives) as (keyof GrossCase)[]) {
          if (informational(field, g, store)) continue;
          const changed = (alternatives[field] as unknown[]).some((value) => answer(grossOf({ ...g, [field]: value }, store)) !== base);
          expect(changed, `${field} changes nothing`).toBe(true);
        }
      }),
    );
  });
});

/** The fees take the whole wholesale value at every grade (a few-thousand-dollar unit, high fees): the grade cannot show. */
function auctionAlikeAtEveryGrade(input: GrossInput, store: StoreSettings) {
  const r = calculateGross(input, store, TARGETS);
  const proceeds = WHOLESALE_GRADES.map(
    (grade) => auctionEstimate(Math.min(r.market_value, input.sellingPrice), input.daysOnLot, store, gradeOf(grade)).proceeds,
  );
  return new Set(proceeds).size === 1;
}

type Briefings = Record<"gm" | "used_car_manager" | "new_car_manager" | "bdc_manager", Briefing>;

function briefingsOf(units: readonly AlertUnit[], store: StoreSettings): Briefings {
  const build = (role: Role) => buildBriefing({ role, store: { ...DEFAULT_STORE, ...store }, units, deals: [], openStips: [], pulse: PULSE }, NOW);
  return {
    gm: build("gm"),
    used_car_manager: build("used_car_manager"),
    new_car_manager: build("new_car_manager"),
    bdc_manager: build("bdc_manager"),
  };
}

const figureOf = (b: Briefing, id: string) => b.sections.flatMap((s) => s.figures).find((f) => f.id === id);
