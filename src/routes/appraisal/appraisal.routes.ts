import { z } from "@hono/zod-openapi";
import { MAX_PHOTOS } from "../../engines/appraisal/photos";
import { dataAsOfFields, freshFeedExample } from "../../http/data-as-of";
import { documentedError } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";
import { VehicleDecodeSchema, VinSchema } from "./vehicle.routes";

const APPRAISAL_BODY_LIMIT_BYTES = 8 * 1024 * 1024;
export const EARLIEST_MODEL_YEAR = 1981;

const EXAMPLE_PHOTO = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U";

export const TradeAppraisalRequestSchema = z
  .strictObject({
    vin: VinSchema.nullish().openapi({
      description:
        "Decoded offline from NHTSA's vPIC data (as `GET /api/v1/vehicles/{vin}`): year, make, model, body and fuel. Alone, or with `year`/`make`/`model`: a typed field that contradicts the decode is answered with both in `warnings`, and the decode is used.",
      example: "4T1A1AAK9KA123456",
    }),
    year: z
      .int()
      .min(EARLIEST_MODEL_YEAR)
      .nullish()
      .openapi({ description: "Model year, 1981 (the 17-character VIN era) to next year's model year. Required without a `vin`.", example: 2021 }),
    make: z.string().trim().min(1).max(40).nullish().openapi({ description: "Required without a `vin`.", example: "Toyota" }),
    model: z.string().trim().min(1).max(60).nullish().openapi({ description: "Required without a `vin`.", example: "Camry" }),
    trim: z.string().trim().max(60).nullish().openapi({
      description:
        "When enough of the organization's comparable units share this trim (its comparables minimum, 3 by default), only they set the market value.",
      example: "SE",
    }),
    mileage: z.int().min(0).max(1_000_000).openapi({ description: "Odometer miles, 0 to 1,000,000.", example: 48200 }),
    condition_notes: z.string().trim().max(4000).nullish().openapi({
      description: "Free text as a desk manager writes it; recon line items are read from it. Required unless `photos` are sent.",
      example: "Small crack in windshield, couple of door dings on the driver side, rear tires worn. Non-smoker.",
    }),
    market_zip: z
      .string()
      .regex(/^\d{5}$/, "must be five digits")
      .nullish()
      .openapi({ description: "Five-digit ZIP of the market; default the primary store's.", example: "80234" }),
    photos: z
      .array(z.string().max(APPRAISAL_BODY_LIMIT_BYTES))
      .max(MAX_PHOTOS)
      .nullish()
      .openapi({
        description:
          "At most 6 data-URI images (`data:image/jpeg|png|webp;base64,…`), each at most 5 MiB decoded, whose bytes match the declared type. Required unless `condition_notes` are sent.",
        example: [EXAMPLE_PHOTO],
      }),
  })
  .refine((body) => Boolean(body.condition_notes) || (body.photos?.length ?? 0) > 0, {
    path: ["condition_notes"],
    message: "Send condition_notes, photos, or both.",
  })
  .refine((body) => Boolean(body.vin) || (body.year != null && Boolean(body.make) && Boolean(body.model)), {
    path: ["vin"],
    message: "Send a vin, or year, make and model.",
  })
  .openapi("TradeAppraisalRequest");

export const TradeAppraisalSchema = z
  .object({
    max_acquisition: z.number().openapi({
      description:
        "The most the unit can cost and still earn the store's target front gross, retailed at market, after recon, pack and holding cost; appraised to wholesale, no more than its auction value less fees and a margin.",
      example: 15812,
    }),
    appraised_to: z.enum(["retail", "wholesale"]).openapi({
      description:
        "`wholesale` when the notes name frame damage, flood, a salvage, rebuilt or odometer (TMU, exempt, rollback) brand, an airbag fault or a unit that does not run — no retail recon line prices those — or when the retail figure does not beat the wholesale figure (docs/domain/appraisal.md#appraise-to-wholesale).",
    }),
    manual_inspection_required: z.boolean().openapi({
      description:
        "True when a condition takes the unit to wholesale or the vehicle is not in the model table: the number is provisional until someone inspects the unit (`manual_inspection_reasons` says why).",
    }),
    negotiation_floor: z.number().openapi({ description: "The opening offer: 7% (at least $500) below the max acquisition.", example: 14705 }),
    market_value_estimate: z.number().openapi({ description: "Expected retail value, USD.", example: 22140 }),
    recon_estimate: z.record(z.string(), z.number()).openapi({
      description: "Line-item costs (USD) keyed by item name, plus `total`.",
      example: { windshield_replacement: 400, door_ding_repair: 225, tires_set_of_4: 800, detail: 200, total: 1625 },
    }),
    market_note: z.string().openapi({
      description: "How each figure was reached: the valuation method, comparables and their freshness, recon, photos, max acquisition and floor.",
    }),
    wholesale_value: z.number().openapi({
      description:
        "What the unit brings at auction less the recon the notes name, fees and a margin; never below the least a running unit brings ($500 by default). Always present: a running unit is never a bare $0.",
      example: 15200,
    }),
    manual_inspection_reasons: z.array(z.string()).openapi({
      description:
        "Why a person must see the unit before the number stands: a model the table does not know, a title or odometer brand (with its legal reason), frame, flood, airbag, not running.",
      example: [],
    }),
    confidence: z.enum(["low", "medium", "high"]).openapi({
      description:
        "`low` when the vehicle is not in the model table and no comparables price it (a fallback class is a guess); `high` when a vision model analysed the photos; else `medium`.",
    }),
    valuation_method: z.enum(["comparables", "depreciation_model"]),
    vehicle: z
      .object({
        vin: z.string().nullable(),
        year: z.int(),
        make: z.string(),
        model: z.string(),
        trim: z.string().nullable(),
        fuel_type: z.string().nullable(),
        body_class: z.string().nullable(),
        price_class: z.string(),
        price_class_match: z.enum(["model", "body", "make", "default"]).openapi({
          description:
            "What set the new-price class: `model` the model table; `body` the VIN decode's body and fuel (a model missing from the table); `make` the make's fallback; `default` the generic class. Anything but `model` is appraised at `low` confidence (docs/domain/appraisal.md#unknown-vehicles).",
        }),
        retention_class: z.string(),
        curve: z.enum(["model", "class"]).openapi({
          description:
            "`model`: a published figure of the model (or, where only its make's is published, its make's) set the curve, at five years and after (docs/domain/appraisal.md#model-retention); `class`: the class's curve.",
        }),
        decoded: VehicleDecodeSchema.nullable().openapi({ description: "The VIN's decode, when a `vin` was sent." }),
      })
      .openapi({ description: "The vehicle as appraised: what was sent or decoded, and the class and curve it chose." }),
    warnings: z
      .array(z.object({ field: z.string(), typed: z.string(), decoded: z.string(), message: z.string() }))
      .openapi({ description: "A typed field that contradicts the VIN's decode: both, and the decode was used.", example: [] }),
    comparables_used: z.int().openapi({ description: "Comparable units behind the market value; 0 on the depreciation model." }),
    data_as_of: dataAsOfFields.data_as_of,
    data_warnings: dataAsOfFields.data_warnings.openapi({
      description: "The stale feeds' warnings when the comparables priced the trade (they are every store's units and sales); empty otherwise.",
    }),
  })
  .openapi("TradeAppraisal");

export const appraiseTrade = v1Route({
  method: "post",
  path: "/api/v1/trade-appraisal",
  operationId: "appraiseTrade",
  tags: ["Deal desk"],
  summary: "Appraise a trade-in: market value, recon, max acquisition and negotiation floor",
  description:
    "Market value from the organization's own comparable units (same make and model, model year ±1, adjusted for year and mileage) when there are enough (3 by default), else from a depreciation model (new-price class, retention curve, regional index, mileage). Recon from the condition notes and, when a vision model is configured, the photos. Reads only; body up to 8 MiB.",
  endpoint: "trade-appraisal",
  body: { maxBytes: APPRAISAL_BODY_LIMIT_BYTES },
  reads: "nearest-replica",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: TradeAppraisalRequestSchema,
          example: {
            year: 2021,
            make: "Toyota",
            model: "Camry",
            trim: "SE",
            mileage: 48200,
            condition_notes: "Small crack in windshield, couple of door dings on the driver side, rear tires worn. Non-smoker.",
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: "The appraisal.",
      content: {
        "application/json": {
          schema: TradeAppraisalSchema,
          // The answer to the example request with the demo organization org_summit's key.
          example: {
            max_acquisition: 16052,
            negotiation_floor: 14928,
            market_value_estimate: 20899,
            recon_estimate: { detail: 200, door_ding_repair: 225, tires_set_of_4: 800, windshield_replacement: 400, total: 1625 },
            market_note:
              'Market value $20,899 from 13 comparable units of this organization (2021–2022 Toyota Camry (fewer than 3 of them SE, so every trim): 1 in stock at today\'s asking price, 12 sold in the last 180 days, the latest 19 days ago), each adjusted to a 2021 at 48,200 miles; the median. Recon $1,625: Paintless dent repair ×2 $225 ("couple of door dings on the driver side"); Set of four tires, installed $800 ("rear tires worn"); Windshield replacement $400 ("small crack in windshield"); Reconditioning detail $200 (standard). No photos were sent. Max acquisition $16,052 = market $20,899 − recon $1,625 − pack $500 − target front gross $1,672 (8% of market, at least $1,200) − holding $1,050 (30 days × $35) at Summit Auto North. Negotiation floor $14,928: open 7% (at least $500) below the max acquisition. Confidence medium.',
            appraised_to: "retail",
            wholesale_value: 15339,
            manual_inspection_required: false,
            manual_inspection_reasons: [],
            confidence: "medium",
            valuation_method: "comparables",
            comparables_used: 13,
            vehicle: {
              vin: null,
              year: 2021,
              make: "Toyota",
              model: "Camry",
              trim: "SE",
              fuel_type: "gas",
              body_class: "sedan",
              price_class: "midsize_car",
              price_class_match: "model",
              retention_class: "standard",
              curve: "class",
              decoded: null,
            },
            warnings: [],
            data_as_of: [freshFeedExample("inventory", "2026-11-26T05:41:00.000Z", 6.5), freshFeedExample("deals", "2026-11-26T05:41:00.000Z", 6.5)],
            data_warnings: [],
          },
        },
      },
    },
    404: documentedError("The organization has no store whose settings could price the trade (`not_found`)."),
    503: documentedError(
      "The vision model did not answer within 30 seconds (`upstream_timeout`); retry, or send the condition notes without photos.",
    ),
  },
});
