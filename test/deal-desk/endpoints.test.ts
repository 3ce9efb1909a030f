import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { LenderRouteResultSchema } from "../../src/routes/deal-desk/deal-desk.routes";
import type { ErrorBody } from "../helpers/bodies";
import { addDecisions, createDeskOrg, post, setPanel } from "../helpers/deal-desk";
import { call, createApiKey, createStore } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";

type RouteBody = z.infer<typeof LenderRouteResultSchema>;

// The OpenAPI document does not declare `suggestions` on the stip check's 422 (yet): the one field typed by hand.
type UnknownLenderBody = ErrorBody & { suggestions?: string[] };

// A 2023 car with 30,000 miles: its year and mileage let the programs write 72 months (docs/domain/lender-routing.md#term-limits).
const PRIME_DEAL = { beacon: 700, down_payment: 3000, vehicle_price: 28_000, vehicle_type: "car", vehicle_year: 2023, mileage: 30_000 };
const STIP_BODY = { lender: "Harbor Point Bank", beacon: 700 };
const GROSS_BODY = { purchase_price: 18_500, selling_price: 22_995 };
const COACH_BODY = { beacon: 700, vehicle_price: 30_000 };

describe("POST /api/v1/lender-route", () => {
  it("routes on the primary store's panel and answers the same input the same way", async () => {
    const { key, storeId } = await createDeskOrg();
    const first = await post("/api/v1/lender-route", key, { ...PRIME_DEAL, known_issues: ["charge_off"], term_months: 72 });
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Service-RateLimit-Remaining")).not.toBeNull();
    const body = await first.json<RouteBody>();
    expect(body.store_id).toBe(storeId);
    expect(body.primary!.confidence).toBeGreaterThan(0);
    expect(body.primary!.confidence).toBeLessThanOrEqual(1);
    expect(body.backup).not.toBeNull();
    expect(body.avoid).toContain("Northstar Auto Credit"); // takes no charge-offs
    expect(body.predicted_stips).toContain("Driver's license");
    const again = await post("/api/v1/lender-route", key, { ...PRIME_DEAL, known_issues: ["charge_off"], term_months: 72 });
    expect(await again.json()).toEqual(body);
  });

  it("lowers a lender's confidence at the store whose history says it declines the band", async () => {
    const { orgId, key, storeId } = await createDeskOrg();
    const quiet = await createStore(orgId);
    await setPanel(
      orgId,
      quiet.id,
      (await env.DB.prepare("SELECT id FROM lender_programs").all<{ id: string }>()).results.map((r) => r.id),
    );
    const baseline = await (await post("/api/v1/lender-route", key, { ...PRIME_DEAL, store_id: quiet.id })).json<RouteBody>();
    const favourite = baseline.primary!;
    await addDecisions(orgId, storeId, favourite.lender_id, "prime", "declined", 24, null);
    await addDecisions(orgId, storeId, favourite.lender_id, "prime", "approved", 2, 30);

    const calibrated = await (await post("/api/v1/lender-route", key, { ...PRIME_DEAL, store_id: storeId })).json<RouteBody>();
    expect(calibrated.primary!.lender).not.toBe(favourite.lender);
    expect(calibrated.avoid).toContain(favourite.lender);
    expect(calibrated.avoid_reason).toContain(favourite.lender);
  });

  it("never calibrates one organization with another's history", async () => {
    const a = await createDeskOrg();
    const b = await createDeskOrg();
    const before = await (await post("/api/v1/lender-route", b.key, PRIME_DEAL)).json<RouteBody>();
    await addDecisions(a.orgId, a.storeId, before.primary!.lender_id, "prime", "declined", 30, null);
    const aView = await (await post("/api/v1/lender-route", a.key, PRIME_DEAL)).json<RouteBody>();
    expect(aView.primary!.lender).not.toBe(before.primary!.lender);
    // B's answer (fresh isolate cache or not) still shows no history and the same pick.
    const bView = await (await post("/api/v1/lender-route", b.key, { ...PRIME_DEAL, store_id: b.storeId })).json<RouteBody>();
    expect(bView.primary).toEqual(before.primary);
    expect(bView.primary!.history).toEqual({ approved: 0, countered: 0, declined: 0 });
  });

  it("returns null picks and the reason when no panel program fits", async () => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank", "lp_crestline_motor_credit"] });
    const res = await post("/api/v1/lender-route", key, {
      beacon: 520,
      down_payment: 0,
      vehicle_price: 20_000,
      vehicle_type: "car",
      known_issues: ["bk13"],
    });
    const body = await res.json<RouteBody>();
    expect(body.primary).toBeNull();
    expect(body.backup).toBeNull();
    expect(body.avoid.sort()).toEqual(["Crestline Motor Credit", "Harbor Point Bank"]);
    expect(body.routing_note).toMatch(/^No program on this store's 2-lender panel fits/);
  });
});

describe("POST /api/v1/stip-check", () => {
  it("quotes the store's own turnaround with a lender once it has three timed submissions", async () => {
    const { orgId, key, storeId } = await createDeskOrg();
    const before = await (await post("/api/v1/stip-check", key, { ...STIP_BODY, store_id: storeId, income_type: "w2" })).json<
      Record<string, unknown>
    >();
    expect(before).toMatchObject({ lender: "Harbor Point Bank", avg_turnaround_hours: 36, turnaround_source: "program_default" });
    expect(before.required_stips).toContainEqual(expect.objectContaining({ stip: "Pay stub", priority: "required" }));

    const other = await createStore(orgId);
    await addDecisions(orgId, other.id, "lp_harbor_point_bank", "prime", "approved", 3, 20);
    await addDecisions(orgId, other.id, "lp_harbor_point_bank", "near_prime", "countered", 1, 40);
    const history = await (await post("/api/v1/stip-check", key, { ...STIP_BODY, lender: "harbor point bank", store_id: other.id })).json<
      Record<string, unknown>
    >();
    expect(history).toMatchObject({ lender: "Harbor Point Bank", avg_turnaround_hours: 25, turnaround_source: "store_history" });
  });

  it("refuses an unknown lender with a 422 naming the closest programs", async () => {
    const { key } = await createDeskOrg();
    const res = await post("/api/v1/stip-check", key, { lender: "Harbour Pointe Bank", beacon: 700 });
    expect(res.status).toBe(422);
    const body = await res.json<UnknownLenderBody>();
    expect(body.error).toBe("validation_error");
    expect(body.details![0]).toMatchObject({ path: "lender", code: "unknown_lender" });
    expect(body.details![0].message).toContain("Harbor Point Bank");
    expect(body.suggestions![0]).toBe("Harbor Point Bank");
  });
});

describe("POST /api/v1/gross-calc", () => {
  it("defaults to a car with no days on lot and uses the store's settings", async () => {
    const { orgId, key } = await createDeskOrg();
    const custom = await createStore(orgId);
    await rowsInObject(
      orgId,
      "UPDATE stores SET pack_used = 650, recon_truck = 1750, holding_cost_per_day = 40, floorplan_apr_used = 9.125 WHERE id = ?",
      custom.id,
    );
    const plain = await (await post("/api/v1/gross-calc", key, GROSS_BODY)).json<Record<string, unknown>>();
    // 18,500 + recon 1,200 (car) + 0 holding + pack 500.
    expect(plain).toMatchObject({
      true_cost: 20_200,
      holding_cost_allocated: 0,
      pack: 500,
      front_gross: 2795,
      front_gross_pct: 12.15,
      aged_flag: false,
    });
    const truck = await (await post("/api/v1/gross-calc", key, { ...GROSS_BODY, vehicle_type: "truck", days_on_lot: 30, store_id: custom.id })).json<
      Record<string, unknown>
    >();
    // All-in holding 40 × 30 = 1,200, floor plan 18,500 × 9.125% ÷ 365 × 30 = 138.75 of it (docs/domain/gross.md#holding-cost).
    expect(truck).toMatchObject({ holding_cost_allocated: 1200, pack: 650, true_cost: 22_100, front_gross: 895 });
    expect(truck).toMatchObject({ breakdown: { floor_plan_interest: 138.75, daily_holding: 1061.25 } });
  });
});

describe("POST /api/v1/deal-coach", () => {
  it("returns a pencil with a payment to the cent and products with word tracks", async () => {
    const { key } = await createDeskOrg();
    const res = await post("/api/v1/deal-coach", key, {
      ...COACH_BODY,
      trade_value: 10_000,
      trade_payoff: 12_500,
      down_payment: 3000,
      term_months: 60,
      // Described, so the panel's term ladders write 60 months (docs/domain/deal-coach.md#program-limits).
      vehicle_year: new Date().getUTCFullYear() - 2,
      mileage: 24_000,
    });
    expect(res.status).toBe(200);
    const body = await res.json<{ recommended_pencil: Record<string, number>; funding_risk: string; fi_products: unknown[]; notes: string }>();
    expect(body.recommended_pencil).toMatchObject({ payment: 627.66, rate: 10.06, term: 60, amount_financed: 29_500 });
    expect(body.funding_risk).toBe("medium");
    expect(body.fi_products.length).toBeGreaterThan(3);
    expect(body.notes).toContain("negative equity is rolled into the amount financed");
  });
});

describe("store_id and organizations", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["/api/v1/lender-route", PRIME_DEAL],
    ["/api/v1/stip-check", STIP_BODY],
    ["/api/v1/gross-calc", GROSS_BODY],
    ["/api/v1/deal-coach", COACH_BODY],
  ];

  it.each(cases)("%s: another organization's store is 404, an unknown one too", async (path, body) => {
    const mine = await createDeskOrg();
    const theirs = await createDeskOrg();
    const foreign = await post(path, mine.key, { ...body, store_id: theirs.storeId });
    expect(foreign.status).toBe(404);
    expect((await foreign.json<ErrorBody>()).error).toBe("not_found");
    expect((await post(path, mine.key, { ...body, store_id: "sto_nope" })).status).toBe(404);
    expect((await post(path, mine.key, { ...body, store_id: mine.storeId })).status).toBe(200);
  });

  it.each(cases)("%s: a key scoped to another endpoint is 403", async (path, body) => {
    const { orgId } = await createDeskOrg();
    const { key } = await createApiKey(orgId, { scopes: ["inventory"] });
    expect((await post(path, key, body)).status).toBe(403);
  });
});

describe("request rules: anything else is a 422 with field details", () => {
  const invalid: [string, string, Record<string, unknown>, string][] = [
    ["/api/v1/lender-route", "beacon missing", { down_payment: 0, vehicle_price: 20_000, vehicle_type: "car" }, "beacon"],
    ["/api/v1/lender-route", "beacon under 300", { ...PRIME_DEAL, beacon: 299 }, "beacon"],
    ["/api/v1/lender-route", "beacon over 850", { ...PRIME_DEAL, beacon: 851 }, "beacon"],
    ["/api/v1/lender-route", "beacon not an integer", { ...PRIME_DEAL, beacon: 700.5 }, "beacon"],
    ["/api/v1/lender-route", "beacon a string", { ...PRIME_DEAL, beacon: "700" }, "beacon"],
    ["/api/v1/lender-route", "down_payment missing", { beacon: 700, vehicle_price: 20_000, vehicle_type: "car" }, "down_payment"],
    ["/api/v1/lender-route", "down_payment negative", { ...PRIME_DEAL, down_payment: -1 }, "down_payment"],
    ["/api/v1/lender-route", "down_payment not under the price", { ...PRIME_DEAL, down_payment: 28_000 }, "down_payment"],
    ["/api/v1/lender-route", "vehicle_price missing", { beacon: 700, down_payment: 0, vehicle_type: "car" }, "vehicle_price"],
    ["/api/v1/lender-route", "vehicle_price zero", { ...PRIME_DEAL, vehicle_price: 0 }, "vehicle_price"],
    ["/api/v1/lender-route", "vehicle_type missing", { beacon: 700, down_payment: 0, vehicle_price: 20_000 }, "vehicle_type"],
    ["/api/v1/lender-route", "vehicle_type unknown", { ...PRIME_DEAL, vehicle_type: "bus" }, "vehicle_type"],
    ["/api/v1/lender-route", "known_issues item unknown", { ...PRIME_DEAL, known_issues: ["dui"] }, "known_issues.0"],
    ["/api/v1/lender-route", "known_issues not an array", { ...PRIME_DEAL, known_issues: "bk7" }, "known_issues"],
    ["/api/v1/lender-route", "known_issues too long", { ...PRIME_DEAL, known_issues: Array(7).fill("bk7") }, "known_issues"],
    ["/api/v1/lender-route", "term_months not offered", { ...PRIME_DEAL, term_months: 30 }, "term_months"],
    ["/api/v1/lender-route", "store_id too long", { ...PRIME_DEAL, store_id: "s".repeat(65) }, "store_id"],
    ["/api/v1/stip-check", "lender missing", { beacon: 700 }, "lender"],
    ["/api/v1/stip-check", "lender blank", { lender: "  ", beacon: 700 }, "lender"],
    ["/api/v1/stip-check", "lender too long", { lender: "x".repeat(121), beacon: 700 }, "lender"],
    ["/api/v1/stip-check", "beacon missing", { lender: "Harbor Point Bank" }, "beacon"],
    ["/api/v1/stip-check", "beacon out of range", { ...STIP_BODY, beacon: 900 }, "beacon"],
    ["/api/v1/stip-check", "income_type unknown", { ...STIP_BODY, income_type: "cash" }, "income_type"],
    ["/api/v1/stip-check", "known_issues item unknown", { ...STIP_BODY, known_issues: ["late"] }, "known_issues.0"],
    ["/api/v1/stip-check", "vehicle_type without a price", { ...STIP_BODY, vehicle_type: "truck" }, "vehicle_type"],
    ["/api/v1/stip-check", "vehicle_type unknown", { ...STIP_BODY, vehicle_price: 20_000, vehicle_type: "boat" }, "vehicle_type"],
    ["/api/v1/gross-calc", "purchase_price missing", { selling_price: 20_000 }, "purchase_price"],
    ["/api/v1/gross-calc", "selling_price missing", { purchase_price: 18_000 }, "selling_price"],
    ["/api/v1/gross-calc", "selling_price zero", { ...GROSS_BODY, selling_price: 0 }, "selling_price"],
    ["/api/v1/gross-calc", "days_on_lot negative", { ...GROSS_BODY, days_on_lot: -1 }, "days_on_lot"],
    ["/api/v1/gross-calc", "days_on_lot fractional", { ...GROSS_BODY, days_on_lot: 1.5 }, "days_on_lot"],
    ["/api/v1/gross-calc", "vehicle_type unknown", { ...GROSS_BODY, vehicle_type: "boat" }, "vehicle_type"],
    ["/api/v1/deal-coach", "beacon missing", { vehicle_price: 30_000 }, "beacon"],
    ["/api/v1/deal-coach", "vehicle_price missing", { beacon: 700 }, "vehicle_price"],
    ["/api/v1/deal-coach", "desired_payment zero", { ...COACH_BODY, desired_payment: 0 }, "desired_payment"],
    ["/api/v1/deal-coach", "term_months not offered", { ...COACH_BODY, term_months: 90 }, "term_months"],
    ["/api/v1/deal-coach", "trade_payoff negative", { ...COACH_BODY, trade_payoff: -5 }, "trade_payoff"],
    ["/api/v1/deal-coach", "down_payment not under the price", { ...COACH_BODY, down_payment: 30_000 }, "down_payment"],
  ];

  it.each(invalid)("%s: %s", async (path, _rule, body, field) => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
    const res = await post(path, key, body);
    expect(res.status).toBe(422);
    const error = await res.json<ErrorBody>();
    expect(error.error).toBe("validation_error");
    expect(error.details!.map((d) => d.path)).toContain(field);
  });

  it("a body that is not JSON is a 400", async () => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
    const res = await call("/api/v1/gross-calc", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(400);
  });
});
