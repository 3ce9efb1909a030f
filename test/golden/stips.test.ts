/**
 * Golden files for stip prediction, as an F&I manager states them. Pure rules go through the
 * engine with the shipped trigger matrix; turnaround and deal figures go through HTTP against a
 * store's own history. Each names the rule on docs/domain/stips.md that decides it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { STIP_RULE_ROWS, STIP_TYPE_ROWS } from "../../scripts/deal-desk-reference";
import type { CreditTier, KnownIssue } from "../../src/engines/deal-math";
import type { IncomeType } from "../../src/engines/deal-math/vocabulary";
import { checkStips, inSeason, MIN_TURNAROUND_HISTORY } from "../../src/engines/stips";
import { addDecisions, createDeskOrg, post } from "../helpers/deal-desk";
import { program } from "../helpers/deal-desk-reference";

const stipTypes = new Map(STIP_TYPE_ROWS.map((s) => [s.stip, s]));
const MARCH = new Date("2026-03-02T15:00:00Z");
const JUNE = new Date("2026-06-15T15:00:00Z");
const NO_HISTORY = { submissions: 0, avgTurnaroundHours: null };

const check = (
  lender: string,
  profile: { beacon: number; tier: CreditTier; knownIssues?: KnownIssue[]; incomeType?: IncomeType; asOf?: Date },
  history: { submissions: number; avgTurnaroundHours: number | null } = NO_HISTORY,
) => checkStips({ knownIssues: [], asOf: JUNE, ...profile }, program(lender), STIP_RULE_ROWS, stipTypes, history);
const asked = (result: ReturnType<typeof check>, priority: "required" | "likely") =>
  result.required_stips.filter((s) => s.priority === priority).map((s) => s.stip);

describe("the W-2 window (docs/domain/stips.md#w-2-window)", () => {
  it("a W-2 earner at a bank in March is asked for last year's W-2 as a likely stip", () => {
    expect(asked(check("Harbor Point Bank", { beacon: 700, tier: "prime", incomeType: "w2", asOf: MARCH }), "likely")).toContain("W-2");
  });

  it("a W-2 earner at a bank in June is not asked for a W-2: the pay stub covers it", () => {
    const result = check("Harbor Point Bank", { beacon: 700, tier: "prime", incomeType: "w2", asOf: JUNE });
    expect(result.required_stips.map((s) => s.stip)).not.toContain("W-2");
    expect(result.required_stips.map((s) => s.stip)).toContain("Pay stub");
  });

  describe("through stip-check, on the day of the request", () => {
    afterEach(() => vi.useRealTimers());
    const w2Stips = async (day: Date) => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(day);
      const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
      const res = await post("/api/v1/stip-check", key, { lender: "Harbor Point Bank", beacon: 700, income_type: "w2" });
      return (await res.json<{ required_stips: { stip: string; reason: string }[] }>()).required_stips;
    };

    it("a W-2 earner checked on April 10 is told to bring last year's W-2, and why", async () => {
      expect(await w2Stips(new Date("2026-04-10T16:00:00Z"))).toContainEqual(
        expect.objectContaining({ stip: "W-2", reason: "income:w2 (season 01-01 to 04-15)" }),
      );
    });

    it("a W-2 earner checked on October 10 is not", async () => {
      expect((await w2Stips(new Date("2026-10-10T16:00:00Z"))).map((s) => s.stip)).not.toContain("W-2");
    });
  });

  it("counts Jan 1 and Apr 15 in tax season, and Dec 31 and Apr 16 out of it", () => {
    const w2 = STIP_RULE_ROWS.find((r) => r.stip === "W-2")!;
    expect(inSeason(w2, new Date("2026-01-01T00:00:00Z"))).toBe(true);
    expect(inSeason(w2, new Date("2026-04-15T23:59:59Z"))).toBe(true);
    expect(inSeason(w2, new Date("2026-04-16T00:00:00Z"))).toBe(false);
    expect(inSeason(w2, new Date("2025-12-31T23:59:59Z"))).toBe(false);
  });

  it("a window that wraps the new year (Dec 1 to Jan 31) holds Dec 15 and Jan 15 but not Jun 1", () => {
    const wrap = { activeFrom: "12-01", activeUntil: "01-31" };
    expect(inSeason(wrap, new Date("2026-12-15T12:00:00Z"))).toBe(true);
    expect(inSeason(wrap, new Date("2027-01-15T12:00:00Z"))).toBe(true);
    expect(inSeason(wrap, new Date("2026-06-01T12:00:00Z"))).toBe(false);
  });
});

describe("the trigger matrix (docs/domain/stips.md#trigger-matrix)", () => {
  it("a 560 subprime file at a credit union needs income, residence, license and insurance; references and bank statements likely", () => {
    const result = check("Millworkers Credit Union", { beacon: 590, tier: "subprime" });
    expect(asked(result, "required").sort()).toEqual(["Driver's license", "Proof of income", "Proof of insurance", "Proof of residence"]);
    expect(asked(result, "likely").sort()).toEqual(["Bank statements", "References"]);
  });

  it("a 640 near-prime file at a bank needs income, license and insurance; residence likely", () => {
    const result = check("Prairie State Bank Auto Finance", { beacon: 640, tier: "near_prime" });
    expect(asked(result, "required").sort()).toEqual(["Driver's license", "Proof of income", "Proof of insurance"]);
    expect(asked(result, "likely")).toEqual(["Proof of residence"]);
  });

  it("a 760 prime file at a captive needs only license and insurance; income likely", () => {
    const result = check("Crestline Motor Credit", { beacon: 760, tier: "prime" });
    expect(asked(result, "required").sort()).toEqual(["Driver's license", "Proof of insurance"]);
    expect(asked(result, "likely")).toEqual(["Proof of income"]);
  });

  it("a self-employed near-prime customer brings 3 months of bank statements instead of a pay stub; tax returns likely", () => {
    const result = check("Prairie State Bank Auto Finance", { beacon: 640, tier: "near_prime", incomeType: "self_employed" });
    expect(asked(result, "required")).toContain("Bank statements");
    expect(asked(result, "required")).not.toContain("Proof of income");
    expect(asked(result, "likely")).toEqual(expect.arrayContaining(["Tax returns", "Business license"]));
  });

  it("a retiree on a pension brings the award letter as proof of income", () => {
    const result = check("Prairie State Bank Auto Finance", { beacon: 640, tier: "near_prime", incomeType: "fixed" });
    expect(asked(result, "required")).toContain("Award letter");
    expect(asked(result, "required")).not.toContain("Proof of income");
  });

  it("an ITIN buyer brings the ITIN letter and a passport or consular ID", () => {
    const result = check("Bridgeway ITIN Auto Loans", { beacon: 650, tier: "near_prime", knownIssues: ["itin"] });
    expect(asked(result, "required")).toEqual(expect.arrayContaining(["ITIN letter", "Passport or consular ID"]));
  });

  it("an open Chapter 13 is not funded without the trustee's letter, which is the first thing to chase", () => {
    const result = check("Fresh Start Auto Lending", { beacon: 548, tier: "subprime", knownIssues: ["bk13"] });
    expect(result.required_stips[0]).toMatchObject({ stip: "Trustee permission letter", priority: "required", turnaround_hours: 120 });
    expect(result.submission_tip).toContain("Start with the trustee permission letter");
  });

  it("a discharged Chapter 7 brings the discharge papers", () => {
    expect(asked(check("Keystone Auto Finance", { beacon: 600, tier: "subprime", knownIssues: ["bk7"] }), "required")).toContain(
      "BK discharge papers",
    );
  });

  it("a repo file needs references and will likely be asked to show the deficiency paid", () => {
    const result = check("Keystone Auto Finance", { beacon: 580, tier: "subprime", knownIssues: ["repo"] });
    expect(asked(result, "required")).toContain("References");
    expect(asked(result, "likely")).toContain("Proof deficiency paid");
  });

  it("a thin file at a credit union brings references and proof of residence, even at 700", () => {
    const result = check("Riverbend Community Credit Union", { beacon: 700, tier: "prime", knownIssues: ["thin_file"] });
    expect(asked(result, "required")).toEqual(expect.arrayContaining(["References", "Proof of residence", "Proof of income"]));
  });

  it("a subprime finance company checks references on every deal, even a 680", () => {
    expect(asked(check("Keystone Auto Finance", { beacon: 680, tier: "prime" }), "required")).toContain("References");
  });
});

describe("turnaround from the store's own history (docs/domain/stips.md#turnaround)", () => {
  const KEYSTONE = "lp_keystone_auto_finance";

  it(`quotes the store's own average once it has exactly ${MIN_TURNAROUND_HISTORY} timed submissions with the lender`, async () => {
    const { orgId, storeId, key } = await createDeskOrg({ programIds: [KEYSTONE] });
    await addDecisions(orgId, storeId, KEYSTONE, "subprime", "approved", MIN_TURNAROUND_HISTORY, 30);
    const res = await post("/api/v1/stip-check", key, { lender: "Keystone Auto Finance", beacon: 580 });
    expect(await res.json()).toMatchObject({ avg_turnaround_hours: 30, turnaround_source: "store_history" });
  });

  it(`quotes the program's default with ${MIN_TURNAROUND_HISTORY - 1} timed submissions (declines carry no time)`, async () => {
    const { orgId, storeId, key } = await createDeskOrg({ programIds: [KEYSTONE] });
    await addDecisions(orgId, storeId, KEYSTONE, "subprime", "approved", MIN_TURNAROUND_HISTORY - 1, 30);
    await addDecisions(orgId, storeId, KEYSTONE, "subprime", "declined", 5, null);
    const res = await post("/api/v1/stip-check", key, { lender: "Keystone Auto Finance", beacon: 580 });
    expect(await res.json()).toMatchObject({ avg_turnaround_hours: 96, turnaround_source: "program_default" });
  });

  it("holds the sample boundary at 3 in the engine too: 3 is history, 2 is the default", () => {
    const at = (submissions: number) => check("Keystone Auto Finance", { beacon: 580, tier: "subprime" }, { submissions, avgTurnaroundHours: 30 });
    expect(MIN_TURNAROUND_HISTORY).toBe(3);
    expect(at(3).turnaround_source).toBe("store_history");
    expect(at(2).turnaround_source).toBe("program_default");
  });
});

describe("stip-check sees the deal (docs/domain/deal-math.md#amount-financed)", () => {
  it("a trade $5,380 upside down is stated in the answer: LTV 116.9% on $23,380 financed", async () => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
    const res = await post("/api/v1/stip-check", key, {
      lender: "Harbor Point Bank",
      beacon: 690,
      vehicle_price: 20_000,
      down_payment: 2000,
      trade_value: 8000,
      trade_payoff: 13_380,
    });
    expect(res.status).toBe(200);
    const body = await res.json<{ ltv: number; amount_financed: number; ltv_excludes: string[]; submission_tip: string }>();
    expect(body).toMatchObject({ ltv: 116.9, amount_financed: 23_380, ltv_excludes: ["taxes", "title and fees"] });
    expect(body.submission_tip).toContain("LTV 116.9% on $23,380 financed (incl. $5,380 negative equity)");
  });

  it("cash down and trade equity that cover the price are told there is nothing to finance (422)", async () => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
    const res = await post("/api/v1/stip-check", key, {
      lender: "Harbor Point Bank",
      beacon: 690,
      vehicle_price: 20_000,
      down_payment: 5000,
      trade_value: 17_000,
      trade_payoff: 0,
    });
    expect(res.status).toBe(422);
    expect((await res.json<{ details: { path: string }[] }>()).details.map((d) => d.path)).toEqual(["down_payment", "trade_value"]);
  });

  it("trade figures without a price are refused by name (the LTV is measured on the price)", async () => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
    const res = await post("/api/v1/stip-check", key, { lender: "Harbor Point Bank", beacon: 690, trade_payoff: 13_380 });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ details: [{ path: "trade_payoff" }] });
  });

  it("without deal figures the answer carries no LTV rather than a guessed one", async () => {
    const { key } = await createDeskOrg({ programIds: ["lp_harbor_point_bank"] });
    const res = await post("/api/v1/stip-check", key, { lender: "Harbor Point Bank", beacon: 690 });
    expect(await res.json()).toMatchObject({ ltv: null, amount_financed: null, ltv_excludes: [] });
  });
});

describe("an LTV over the lender's maximum (docs/domain/lender-routing.md#ltv-limits)", () => {
  // Tri-County Teachers Credit Union advances 125% of book on a car: $25,000 on a $20,000 book.
  type StipAnswer = { ltv: number; max_ltv: number; down_payment_needed: number; submission_tip: string };
  const stipCheck = async (body: Record<string, unknown>) => {
    const { key } = await createDeskOrg({ programIds: ["lp_tri_county_teachers_credit_union"] });
    const res = await post("/api/v1/stip-check", key, { lender: "Tri-County Teachers Credit Union", beacon: 700, book_value: 20_000, ...body });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json<StipAnswer>();
  };

  it("a 128%-LTV deal at a 125% lender is told it is over, and that $600 more down fixes it", async () => {
    const body = await stipCheck({ vehicle_price: 25_600 });
    expect(body).toMatchObject({ ltv: 128, max_ltv: 125, down_payment_needed: 600 });
    expect(body.submission_tip).toContain(
      "The LTV is over Tri-County Teachers Credit Union's 125% maximum: $600 more cash down (or that much off the amount financed) brings it to 125%; as written it will not fund.",
    );
  });

  it("exactly 125% is inside: nothing more down, and no over-maximum sentence", async () => {
    const body = await stipCheck({ vehicle_price: 25_000 });
    expect(body).toMatchObject({ ltv: 125, max_ltv: 125, down_payment_needed: 0 });
    expect(body.submission_tip).not.toContain("maximum");
  });

  it("the same 128% on a truck is inside: the lender's maximum for a truck is 130%", async () => {
    const body = await stipCheck({ vehicle_price: 25_600, vehicle_type: "truck" });
    expect(body).toMatchObject({ ltv: 128, max_ltv: 130, down_payment_needed: 0 });
  });

  it("a cent over the maximum is over: a dollar more down, rounded up", () => {
    const financed = { amount: 25_000.01, netTrade: 0, negativeEquity: 0, tradeEquity: 0, excludes: [] };
    const result = checkStips(
      { beacon: 700, tier: "prime", knownIssues: [], asOf: JUNE, deal: { financed, ltv: 125.00005, book: 20_000, maxLtv: 125 } },
      program("Tri-County Teachers Credit Union"),
      STIP_RULE_ROWS,
      stipTypes,
      NO_HISTORY,
    );
    expect(result.down_payment_needed).toBe(1);
    expect(result.submission_tip).toContain("$1 more cash down");
  });
});
