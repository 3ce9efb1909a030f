import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { appraisalReconItems, appraisalRegionalIndex } from "../../src/db/schema";
import { type AppraisalBody, appraise, createCompSale, createCompUnit, daysAgo, THIS_YEAR } from "../helpers/appraisal";
import type { ErrorBody } from "../helpers/bodies";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";

/** A dealer with a primary store and a key. */
async function dealer() {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  const { key } = await createApiKey(org.id);
  return { org, store, key };
}

describe("POST /api/v1/trade-appraisal — depreciation model", () => {
  it("prices a unit with no comparables from the new-price class, retention curve and mileage (hand-computed)", async () => {
    const { key } = await dealer();
    const res = await appraise(key, {
      year: THIS_YEAR - 5,
      make: "Toyota",
      model: "Camry",
      trim: "SE",
      mileage: 60_000,
      market_zip: "78701",
      condition_notes: "Small crack in windshield. Two door dings on the passenger side.",
    });
    expect(res.status).toBe(200);
    const body = await res.json<AppraisalBody>();
    // midsize_car $29,000 × 69.31% = $20,099.90 base: 5.5 years old is the studies' five (a model year sold five
    // calendar years on, docs/domain/appraisal.md#study-age), where a Toyota keeps its make's 100 − 55 × 0.558 = 69.31%
    // (CarEdge's Toyota table, #model-retention); expected miles 13,500 × 5 + 10,000 × 0.5 = 72,500 (#expected-miles);
    // rate max(0.03, 0.25 × 20,099.90 / 25,000) × 0.6 (age 5) = 0.120599 $/mi; 12,500 miles under → +$1,507.49 → $21,607.
    expect(body.market_value_estimate).toBe(21_607);
    expect(body.recon_estimate).toEqual({ windshield_replacement: 400, door_ding_repair: 225, detail: 200, total: 825 });
    // 21,607 − 825 recon − 500 pack − 1,729 target front gross (8%, over the 1,200 minimum) − 30 × $35 holding = 17,503.
    expect(body.max_acquisition).toBe(17_503);
    // 7% of 17,503 = 1,225.21 below → 16,278.
    expect(body.negotiation_floor).toBe(16_278);
    expect(body.confidence).toBe("medium");
    expect(body.valuation_method).toBe("depreciation_model");
    expect(body.comparables_used).toBe(0);
    expect(body.market_note).toContain("depreciation model (0 comparable units");
    expect(body.market_note).toContain("new-price class midsize_car $29,000");
    expect(body.market_note).toContain("No photos were sent.");
  });

  it("discounts high mileage beyond 150,000 miles; a unit that cannot earn its gross is bought at its wholesale figure, never a bare $0", async () => {
    const { key } = await dealer();
    const worn = await (
      await appraise(key, { year: THIS_YEAR - 10, make: "Honda", model: "Civic", mileage: 240_000, condition_notes: "runs" })
    ).json<AppraisalBody>();
    // compact_car $24,000 × 45.2844%: the Civic's own 100 − 55 × 0.509 = 72.005% at five years (iSeeCars 2025), × what
    // all vehicles keep at 10 of what they kept at 5 (40.25 / 64), 10.5 years old being the studies' ten
    // (docs/domain/appraisal.md#study-age) = $10,868.25 base; 123,000 miles over the expected 117,000 at 0.35 × 0.108683
    // $/mi = −$4,679, capped at −30% (−$3,260.48); −10% ($1,086.83) beyond 150,000 miles → $6,521.
    expect(worn.market_value_estimate).toBe(6_521);
    expect(worn.market_note).toContain("− $1,087 beyond 150,000 miles");
    const junk = await (
      await appraise(key, { year: 1985, make: "Yugo", model: "GV", mileage: 900_000, condition_notes: "Check engine light on, bald tires" })
    ).json<AppraisalBody>();
    // Generic class $35,000 × 11.536% (54.405% at five years × 40.25 / 64 at ten, × 10 / 29.66 to the curve's end) =
    // $4,037.60; −30% (capped) and −10% for the miles → $2,423.
    expect(junk.market_value_estimate).toBe(2_423);
    // 85% of $2,060 − $950 recon named − $1,000 fees and margin is negative: the $500 a running unit brings (issue 33).
    expect(junk).toMatchObject({ max_acquisition: 500, wholesale_value: 500, appraised_to: "wholesale", negotiation_floor: 0 });
    expect(junk.market_note).toContain("the generic new-price class");
    expect(junk.market_note).toContain("wholesale it");
    // A make the model table does not know is a guess: low, and someone must see the car.
    expect(junk).toMatchObject({ confidence: "low", manual_inspection_required: true });
  });
});

describe("POST /api/v1/trade-appraisal — trims above their class and borrowed retention", () => {
  it("answers a Tacoma TRD Pro and an F-350 Power Stroke at low confidence with a manual inspection and the reason (docs/domain/appraisal.md#trims-above-their-class, #borrowed-retention)", async () => {
    const { key } = await dealer();
    const cases = [
      [
        { year: 2020, make: "Toyota", model: "Tacoma", trim: "TRD Pro", mileage: 50_000 },
        "trim priced above its class; no published new price for it",
      ],
      [{ year: 2017, make: "Ford", model: "F-350", trim: "Lariat Power Stroke", mileage: 220_000 }, "borrowed retention"],
    ] as const;
    for (const [trade, reason] of cases) {
      const res = await appraise(key, { ...trade, market_zip: "80234", condition_notes: "Clean, one owner." });
      expect(res.status).toBe(200);
      const body = await res.json<AppraisalBody>();
      expect(body).toMatchObject({ confidence: "low", manual_inspection_required: true });
      expect(body.manual_inspection_reasons.join(" ")).toContain(reason);
      expect(body.market_note).toContain(reason);
    }
  });
});

describe("POST /api/v1/trade-appraisal — comparables", () => {
  it("takes the median of the organization's comparable units, each adjusted to the subject's year and mileage (hand-computed)", async () => {
    const { org, store, key } = await dealer();
    const accord = { make: "Honda", model: "Accord" };
    await createCompUnit(org.id, store.id, { ...accord, year: THIS_YEAR - 3, mileage: 40_000, price: 24_000 });
    await createCompUnit(org.id, store.id, { ...accord, year: THIS_YEAR - 3, mileage: 50_000, price: 23_000 });
    await createCompUnit(org.id, store.id, { ...accord, year: THIS_YEAR - 2, mileage: 40_000, price: 26_600 });
    await createCompSale(org.id, store.id, { ...accord, year: THIS_YEAR - 3, price: 22_000, soldOn: daysAgo(10) });
    // Not comparable: two model years off, another model, a new unit, an unwound deal, a sale older than 180 days, sold inventory.
    await createCompUnit(org.id, store.id, { ...accord, year: THIS_YEAR - 5, mileage: 40_000, price: 9_000 });
    await createCompUnit(org.id, store.id, { make: "Honda", model: "Civic", year: THIS_YEAR - 3, mileage: 40_000, price: 9_000 });
    await createCompUnit(org.id, store.id, { ...accord, year: THIS_YEAR - 3, mileage: 10, price: 90_000, condition: "new" });
    await createCompUnit(org.id, store.id, { ...accord, year: THIS_YEAR - 3, mileage: 40_000, price: 90_000, status: "sold" });
    await createCompSale(org.id, store.id, { ...accord, year: THIS_YEAR - 3, price: 90_000, soldOn: daysAgo(5), status: "unwound" });
    await createCompSale(org.id, store.id, { ...accord, year: THIS_YEAR - 3, price: 90_000, soldOn: daysAgo(200) });
    // Another organization's Accords at any price never count.
    const other = await dealer();
    for (let i = 0; i < 5; i++)
      await createCompUnit(other.org.id, other.store.id, { ...accord, year: THIS_YEAR - 3, mileage: 40_000, price: 60_000 });

    const res = await appraise(key, {
      year: THIS_YEAR - 3,
      make: "honda",
      model: "ACCORD",
      mileage: 40_000,
      condition_notes: "Clean, no dings or scratches, new tires. Non-smoker.",
    });
    expect(res.status).toBe(200);
    const body = await res.json<AppraisalBody>();
    // 24,000 as is; 23,000 + 10,000 mi × 0.23 = 25,300; 26,600 × 66.312% / 74.301% = 23,740.07 (a year newer: the
    // class curve at 3.5 and 2.5 years, read on the studies' clock at 3.18 and 2.27, docs/domain/appraisal.md#study-age);
    // the sale at 22,000 with no odometer on file is taken at 47,250 expected miles: + 7,250 × 0.22 = 23,595.
    // Median of 23,595 / 23,740.07 / 24,000 / 25,300 = 23,870.04.
    expect(body.market_value_estimate).toBe(23_870);
    expect(body.valuation_method).toBe("comparables");
    expect(body.comparables_used).toBe(4);
    expect(body.recon_estimate).toEqual({ detail: 200, total: 200 });
    // 23,870 − 200 − 500 − 1,910 (8%) − 1,050 = 20,210; floor 7% below: 18,795.30.
    expect(body.max_acquisition).toBe(20_210);
    expect(body.negotiation_floor).toBe(18_795);
    expect(body.market_note).toContain("from 4 comparable units of this organization");
    expect(body.market_note).toContain("3 in stock at today's asking price, 1 sold in the last 180 days, the latest 10 days ago");
  });

  it("prices from the subject's own trim when enough comparables share it, else from every trim", async () => {
    const { org, store, key } = await dealer();
    const highlander = { make: "Toyota", model: "Highlander", year: THIS_YEAR - 3, mileage: 36_000 };
    for (let i = 0; i < 3; i++) await createCompUnit(org.id, store.id, { ...highlander, trim: "XLE", price: 30_000 });
    for (let i = 0; i < 3; i++) await createCompUnit(org.id, store.id, { ...highlander, trim: "LE", price: 24_000 });
    const appraised = async (trim?: string) => (await appraise(key, { ...highlander, trim, condition_notes: "clean" })).json<AppraisalBody>();

    const xle = await appraised("xle");
    expect(xle).toMatchObject({ valuation_method: "comparables", comparables_used: 3, market_value_estimate: 30_000 });
    expect(xle.market_note).toContain(`${THIS_YEAR - 3}–${THIS_YEAR - 3} Toyota Highlander xle:`);
    // Same year and mileage as the subject, so each comparable counts at its price: the median of 24k ×3 and 30k ×3.
    expect(await appraised()).toMatchObject({ comparables_used: 6, market_value_estimate: 27_000 });
    const limited = await appraised("Limited");
    expect(limited).toMatchObject({ comparables_used: 6, market_value_estimate: 27_000 });
    expect(limited.market_note).toContain("Toyota Highlander (fewer than 3 of them Limited, so every trim):");
  });

  it("uses the sold unit's odometer when the inventory still has it", async () => {
    const { org, store, key } = await dealer();
    const rav4 = { make: "Toyota", model: "RAV4", year: THIS_YEAR - 2 };
    for (const soldOn of [daysAgo(3), daysAgo(30), daysAgo(60)]) {
      const { vin } = await createCompUnit(org.id, store.id, { ...rav4, mileage: 20_000, price: 30_000, status: "sold" });
      await createCompSale(org.id, store.id, { ...rav4, price: 30_000, soldOn, vin });
    }
    const body = await (await appraise(key, { ...rav4, mileage: 20_000, condition_notes: "clean" })).json<AppraisalBody>();
    expect(body.market_value_estimate).toBe(30_000);
    expect(body.market_note).toContain("0 in stock at today's asking price, 3 sold in the last 180 days, the latest 3 days ago");
  });

  it("falls back to the model when the organization has fewer than three comparables, whatever other organizations have", async () => {
    const { org, store, key } = await dealer();
    const other = await dealer();
    const tacoma = { make: "Toyota", model: "Tacoma", year: THIS_YEAR - 4, mileage: 54_000 };
    await createCompUnit(org.id, store.id, { ...tacoma, price: 31_000 });
    await createCompUnit(org.id, store.id, { ...tacoma, price: 32_000 });
    for (let i = 0; i < 6; i++) await createCompUnit(other.org.id, other.store.id, { ...tacoma, price: 31_500 });
    const mine = await (await appraise(key, { ...tacoma, condition_notes: "clean" })).json<AppraisalBody>();
    expect(mine.valuation_method).toBe("depreciation_model");
    expect(mine.market_note).toContain("2 comparable units in this organization's stock and sales of the last 180 days, 3 needed");
    const theirs = await (await appraise(other.key, { ...tacoma, condition_notes: "clean" })).json<AppraisalBody>();
    expect(theirs).toMatchObject({ valuation_method: "comparables", comparables_used: 6, market_value_estimate: 31_500 });
  });
});

describe("POST /api/v1/trade-appraisal — per-isolate copy", () => {
  it("answers a repeat appraisal within a minute without reading the comparables or tables from D1 again", async () => {
    const { org, store, key } = await dealer();
    for (let i = 0; i < 3; i++)
      await createCompUnit(org.id, store.id, { make: "Kia", model: "Telluride", year: THIS_YEAR - 2, mileage: 30_000, price: 36_000 });
    const trade = { year: THIS_YEAR - 2, make: "Kia", model: "Telluride", mileage: 30_000, condition_notes: "clean" };
    // The organization's comparables are in its object: the first appraisal calls it, the repeat does not.
    const objectCalls = vi.spyOn(env.ORG_STORE, "get");
    const first = await (await appraise(key, trade)).json<AppraisalBody>();
    expect(objectCalls).toHaveBeenCalled();
    objectCalls.mockClear();
    const session = env.DB.withSession("first-unconstrained");
    const prepare = vi.spyOn(session, "prepare");
    vi.spyOn(env.DB, "withSession").mockReturnValue(session);
    try {
      const again = await appraise(key, trade);
      expect(await again.json<AppraisalBody>()).toEqual(first);
      const reads = prepare.mock.calls.map(([query]) => query).filter((query) => /inventory_units|"deals"|appraisal_|"stores"/.test(query));
      expect(reads).toEqual([]);
      expect(objectCalls).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("prices by an organization's own make/model row once the minute's copy lapses (the engine's index of the table follows the copy)", async () => {
    const { org, key } = await dealer();
    const trade = { year: THIS_YEAR - 3, make: "Kia", model: "Telluride", mileage: 36_000, condition_notes: "clean" };
    const classOf = async () => {
      const body = await (await appraise(key, trade)).json<AppraisalBody>();
      return body.market_note.match(/new-price class (\w+)/)?.[1];
    };
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const t0 = Date.now();
      expect(await classOf()).toBe("midsize_suv");
      await env.DB.prepare("INSERT INTO appraisal_model_classes (org_id, make, model, class_key) VALUES (?, 'KIA', 'telluride', 'luxury_suv')")
        .bind(org.id)
        .run();
      vi.setSystemTime(t0 + 59_999);
      expect(await classOf()).toBe("midsize_suv");
      vi.setSystemTime(t0 + 60_000);
      expect(await classOf()).toBe("luxury_suv");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("POST /api/v1/trade-appraisal — the store's economics", () => {
  it("prices against the primary store's pack, holding cost and target front gross", async () => {
    const { org, key } = await dealer();
    await rowsInObject(
      org.id,
      "UPDATE stores SET pack_used = 800, holding_cost_per_day = 40, target_front_gross_used_pct = 10, target_front_gross_used_min = 2000 WHERE org_id = ?",
      org.id,
    );
    const body = await (
      await appraise(key, { year: THIS_YEAR - 5, make: "Toyota", model: "Camry", mileage: 60_000, condition_notes: "clean" })
    ).json<AppraisalBody>();
    // 21,607 − 200 detail − 800 pack − 2,161 (10%, over the 2,000 minimum) − 30 × 40 = 17,246 at retail; the wholesale
    // figure, 85% of 21,607 − $1,000 fees and margin = 17,366, beats it, so the unit is bought to wholesale.
    expect(body.market_note).toContain(`The retail figure would be $17,246 = market $21,607 − recon $200 − pack $800`);
    expect(body).toMatchObject({ max_acquisition: 17_366, wholesale_value: 17_366, appraised_to: "wholesale" });
  });

  it("answers 404 for an organization without a store", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const res = await appraise(key, { year: 2020, make: "Toyota", model: "Camry", mileage: 50_000, condition_notes: "clean" });
    expect(res.status).toBe(404);
    expect((await res.json<ErrorBody>()).error).toBe("not_found");
  });
});

describe("POST /api/v1/trade-appraisal — validation", () => {
  const valid = { year: 2020, make: "Toyota", model: "Camry", mileage: 50_000, condition_notes: "clean" };

  async function problems(key: string, body: unknown) {
    const res = await appraise(key, body);
    expect(res.status).toBe(422);
    const error = await res.json<ErrorBody>();
    expect(error.error).toBe("validation_error");
    return error.details ?? [];
  }

  it.each([
    // Without a vin, year, make and model are all needed.
    ["year missing", { ...valid, year: undefined }, "vin"],
    ["make missing", { ...valid, make: undefined }, "vin"],
    ["model missing", { ...valid, model: undefined }, "vin"],
    ["mileage missing", { ...valid, mileage: undefined }, "mileage"],
    ["empty make", { ...valid, make: "  " }, "make"],
    ["year before 1981", { ...valid, year: 1980 }, "year"],
    ["year past next model year", { ...valid, year: THIS_YEAR + 2 }, "year"],
    ["fractional year", { ...valid, year: 2020.5 }, "year"],
    ["negative mileage", { ...valid, mileage: -1 }, "mileage"],
    ["mileage over 1,000,000", { ...valid, mileage: 1_000_001 }, "mileage"],
    ["mileage as text", { ...valid, mileage: "50000" }, "mileage"],
    ["four-digit ZIP", { ...valid, market_zip: "8023" }, "market_zip"],
    ["ZIP+4", { ...valid, market_zip: "80234-1234" }, "market_zip"],
    ["letters in ZIP", { ...valid, market_zip: "8O234" }, "market_zip"],
    ["neither notes nor photos", { ...valid, condition_notes: undefined }, "condition_notes"],
    ["empty notes and no photos", { ...valid, condition_notes: "   ", photos: [] }, "condition_notes"],
    ["over 4,000 characters of notes", { ...valid, condition_notes: "x".repeat(4001) }, "condition_notes"],
  ])("422 for %s", async (_, body, path) => {
    const { key } = await dealer();
    expect((await problems(key, body)).map((d) => d.path)).toContain(path);
  });

  it("treats null optional fields as absent", async () => {
    const { key } = await dealer();
    const res = await appraise(key, { ...valid, trim: null, market_zip: null, photos: null });
    expect(res.status).toBe(200);
    expect((await problems(key, { ...valid, condition_notes: null, photos: null })).map((d) => d.path)).toEqual(["condition_notes"]);
  });

  it("accepts next year's model year and 0 or 1,000,000 miles", async () => {
    const { key } = await dealer();
    for (const body of [
      { ...valid, year: THIS_YEAR + 1, mileage: 0 },
      { ...valid, year: 1981, mileage: 1_000_000 },
    ]) {
      expect((await appraise(key, body)).status).toBe(200);
    }
  });

  it("413 for a body over 8 MiB, before validation", async () => {
    const { key } = await dealer();
    const res = await appraise(key, { ...valid, photos: ["x".repeat(8 * 1024 * 1024 + 1)] });
    expect(res.status).toBe(413);
    expect((await res.json<ErrorBody>()).error).toBe("payload_too_large");
  });

  it("refuses a key of another scope (403) and no key (401)", async () => {
    const org = await createOrg();
    await createStore(org.id, { isPrimary: true });
    const { key } = await createApiKey(org.id, { scopes: ["lender-route"] });
    expect((await appraise(key, valid)).status).toBe(403);
    const anonymous = await call("/api/v1/trade-appraisal", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(valid),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe("POST /api/v1/trade-appraisal — tuning without a deploy", () => {
  it("an organization's own rows replace the defaults for it alone", async () => {
    const tuned = await dealer();
    const standard = await dealer();
    const db = getDb(env.DB);
    await db.batch([
      db
        .insert(appraisalReconItems)
        .values({ orgId: tuned.org.id, itemKey: "detail", label: "Full detail", cost: 350, additionalCost: null, maxCount: 1, always: true }),
      db.insert(appraisalRegionalIndex).values({ orgId: tuned.org.id, zipPrefix: "787", marketIndex: 1.1, label: "Austin" }),
    ]);
    const camry = { year: THIS_YEAR - 5, make: "Toyota", model: "Camry", mileage: 72_500, market_zip: "78701", condition_notes: "clean" };
    const mine = await (await appraise(tuned.key, camry)).json<AppraisalBody>();
    const theirs = await (await appraise(standard.key, camry)).json<AppraisalBody>();
    // At the expected mileage there is no adjustment: $29,000 × 69.31% = $20,100, × 1.10 in Austin.
    expect(theirs.market_value_estimate).toBe(20_100);
    expect(mine.market_value_estimate).toBe(Math.round(29_000 * 0.6931 * 1.1));
    expect(mine.recon_estimate).toEqual({ detail: 350, total: 350 });
    expect(theirs.recon_estimate).toEqual({ detail: 200, total: 200 });
    expect(mine.market_note).toContain("regional index 1.10 (Austin, ZIP 78701)");
  });
});
