import { type BenchArea, type BenchFixture, ENGINE_TARGET, type ObjectRows } from "../scenario";

const BANDS = ["super_prime", "prime", "near_prime", "subprime", "deep_subprime"] as const;
const OUTCOMES = ["approved", "approved", "approved", "countered", "declined"] as const;

/** The bench store routes to every program except the in-house (BHPH) ones, with a year of decisions to calibrate from. */
async function seed(db: D1Database, { orgId, storeId }: BenchFixture): Promise<ObjectRows> {
  const { results: programs } = await db
    .prepare("SELECT id, turnaround_hours FROM lender_programs WHERE type != 'bhph' ORDER BY id")
    .all<{ id: string; turnaround_hours: number }>();
  // Five submissions per program and band (3 approved, 1 countered, 1 declined): real rows for the grouped read.
  const decisions = programs.flatMap((program) =>
    BANDS.flatMap((band) =>
      OUTCOMES.map((decision, n) => ({
        id: `ld_bench_${program.id}_${band}_${n}`,
        orgId,
        storeId,
        programId: program.id,
        submittedOn: "2026-06-01",
        scoreBand: band,
        decision,
        stipsAsked: ["Driver's license"],
        turnaroundHours: decision === "declined" ? null : program.turnaround_hours,
      })),
    ),
  );
  return { panels: programs.map((program) => ({ orgId, storeId, programId: program.id })), decisions };
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
