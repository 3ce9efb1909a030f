/**
 * Trade appraisal invariants (docs/domain/invariants.md#trade-appraisal): properties over generated
 * trades, on the reference rows the migrations ship.
 */
import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import { loadAppraisalReference } from "../../../src/db/queries/appraisal";
import { type Appraisal, appraise } from "../../../src/engines/appraisal/appraise";
import type { AppraisalReference, AppraisalSubject, Comparable } from "../../../src/engines/appraisal/types";
import { vehicleClassFor } from "../../../src/engines/appraisal/valuation";
import { appraisalStore } from "../../helpers/deal-desk-reference";
import { ORG_WITHOUT_OWN_ROWS, referenceDb } from "../../helpers/reference-d1";
import { holds } from "./check";

const NOW = new Date("2026-11-26T12:00:00Z");
const STORE = appraisalStore("Summit Auto North", "80234");

let reference: AppraisalReference;
beforeAll(async () => {
  reference = await loadAppraisalReference(referenceDb(), ORG_WITHOUT_OWN_ROWS);
});

/** What desks write: damage, brands, and the words that say nothing is wrong. */
const DAMAGE = [
  "hail damage on hood, roof and trunk, dozens of dents",
  "hybrid battery weak, needs battery",
  "battery dead",
  "brakes and rotors front and rear",
  "check engine light on",
  "smoke odour",
  "cracked dash",
  "transmission slips",
  "engine knock",
  "frame damage",
  "flood car",
  "salvage title",
  "TMU",
  "not actual mileage",
  "possible rollback, Carfax shows 128k in 2019",
  "airbag light on",
  "won't start",
  "door ding and a scratch on the bumper",
  "bald tires",
  "oil leak",
  "AC blows warm",
  "curb rash on two wheels",
  "3 small dings",
  "windshield chip",
];
const CLEAN = ["clean", "no dents", "non-smoker", "new tires", "runs and drives", "garage kept", "one owner"];
const BRANDS = [
  "salvage title",
  "rebuilt title",
  "TMU title",
  "true mileage unknown",
  "not actual mileage",
  "mileage exempt",
  "odometer rollback suspected",
];

const notes = fc.array(fc.constantFrom(...DAMAGE, ...CLEAN), { maxLength: 4 }).map((parts) => parts.join(". "));

/** A vehicle the model table knows, one only its make knows, or one nobody knows. */
function vehicles(ref: () => AppraisalReference) {
  const known = fc.integer({ min: 0, max: 10_000 }).map((i) => {
    const rows = ref().modelClasses.filter((row) => row.model !== "*");
    const row = rows[i % rows.length];
    return { make: row.make, model: row.model };
  });
  const unknown = fc.constantFrom({ make: "Zastava", model: "Yugo 45" }, { make: "Porsche", model: "Boxster" }, { make: "Saab", model: "9-3" });
  return fc.oneof(known, unknown);
}

const subjects = (ref: () => AppraisalReference) =>
  fc.record({
    vehicle: vehicles(ref),
    year: fc.integer({ min: 1990, max: 2027 }),
    mileage: fc.integer({ min: 0, max: 400_000 }),
    conditionNotes: notes,
  });

const comparables = fc.array(
  fc.record({
    source: fc.constantFrom("in_stock" as const, "sold" as const),
    yearOffset: fc.integer({ min: -1, max: 1 }),
    mileage: fc.option(fc.integer({ min: 0, max: 250_000 }), { nil: null }),
    price: fc.integer({ min: 2_000, max: 90_000 }),
  }),
  { maxLength: 5 },
);

function trade(
  s: { vehicle: { make: string; model: string }; year: number; mileage: number; conditionNotes: string },
  comps: readonly Comparable[] = [],
): Appraisal {
  return appraiseSubject({ ...s.vehicle, year: s.year, mileage: s.mileage, conditionNotes: s.conditionNotes }, comps);
}

/** A subject appraised at the test store, as of NOW, with no photos. */
const appraiseSubject = (subject: AppraisalSubject, comps: readonly Comparable[] = []): Appraisal =>
  appraise({ subject, marketZip: "80234", store: STORE, reference, comps, photos: { status: "none" }, now: NOW });

const compsFor = (year: number, drawn: { source: "in_stock" | "sold"; yearOffset: number; mileage: number | null; price: number }[]): Comparable[] =>
  drawn.map((c) => ({ source: c.source, year: year + c.yearOffset, trim: null, mileage: c.mileage, price: c.price, observedOn: "2026-11-01" }));

/** Every trim a model row lists as far above its class, with its make and model. */
const trimsAboveClass = () =>
  reference.modelClasses.flatMap((row) =>
    row.aboveClassTrims
      .split(",")
      .map((trim) => trim.trim())
      .filter(Boolean)
      .map((trim) => ({ make: row.make, model: row.model, trim })),
  );

describe("trade appraisal invariants (docs/domain/invariants.md#trade-appraisal)", () => {
  it("adding a damage word never raises an offer", () => {
    holds(
      fc.property(
        subjects(() => reference),
        fc.constantFrom(...DAMAGE),
        comparables,
        (s, damage, drawn) => {
          const comps = compsFor(s.year, drawn);
          const before = trade(s, comps);
          const after = trade({ ...s, conditionNotes: `${s.conditionNotes}. ${damage}` }, comps);
          return after.maxAcquisition <= before.maxAcquisition && after.negotiationFloor <= before.negotiationFloor;
        },
      ),
    );
  });

  it("a title or odometer brand never earns a mileage bonus", () => {
    holds(
      fc.property(
        subjects(() => reference),
        fc.constantFrom(...BRANDS),
        comparables,
        (s, brand, drawn) => {
          const comps = compsFor(s.year, drawn);
          const branded = trade({ ...s, conditionNotes: `${s.conditionNotes}. ${brand}` }, comps);
          const { valuation } = branded;
          const noBonus = valuation.method === "depreciation_model" ? valuation.mileageAdjustment <= 0 : true;
          return !valuation.mileageBonus && noBonus && branded.marketValue <= trade(s, comps).marketValue;
        },
      ),
    );
  });

  it("max acquisition never exceeds the wholesale value of a unit that will not be retailed", () => {
    holds(
      fc.property(
        subjects(() => reference),
        comparables,
        (s, drawn) => {
          const result = trade(s, compsFor(s.year, drawn));
          return result.appraisedTo === "retail" || result.maxAcquisition <= result.wholesaleValue;
        },
      ),
    );
  });

  it("a running vehicle always has a wholesale figure above $0", () => {
    holds(
      fc.property(
        subjects(() => reference),
        comparables,
        (s, drawn) => trade(s, compsFor(s.year, drawn)).wholesaleValue > 0,
      ),
    );
  });

  it("an unknown model is never above low confidence", () => {
    holds(
      fc.property(
        fc.constantFrom("Zastava", "Lada", "Porsche", "Toyota"),
        fc.constantFrom("Yugo 45", "Niva", "Boxster", "Crown Victoria Police"),
        fc.integer({ min: 1990, max: 2027 }),
        fc.integer({ min: 0, max: 400_000 }),
        notes,
        (make, model, year, mileage, conditionNotes) => {
          const result = trade({ vehicle: { make, model }, year, mileage, conditionNotes });
          return result.confidence === "low" && result.manualInspectionRequired;
        },
      ),
    );
  });

  it("a VIN the data cannot confirm, or a decoded model off the table, is never above low confidence", () => {
    holds(
      fc.property(
        subjects(() => reference),
        fc.constantFrom("sedan", "coupe", "suv", "pickup", "hatchback", "minivan", "van", "wagon", "convertible"),
        fc.constantFrom("gas", "diesel", "hybrid", "plug-in", "electric", "flex"),
        fc.constantFrom("1Z9ABC", "SAL", "ZFF", "VF1"),
        (s, bodyClass, fuelType, wmi) => {
          // A known model whose VIN's maker the vPIC data lacks, and a decoded vehicle the model table lacks.
          const unconfirmed = appraiseSubject({ ...s.vehicle, year: s.year, mileage: s.mileage, conditionNotes: s.conditionNotes, unknownWmi: wmi });
          const offTable = trade({ ...s, vehicle: { make: "Zastava", model: `Yugo ${bodyClass}` } });
          const decodedOffTable = appraiseSubject({
            make: "Zastava",
            model: "Yugo 45",
            year: s.year,
            mileage: s.mileage,
            conditionNotes: s.conditionNotes,
            bodyClass,
            fuelType,
          });
          return [unconfirmed, offTable, decodedOffTable].every((r) => r.confidence === "low" && r.manualInspectionRequired);
        },
      ),
    );
  });

  it("a unit of ten years or more priced on the curve is never above low confidence unless its own model's published series reaches its age", () => {
    holds(
      fc.property(
        subjects(() => reference),
        (s) => {
          const result = trade({ ...s, year: Math.min(s.year, NOW.getUTCFullYear() - reference.settings.retailCheckAgeYears) });
          if (result.valuation.method !== "depreciation_model") return true;
          const { shape } = result.valuation.vehicle;
          const ownSeriesReaches = shape?.of === "model" ? shape.later[shape.later.length - 1].ageYears : 0;
          // Ages compared on the published figures' clock (docs/domain/appraisal.md#study-age): a 2016 F-150 at 10.5 is the page's ten.
          return result.valuation.studyAgeYears <= ownSeriesReaches || result.confidence === "low";
        },
      ),
    );
  });

  it("a trim named above its class with no published new price is never above low confidence", () => {
    // Every trim a model row lists as far above its class, typed as desks type it, with or without comparables of other trims.
    const listed = trimsAboveClass();
    holds(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom(
          (t: string) => t,
          (t: string) => t.toUpperCase(),
          (t: string) => t.replace(/\b[a-z]/g, (c) => c.toUpperCase()),
        ),
        fc.constantFrom("", " 4x4", " Crew Cab", " Widebody", " Premium"),
        subjects(() => reference),
        comparables,
        (i, typed, extra, s, drawn) => {
          const { make, model, trim } = listed[i % listed.length];
          const subject: AppraisalSubject = {
            make,
            model,
            trim: `${typed(trim)}${extra}`,
            year: s.year,
            mileage: s.mileage,
            conditionNotes: s.conditionNotes,
          };
          const result = appraiseSubject(subject, compsFor(s.year, drawn));
          return result.confidence === "low" && result.manualInspectionRequired;
        },
      ),
    );
  });

  it("a decoded trim list naming a trim above its class, with no trim typed, is never above low confidence", () => {
    // Every listed trim, in a list of base trims in any order, with or without comparables of the model.
    const listed = trimsAboveClass();
    holds(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.shuffledSubarray(["Base", "Sport", "SE", "SR5", "Limited", "Premium"], { minLength: 1 }),
        fc.nat(),
        subjects(() => reference),
        comparables,
        (i, others, at, s, drawn) => {
          const { make, model, trim } = listed[i % listed.length];
          const decodedTrims = [...others];
          decodedTrims.splice(at % (others.length + 1), 0, trim.toUpperCase());
          const subject: AppraisalSubject = { make, model, decodedTrims, year: s.year, mileage: s.mileage, conditionNotes: s.conditionNotes };
          const result = appraiseSubject(subject, compsFor(s.year, drawn));
          return result.confidence === "low" && result.manualInspectionRequired;
        },
      ),
    );
  });

  it("a class no published study measures, priced on the curve, is never above low confidence", () => {
    const borrowed = new Set(reference.priceClasses.filter((p) => !p.retentionMeasured).map((p) => p.classKey));
    const rows = reference.modelClasses.filter((row) => row.model !== "*" && (borrowed.has(row.classKey) || borrowed.has(`${row.classKey}_diesel`)));
    holds(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom(undefined, "Diesel", "Lariat Power Stroke", "Denali Duramax", "Laramie Cummins", "XLT"),
        subjects(() => reference),
        (i, trim, s) => {
          const row = rows[i % rows.length];
          const subject: AppraisalSubject = {
            make: row.make,
            model: row.model,
            trim,
            year: s.year,
            mileage: s.mileage,
            conditionNotes: s.conditionNotes,
          };
          const result = appraiseSubject(subject);
          const { vehicle } = result.valuation;
          const ownFigure = vehicle.modelRetention !== null && vehicle.modelRetention.model !== "*";
          return !borrowed.has(vehicle.classKey) || ownFigure || result.confidence === "low";
        },
      ),
    );
  });

  it("a model of a measured class with no published figure of its own or its make's, priced on the curve, is never above low confidence", () => {
    const rows = reference.modelClasses.filter((row) => row.model !== "*");
    holds(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        subjects(() => reference),
        (i, s) => {
          const row = rows[i % rows.length];
          const result = appraiseSubject({ make: row.make, model: row.model, year: s.year, mileage: s.mileage, conditionNotes: s.conditionNotes });
          const { vehicle } = result.valuation;
          const onClassCurve = vehicle.classMatch === "model" && vehicle.modelRetention === null && vehicle.retentionMeasured;
          return !onClassCurve || result.confidence === "low";
        },
      ),
    );
  });

  it("an older unit of the same model, miles and condition is never worth more", () => {
    holds(
      fc.property(
        subjects(() => reference),
        fc.integer({ min: 1, max: 15 }),
        comparables,
        (s, yearsOlder, drawn) => {
          const comps = compsFor(s.year, drawn);
          const newer = trade(s, comps);
          // Model years the request accepts: 1981 on.
          const older = trade({ ...s, year: Math.max(1981, s.year - yearsOlder) }, comps);
          return older.marketValue <= newer.marketValue && older.maxAcquisition <= newer.maxAcquisition;
        },
      ),
    );
  });

  it("an electric vehicle is never priced on a figure published for a gas model", () => {
    const electricModels = new Set(
      reference.modelClasses.filter((row) => row.fuelType === "electric").map((row) => `${row.make}|${row.model}`.toLowerCase()),
    );
    holds(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom(undefined, "Lightning", "Lightning Lariat", "Electric", "EV", "e-tron", "Performance", "XLT"),
        fc.constantFrom(undefined, "electric"),
        (i, trim, fuelType) => {
          const rows = reference.modelClasses.filter((row) => row.model !== "*");
          const row = rows[i % rows.length];
          const vehicle = vehicleClassFor(reference, { year: 2022, make: row.make, model: row.model, trim, fuelType, mileage: 30_000 });
          const figure = vehicle.modelRetention;
          return vehicle.retention.retentionClass !== "ev" || figure === null || electricModels.has(`${figure.make}|${figure.model}`.toLowerCase());
        },
      ),
    );
  });

  it("the same vehicle typed or decoded from its VIN gets the same class", () => {
    holds(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom("gas", "flex", "diesel"), (i, engine) => {
        const rows = reference.modelClasses.filter((row) => row.model !== "*");
        const row = rows[i % rows.length];
        // The decode's fuel: the table's where it says one, else an engine; a diesel typed says so in its trim.
        const fuelType = row.fuelType || engine;
        const trim = fuelType === "diesel" ? "Diesel" : undefined;
        const base = { year: 2020, make: row.make, model: row.model, mileage: 50_000, trim };
        const typed = vehicleClassFor(reference, base);
        const decoded = vehicleClassFor(reference, { ...base, fuelType, bodyClass: row.bodyClass || "sedan" });
        return (
          typed.classKey === decoded.classKey &&
          typed.retention.retentionClass === decoded.retention.retentionClass &&
          typed.retention.lossScale === decoded.retention.lossScale
        );
      }),
    );
  });
});
