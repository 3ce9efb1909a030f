/**
 * VINs (docs/appraisal.md#vin-decoding): the check digit of 49 CFR 565, the offline decode from the
 * dated vPIC copy in data/vpic/, GET /api/v1/vehicles/{vin} and a `vin` on trade-appraisal.
 * The VINs are built on vPIC's own patterns with their check digit computed (not real units).
 */
import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { checkDigitOf } from "../../src/engines/vehicle/vin";
import type { VehicleDecodeSchema } from "../../src/routes/appraisal/vehicle.routes";
import { type AppraisalBody, appraise } from "../helpers/appraisal";
import type { ErrorBody } from "../helpers/bodies";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { loadDemoVehicleData } from "../helpers/vehicle-data";

type Decode = z.infer<typeof VehicleDecodeSchema>;

const PRIUS_2016 = "JTDKARAU9GA123456";
const WRANGLER_2021 = "1C4AJXAA7MA123456";
const CARRERA_2018 = "WP0AA2A91JA123456";
/** vPIC's 2016–2017 Tacoma schema decodes CZ**N as the list "SR/SR5/TRD Off Road/TRD Sport/TRD Pro" (no Wrangler in the copy decodes to a list). */
const TACOMA_2017_LIST = "5TFCZ5CN6HX123456";

let key: string;
beforeAll(async () => {
  const org = await createOrg();
  await createStore(org.id, { isPrimary: true });
  ({ key } = await createApiKey(org.id));
});

const decode = (vin: string) => call(`/api/v1/vehicles/${vin}`, { key });

describe("without the data loaded", () => {
  it("answers 503 vehicle_data_unavailable, never a guess", async () => {
    const res = await decode(PRIUS_2016);
    expect(res.status).toBe(503);
    expect((await res.json<ErrorBody>()).error).toBe("vehicle_data_unavailable");
  });
});

describe("GET /api/v1/vehicles/{vin}", () => {
  beforeAll(async () => {
    await loadDemoVehicleData();
  });

  it("decodes a 2016 Prius offline: year, make, model, body and hybrid fuel, with what vPIC does not give listed", async () => {
    const res = await decode(PRIUS_2016.toLowerCase());
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Service-RateLimit-Remaining")).not.toBeNull();
    const body = await res.json<Decode>();
    expect(body).toMatchObject({
      vin: PRIUS_2016,
      model_year: 2016,
      make: "Toyota",
      model: "Prius",
      body_class: "hatchback",
      fuel_type: "hybrid",
      vehicle_type: "Passenger Car",
      data: { version: "2026-03-12" },
    });
    expect(body.missing).toContain("drive_type");
  });

  it("takes the make from the model on a WMI with several (1C4: Chrysler, Dodge, Jeep)", async () => {
    const body = await (await decode(WRANGLER_2021)).json<Decode>();
    expect(body).toMatchObject({ model_year: 2021, make: "Jeep", model: "Wrangler", trim: "Sport", body_class: "suv" });
  });

  it.each([
    ["a wrong check digit", "JTDKARAU8GA123456", "vin_check_digit", /character 9, "8".*call for "9"/],
    ["an O for a zero, named by position", "JTDKARAU9GA12345O", "vin_character", /Character 17 \("O"\).*0 was probably meant/],
    ["16 characters", "JTDKARAU9GA12345", "vin_length", /17 characters; this one has 16/],
  ])("refuses %s with a 422 that says what is wrong", async (_, vin, code, message) => {
    const res = await decode(vin);
    expect(res.status).toBe(422);
    const { details } = await res.json<ErrorBody>();
    expect(details?.[0]).toMatchObject({ path: "vin", code });
    expect(details?.[0].message).toMatch(message);
  });
});

describe("POST /api/v1/trade-appraisal with a vin", () => {
  beforeAll(async () => {
    await loadDemoVehicleData();
  });

  it("appraises from the VIN alone: a 2016 Prius is a hybrid", async () => {
    const res = await appraise(key, { vin: PRIUS_2016, mileage: 120_000, condition_notes: "clean" });
    expect(res.status).toBe(200);
    const body = await res.json<AppraisalBody>();
    expect(body.vehicle).toMatchObject({
      vin: PRIUS_2016,
      year: 2016,
      make: "Toyota",
      model: "Prius",
      fuel_type: "hybrid",
      retention_class: "hybrid",
    });
    expect(body.vehicle.decoded?.model).toBe("Prius");
    expect(body.warnings).toEqual([]);
  });

  it("the same VIN typed or decoded gives the same class and the same number", async () => {
    const typed = await (
      await appraise(key, { year: 2018, make: "Porsche", model: "911", mileage: 25_000, condition_notes: "garage kept" })
    ).json<AppraisalBody>();
    const decoded = await (await appraise(key, { vin: CARRERA_2018, mileage: 25_000, condition_notes: "garage kept" })).json<AppraisalBody>();
    expect(decoded.vehicle).toMatchObject({ price_class: typed.vehicle.price_class, retention_class: typed.vehicle.retention_class, curve: "model" });
    expect(decoded.max_acquisition).toBe(typed.max_acquisition);
  });

  it("answers a typed field that contradicts the decode with both, a warning, and the decode used", async () => {
    const res = await appraise(key, { vin: WRANGLER_2021, year: 2019, make: "Jeep", model: "Cherokee", mileage: 38_000, condition_notes: "clean" });
    const body = await res.json<AppraisalBody>();
    expect(body.vehicle).toMatchObject({ year: 2021, model: "Wrangler" });
    expect(body.warnings.map((w) => [w.field, w.typed, w.decoded])).toEqual([
      ["year", "2019", "2021"],
      ["model", "Cherokee", "Wrangler"],
    ]);
  });

  it('keeps a typed model that agrees and says more ("Wrangler Unlimited" for "Wrangler")', async () => {
    const body = await (
      await appraise(key, { vin: WRANGLER_2021, model: "Wrangler Unlimited", mileage: 38_000, condition_notes: "clean" })
    ).json<AppraisalBody>();
    expect(body.vehicle.model).toBe("Wrangler Unlimited");
    expect(body.warnings).toEqual([]);
  });

  it("a decoded trim list that names a trim above its class is low with the list named, unless a typed trim settles it (docs/domain/appraisal.md#a-decoded-trim-list)", async () => {
    expect((await (await decode(TACOMA_2017_LIST)).json<Decode>()).trim).toBe("SR/SR5/TRD Off Road/TRD Sport/TRD Pro");
    const listed = await (await appraise(key, { vin: TACOMA_2017_LIST, mileage: 90_000, condition_notes: "clean" })).json<AppraisalBody>();
    expect(listed).toMatchObject({ confidence: "low", manual_inspection_required: true, vehicle: { model: "Tacoma", trim: null } });
    expect(listed.manual_inspection_reasons.join(" ")).toContain(
      "the VIN does not tell which of SR, SR5, TRD Off Road, TRD Sport, TRD Pro; TRD Pro is priced above its class",
    );
    const typed = await (
      await appraise(key, { vin: TACOMA_2017_LIST, trim: "SR5", mileage: 90_000, condition_notes: "clean" })
    ).json<AppraisalBody>();
    expect(typed).toMatchObject({ confidence: "medium", vehicle: { trim: "SR5" } });
  });

  it('reads a slash before a lone letter as part of a trim\'s name: a Journey decoded "R/T" is the R/T, not a list of "R" and "T"', async () => {
    const body = await (await appraise(key, { vin: "1C4PDCKG8HT123456", mileage: 90_000, condition_notes: "clean" })).json<AppraisalBody>();
    expect(body.vehicle).toMatchObject({ model: "Journey", trim: "R/T" });
  });

  it("a VIN whose maker the data does not know confirms nothing: low confidence, a manual inspection, the code named", async () => {
    // A Land Rover (SAL) and a small manufacturer (1Z9 + characters 12–14): neither is in the demo vPIC copy.
    for (const [draft, wmi] of [
      ["SALGS2SE0KA123456", "SAL"],
      ["1Z9BA1B20KAABC456", "1Z9ABC"],
    ] as const) {
      const padded = draft.padEnd(17, "0");
      const vin = `${padded.slice(0, 8)}${checkDigitOf(padded)}${padded.slice(9)}`;
      const body = await (
        await appraise(key, { vin, year: 2019, make: "Toyota", model: "Camry", mileage: 40_000, condition_notes: "clean" })
      ).json<AppraisalBody>();
      expect(body).toMatchObject({ confidence: "low", manual_inspection_required: true });
      expect(body.manual_inspection_reasons.join(" ")).toContain(`maker code ${wmi} is not in the loaded vPIC data`);
    }
  });

  it("refuses a bad VIN on the appraisal with the same 422", async () => {
    const res = await appraise(key, { vin: "JTDKARAU8GA123456", mileage: 1_000, condition_notes: "clean" });
    expect(res.status).toBe(422);
    expect((await res.json<ErrorBody>()).details?.[0]).toMatchObject({ path: "vin", code: "vin_check_digit" });
  });
});
