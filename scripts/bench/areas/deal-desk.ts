import { type BenchArea, type BenchFixture, ENGINE_TARGET } from "../scenario";

/** The bench store routes to every program except the in-house (BHPH) ones, with a year of decisions to calibrate from. */
async function seed(db: D1Database, { orgId, storeId }: BenchFixture): Promise<void> {
  await db
    .prepare("INSERT INTO store_lender_panel (org_id, store_id, program_id) SELECT ?, ?, id FROM lender_programs WHERE type != 'bhph'")
    .bind(orgId, storeId)
    .run();
  // Five submissions per program and band (3 approved, 1 countered, 1 declined): real rows for the grouped read.
  const union = (column: string, values: string[]) => values.map((v, i) => `SELECT '${v}' AS ${column}, ${i} AS n`).join(" UNION ALL ");
  await db
    .prepare(
      `INSERT INTO lender_decisions (id, org_id, store_id, program_id, submitted_on, score_band, decision, stips_asked, turnaround_hours)
       SELECT 'ld_bench_' || p.id || '_' || b.band || '_' || o.n, ?, ?, p.id, '2026-06-01', b.band, o.decision, '["Driver''s license"]',
              CASE WHEN o.decision = 'declined' THEN NULL ELSE p.turnaround_hours END
       FROM lender_programs p,
            (${union("band", ["super_prime", "prime", "near_prime", "subprime", "deep_subprime"])}) b,
            (${union("decision", ["approved", "approved", "approved", "countered", "declined"])}) o
       WHERE p.type != 'bhph'`,
    )
    .bind(orgId, storeId)
    .run();
}

export const dealDeskArea: BenchArea = {
  name: "deal-desk",
  seed,
  scenarios: ({ key }) => {
    const post = (name: string, path: string, body: unknown) => ({
      name,
      path,
      method: "POST" as const,
      body,
      headers: { "X-Service-API-Key": key },
      metered: true,
      target: ENGINE_TARGET,
    });
    return [
      post("lender_route", "/api/v1/lender-route", {
        beacon: 612,
        down_payment: 2500,
        vehicle_price: 21_995,
        vehicle_type: "suv",
        known_issues: ["charge_off"],
        term_months: 72,
      }),
      post("stip_check", "/api/v1/stip-check", { lender: "Fresh Start Auto Lending", beacon: 548, known_issues: ["bk13"], income_type: "w2" }),
      post("gross_calc", "/api/v1/gross-calc", { purchase_price: 18_500, selling_price: 22_995, vehicle_type: "suv", days_on_lot: 52 }),
      post("deal_coach", "/api/v1/deal-coach", {
        beacon: 688,
        vehicle_price: 32_995,
        trade_value: 14_000,
        trade_payoff: 17_500,
        down_payment: 2000,
        desired_payment: 550,
      }),
    ];
  },
};
