import { describe, expect, it } from "vitest";
import { createDeskOrg, post } from "../helpers/deal-desk";

describe("smoke", () => {
  it("answers", async () => {
    const { key } = await createDeskOrg();
    for (const [path, body] of [
      ["/api/v1/lender-route", { beacon: 612, down_payment: 2500, vehicle_price: 21995, vehicle_type: "suv", known_issues: ["charge_off"] }],
      ["/api/v1/stip-check", { lender: "Fresh Start Auto Lending", beacon: 548, known_issues: ["bk13"], income_type: "w2" }],
      ["/api/v1/gross-calc", { purchase_price: 18500, selling_price: 22995, vehicle_type: "suv", days_on_lot: 52 }],
      [
        "/api/v1/deal-coach",
        { beacon: 688, vehicle_price: 32995, trade_value: 14000, trade_payoff: 17500, down_payment: 2000, desired_payment: 550 },
      ],
    ] as const) {
      const res = await post(path, key, body);
      console.log(path, res.status, JSON.stringify(await res.json(), null, 1));
    }
    expect(1).toBe(1);
  });
});
