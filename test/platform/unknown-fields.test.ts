import { describe, expect, it } from "vitest";
import type { ErrorBody } from "../helpers/bodies";
import { createDeskOrg, post } from "../helpers/deal-desk";

/**
 * The unknown-field rule (docs/versioning.md#unknown-request-fields): on every engine endpoint a
 * body field the schema does not declare is a 422 naming the field, never silently dropped.
 */
const ENGINE_ENDPOINTS: [string, Record<string, unknown>][] = [
  ["/api/v1/lender-route", { beacon: 700, down_payment: 3000, vehicle_price: 25_000, vehicle_type: "car" }],
  ["/api/v1/stip-check", { lender: "Harbor Point Bank", beacon: 700 }],
  ["/api/v1/gross-calc", { purchase_price: 18_500, selling_price: 22_995 }],
  ["/api/v1/deal-coach", { beacon: 700, vehicle_price: 25_000 }],
  ["/api/v1/trade-appraisal", { year: 2021, make: "Toyota", model: "Camry", mileage: 40_000, condition_notes: "clean" }],
  ["/api/v1/compliance-check", { first_name: "Maria", last_name: "Hernandez", dob: "1984-06-12" }],
  ["/api/v1/morning-briefing", { role: "gm" }],
];

describe("unknown body fields on every engine endpoint", () => {
  it.each(ENGINE_ENDPOINTS)("%s: an undeclared field is a 422 whose details name it; the same body without it is not", async (path, body) => {
    const { key } = await createDeskOrg();
    const valid = await post(path, key, body);
    expect(valid.status, await valid.clone().text()).not.toBe(422);

    const res = await post(path, key, { ...body, trade_valeu: 8000, surprise: true });
    expect(res.status).toBe(422);
    const error = await res.json<ErrorBody>();
    expect(error.error).toBe("validation_error");
    expect(error.details).toEqual([
      { path: "trade_valeu", code: "unrecognized_keys", message: 'Unknown field "trade_valeu": not part of this endpoint\'s body.' },
      { path: "surprise", code: "unrecognized_keys", message: 'Unknown field "surprise": not part of this endpoint\'s body.' },
    ]);
  });
});
