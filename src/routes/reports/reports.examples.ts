/**
 * The documented alerts: a used unit aged and overpriced, a new unit aged at the new-unit
 * threshold and a used wholesale candidate. Written out, so building the document runs no engine;
 * test/engines/report-examples.test.ts holds each to what the engine answers for the same unit
 * (its inputs are there), so the documented answer cannot say what the engine would not.
 */
export const ALERT_EXAMPLE = {
  stock_no: "N10042",
  store_id: "sto_summit_north",
  year: 2021,
  make: "Honda",
  model: "CR-V",
  condition: "used",
  days_on_lot: 52,
  list_price: 27495,
  market_value: 25900,
  market_value_source: "valuation",
  alert_type: "aged_and_overpriced",
  conditions: ["aged_and_overpriced"],
  owner: "used_car_manager",
  aged_threshold_days: 45,
  recommendation:
    "Aged: 52 days (aged at 45). Reprice to $25,895 (toward market $25,900, not above the $27,495 asking price) to turn it in the 8 days before its 60-day wholesale review; each more day costs $35 to hold.",
  action: "reprice",
  recommended_price: 25895,
  wholesale_est: 19850,
  exposure_usd: 24120,
};

export const ALERT_REPORT_EXAMPLE = {
  alerts: [
    {
      stock_no: "N10071",
      store_id: "sto_summit_north",
      year: 2026,
      make: "Toyota",
      model: "Highlander",
      condition: "new",
      days_on_lot: 96,
      list_price: 51435,
      market_value: 52450,
      market_value_source: "valuation",
      alert_type: "aged",
      conditions: ["aged"],
      owner: "new_car_manager",
      aged_threshold_days: 90,
      recommendation:
        "Aged new unit: 96 days (new units age at 90). For the new-car manager: dealer-trade, demo service or OEM incentive; plan the floor-plan curtailment; price it at $50,795 (97% of market $52,450, not above the $51,435 asking price); each more day costs $9 to hold.",
      action: "new_unit_plan",
      recommended_price: 50795,
      wholesale_est: null,
      exposure_usd: 47763,
    },
    {
      stock_no: "S10048",
      store_id: "sto_summit_south",
      year: 2019,
      make: "Chevrolet",
      model: "Equinox",
      condition: "used",
      days_on_lot: 64,
      list_price: 16995,
      market_value: 16400,
      market_value_source: "valuation",
      alert_type: "aged_and_overpriced",
      conditions: ["aged_and_overpriced"],
      owner: "used_car_manager",
      aged_threshold_days: 45,
      recommendation:
        "Wholesale review (64 days on the lot, reviewed at 60): retail still nets more than the auction. Reprice to $16,395 (toward market $16,400, not above the $16,995 asking price): after 26 more days of holding ($910) it brings about $15,485, $3,310 more than the expected auction proceeds about $12,175: wholesale value $12,675 (82% of market $16,400, 94.3% of it kept at 64 days) less $500 auction and transport fees; front gross then about -$1,155 after pack and holding. Retail it in the 26 days before its 90-day auction line; each more day costs $35 to hold.",
      action: "reprice",
      recommended_price: 16395,
      wholesale_est: 12175,
      exposure_usd: 17040,
    },
  ],
  total_aged_units: 36,
  total_aged_exposure_usd: 812433,
  has_more: false,
  next_cursor: null,
};
