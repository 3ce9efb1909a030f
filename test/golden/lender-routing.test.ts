/**
 * Golden deals for lender routing, as a desk manager states them, against the demo stores' panels
 * and two years of their lender decisions (calibration matters). Each names the rule on
 * docs/domain/lender-routing.md (or docs/domain/deal-math.md) that decides it.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { amountFinanced, type KnownIssue } from "../../src/engines/deal-math";
import {
  approvalBucket,
  type Calibration,
  isDownTier,
  type LenderPick,
  type RouteProfile,
  type RouteResult,
  routeLender,
} from "../../src/engines/lender-routing";
import { loadDemoSeed, post } from "../helpers/deal-desk";
import { PROGRAMS, program, ROUTING_REFERENCE } from "../helpers/deal-desk-reference";
import { createApiKey } from "../helpers/factories";

const NORTH = "sto_summit_north";
const SOUTH = "sto_summit_south";
const NAME: Record<string, string> = { [NORTH]: "Summit North", [SOUTH]: "Summit South" };
const SETTINGS = ROUTING_REFERENCE.settings;
const AS_OF = new Date("2026-11-20T15:00:00Z");
const HIGHER_COST = ["subprime", "bhph"];

type Route = RouteResult & { store_id: string };
let key: string;

beforeAll(async () => {
  await loadDemoSeed();
  key = (await createApiKey("org_summit")).key;
});

async function route(body: Record<string, unknown>): Promise<Route> {
  const res = await post("/api/v1/lender-route", key, body);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<Route>();
}

/** $25,000 car, $3,500 down: 86% LTV. */
const clean = (beacon: number, store: string, extra: Record<string, unknown> = {}) => ({
  beacon,
  down_payment: 3500,
  vehicle_price: 25_000,
  vehicle_type: "car",
  store_id: store,
  ...extra,
});

describe("ranking: approval bucket, then the customer's rate (docs/domain/lender-routing.md#ranking)", () => {
  for (const store of [NORTH, SOUTH]) {
    it(`a clean 670 at 86% LTV goes to the credit union first at ${NAME[store]}, not the subprime finance company`, async () => {
      const result = await route(clean(670, store));
      expect(result.ltv).toBe(86);
      expect(result.primary).toMatchObject({ lender: "Tri-County Teachers Credit Union", lender_type: "credit_union", rate_range: "6.81% - 8.81%" });
      expect(result.primary!.down_tier).toBe(false);
      expect(HIGHER_COST).not.toContain(result.backup!.lender_type);
    });

    for (const beacon of [620, 635, 650]) {
      it(`a clean ${beacon} near-prime at 86% LTV at ${NAME[store]} goes to a bank or credit union first and second, never a subprime finance company`, async () => {
        const result = await route(clean(beacon, store));
        expect(HIGHER_COST).not.toContain(result.primary!.lender_type);
        expect(HIGHER_COST).not.toContain(result.backup!.lender_type);
        expect(result.primary!.down_tier).toBe(false);
        expect(result.primary!.confidence).toBeGreaterThanOrEqual(SETTINGS.approvalBucketLow);
      });
    }
  }

  it("at Summit South the 670 goes where the store's history says it gets approved: the credit union's 82 submissions", async () => {
    const result = await route(clean(670, SOUTH));
    const history = result.primary!.history;
    expect(history.approved + history.countered + history.declined).toBe(82);
    expect(result.primary!.approval_bucket).toBe("high");
    expect(result.routing_note).toContain("expected rate 7.81%");
  });

  it("a clean 720 never goes to the lender that declines prime paper at Summit North (First Lantern Bank)", async () => {
    const result = await route({ beacon: 720, down_payment: 4000, vehicle_price: 26_000, vehicle_type: "car", store_id: NORTH });
    expect(result.primary!.lender).not.toBe("First Lantern Bank");
    expect(result.avoid).toContain("First Lantern Bank");
  });

  it("between two lenders in the same approval bucket, the one with the lower rate for the customer goes first", async () => {
    const result = await route(clean(720, SOUTH));
    const [primary, backup] = [result.primary!, result.backup!];
    expect(primary.approval_bucket).toBe(backup.approval_bucket);
    expect(primary.expected_rate).toBeLessThanOrEqual(backup.expected_rate);
  });

  it("a 560 subprime customer at a subprime finance company is an in-tier placement, not a down-tier one", async () => {
    const result = await route(clean(560, NORTH, { down_payment: 4000 }));
    expect(result.primary).not.toBeNull();
    expect(result.primary!.down_tier).toBe(false);
    expect(result.routing_note).not.toContain("Down-tier placement");
  });
});

describe("down-tier placement (docs/domain/lender-routing.md#down-tier-placement)", () => {
  it("a clean 670 at 128% LTV, which no prime program writes, goes down-tier and the answer says why", async () => {
    const result = await route(clean(670, NORTH, { down_payment: 2500, book_value: 17_578 }));
    expect(result.ltv).toBe(128);
    expect(result.primary!.down_tier).toBe(true);
    expect(result.routing_note).toContain("Down-tier placement: no prime program approves this structure");
    expect(result.routing_note).toMatch(/LTV 128% over the program maximum \(\d+\)/);
    expect(result.primary!.reasons.join(" ")).toContain("down-tier placement: prime paper at a subprime finance company");
  });
});

describe("known issues (docs/domain/lender-routing.md#known-issues)", () => {
  it("a 720 with a repo goes to a program that takes repos, its high score knocking none of them out", async () => {
    const result = await route(clean(720, NORTH, { down_payment: 6000, known_issues: ["repo"] }));
    expect(result.primary).not.toBeNull();
    expect(program(result.primary!.lender).acceptsRepo).toBe(true);
    const repoTakers = new Set(PROGRAMS.filter((p) => p.acceptsRepo).map((p) => p.name));
    for (const avoided of result.avoid_details) if (repoTakers.has(avoided.lender)) expect(avoided.rule).not.toBe("score_above_program");
    expect(result.routing_note).toContain("no prime program approves this structure with repo");
  });

  it("a 700 with a discharged Chapter 7 goes to a captive that takes it, not a subprime lender", async () => {
    const result = await route(clean(700, SOUTH, { known_issues: ["bk7"] }));
    expect(result.primary!.lender_type).toBe("captive");
    expect(program(result.primary!.lender).acceptsBk7).toBe(true);
    expect(result.primary!.down_tier).toBe(false);
  });
});

describe("the whole amount financed (docs/domain/deal-math.md#amount-financed)", () => {
  const upsideDown = {
    beacon: 690,
    down_payment: 2000,
    vehicle_price: 20_000,
    vehicle_type: "car",
    trade_value: 8000,
    trade_payoff: 13_380,
    store_id: NORTH,
  };

  it("a trade $5,380 upside down puts the deal at 116.9% LTV, not 90%", async () => {
    const result = await route(upsideDown);
    expect(result).toMatchObject({ ltv: 116.9, amount_financed: 23_380, negative_equity: 5380, ltv_excludes: ["taxes", "title and fees"] });
    expect(result.routing_note).toContain(
      "LTV 116.9% on $23,380 financed (incl. $5,380 negative equity); excludes taxes and title and fees (not supplied)",
    );
  });

  it("the negative equity knocks out the programs whose LTV cap it breaks", async () => {
    const result = await route(upsideDown);
    expect(result.avoid_details).toContainEqual(expect.objectContaining({ lender: "Riverbend Community Credit Union", rule: "ltv_over_maximum" }));
  });

  it("with taxes and fees supplied the LTV excludes nothing and counts them", async () => {
    const result = await route({ ...upsideDown, taxes: 1200, fees: 450 });
    expect(result).toMatchObject({ amount_financed: 25_030, ltv: 125.2, ltv_excludes: [] });
  });

  it("a deal without trade figures says its LTV excludes any trade", async () => {
    const result = await route(clean(700, NORTH));
    expect(result.ltv_excludes).toEqual(["trade", "taxes", "title and fees"]);
    expect(result.routing_note).toContain("excludes trade, taxes and title and fees (not supplied)");
  });

  it("trade equity and cash down that cover the price are told there is nothing to finance (422), not quoted a rate and term", async () => {
    const res = await post("/api/v1/lender-route", key, { ...upsideDown, down_payment: 5000, trade_value: 17_000, trade_payoff: 0 });
    expect(res.status).toBe(422);
    const body = await res.json<{ details: { path: string; message: string }[] }>();
    expect(body.details.map((d) => d.path)).toEqual(["down_payment", "trade_value"]);
    expect(body.details[0].message).toContain("nothing to finance");
    expect(body.details[0].message).toContain("amount financed -2000");
  });

  it("a misspelt trade field is refused by name rather than silently dropped", async () => {
    const res = await post("/api/v1/lender-route", key, { ...upsideDown, trade_payof: 13_380 });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ details: [{ path: "trade_payof", code: "unrecognized_keys" }] });
  });
});

describe("edges the ranking turns on (docs/domain/lender-routing.md#ranking)", () => {
  it("puts 0.80 in the top bucket and 0.79 below it; 0.50 in the middle and 0.49 in the low one", () => {
    expect(approvalBucket(0.8, SETTINGS)).toBe("high");
    expect(approvalBucket(0.79, SETTINGS)).toBe("medium");
    expect(approvalBucket(0.5, SETTINGS)).toBe("medium");
    expect(approvalBucket(0.49, SETTINGS)).toBe("low");
  });

  it("calls a customer exactly 40 points over a program's ceiling down-tier there, and 39 points not", () => {
    const specialty = program("Bridgeway ITIN Auto Loans"); // specialty, ceiling 760
    expect(isDownTier(800, "super_prime", specialty, SETTINGS)).toBe(true);
    expect(isDownTier(799, "super_prime", specialty, SETTINGS)).toBe(false);
  });

  it("keeps a down-tier program off the top while an in-tier one approves at exactly 0.50, not at 0.49", () => {
    // A 670 with a charge-off at 90% LTV: the in-tier credit union's approval is set by its store history.
    const profile: RouteProfile = {
      beacon: 670,
      downPayment: 2000,
      vehiclePrice: 20_000,
      vehicleType: "car",
      condition: "used",
      knownIssues: ["charge_off"],
    };
    const panel = [program("Public Servants Credit Union"), program("Brightpath Auto Credit")];
    const withHistory = (approved: number, declined: number): Calibration =>
      new Map([[program("Public Servants Credit Union").id, { prime: { approved, countered: 0, declined } }]]);
    const first = (calibration: Calibration) => routeLender(profile, panel, ROUTING_REFERENCE, calibration, AS_OF).primary!;
    // Fit 0.5x as the prior worth 10; the history sets the posterior to 0.50 and to 0.49.
    const fit = routeLender(profile, panel, ROUTING_REFERENCE, new Map(), AS_OF).primary;
    expect(fit).not.toBeNull();
    const at = (target: number) => {
      for (let declined = 0; declined < 400; declined++) {
        for (let approved = 0; approved < 400; approved++) {
          const pick = routeLender(profile, panel, ROUTING_REFERENCE, withHistory(approved, declined), AS_OF);
          const cu = [pick.primary, pick.backup].find((p) => p?.lender === "Public Servants Credit Union");
          if (cu?.confidence === target) return withHistory(approved, declined);
        }
      }
      throw new Error(`no history gives ${target}`);
    };
    expect(first(at(0.5)).lender).toBe("Public Servants Credit Union");
    expect(first(at(0.49)).lender).toBe("Brightpath Auto Credit");
  });
});

describe("properties", () => {
  const issuesArb = fc.subarray(["repo", "bk7", "bk13", "itin", "thin_file", "charge_off"] as KnownIssue[], { maxLength: 2 });
  const dealArb = fc.record({
    price: fc.integer({ min: 8000, max: 60_000 }),
    downShare: fc.double({ min: 0, max: 0.3, noNaN: true }),
    issues: issuesArb,
    tradeValue: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined }),
    tradePayoff: fc.option(fc.integer({ min: 0, max: 25_000 }), { nil: undefined }),
  });
  type Deal = typeof dealArb extends fc.Arbitrary<infer T> ? T : never;
  const profileOf = (beacon: number, d: Deal): RouteProfile => ({
    beacon,
    downPayment: Math.round(d.price * d.downShare),
    vehiclePrice: d.price,
    vehicleType: "car",
    condition: "used",
    knownIssues: d.issues,
    tradeValue: d.tradeValue,
    tradePayoff: d.tradePayoff,
  });
  const allPicks = (result: RouteResult): LenderPick[] => [result.primary, result.backup].filter((p): p is LenderPick => p !== null);
  const bestRate = (beacon: number, d: Deal) => {
    const result = routeLender(profileOf(beacon, d), PROGRAMS, ROUTING_REFERENCE, new Map(), AS_OF);
    // Every program that fits, not only the top two: the lowest rate the customer qualifies for.
    const fitting = PROGRAMS.filter((p) => !result.avoid.includes(p.name));
    return fitting.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...fitting.map((p) => expectedRate(beacon, d, p.name)));
  };
  const expectedRate = (beacon: number, d: Deal, name: string) =>
    routeLender(profileOf(beacon, d), [program(name)], ROUTING_REFERENCE, new Map(), AS_OF).primary?.expected_rate ?? Number.POSITIVE_INFINITY;

  it("lowering a customer's score never improves the best rate they qualify for", () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 850 }), fc.integer({ min: 1, max: 120 }), dealArb, (beacon, drop, d) => {
        const lower = Math.max(300, beacon - drop);
        const amount = amountFinanced(profileOf(beacon, d)).amount;
        fc.pre(amount > 0);
        expect(bestRate(lower, d)).toBeGreaterThanOrEqual(bestRate(beacon, d));
      }),
      { numRuns: 60 },
    );
  });

  it("lowering a customer's score never lowers the rate any one program quotes them", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 300, max: 850 }),
        fc.integer({ min: 1, max: 200 }),
        dealArb,
        fc.constantFrom(...PROGRAMS.map((p) => p.name)),
        (beacon, drop, d, name) => {
          fc.pre(amountFinanced(profileOf(beacon, d)).amount > 0);
          const high = expectedRate(beacon, d, name);
          const low = expectedRate(Math.max(300, beacon - drop), d, name);
          if (Number.isFinite(high) && Number.isFinite(low)) expect(low).toBeGreaterThanOrEqual(high);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("adding negative equity never lowers the LTV", () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 850 }), dealArb, fc.integer({ min: 1, max: 15_000 }), (beacon, d, extraPayoff) => {
        const before = profileOf(beacon, d);
        const after = { ...before, tradeValue: before.tradeValue ?? 0, tradePayoff: (before.tradePayoff ?? 0) + extraPayoff };
        fc.pre(amountFinanced(before).amount > 0);
        const ltv = (p: RouteProfile) => routeLender(p, PROGRAMS.slice(0, 5), ROUTING_REFERENCE, new Map(), AS_OF).ltv;
        expect(ltv(after)).toBeGreaterThanOrEqual(ltv(before));
      }),
      { numRuns: 200 },
    );
  });

  it("a known issue never leaves the customer at a program that refuses it", () => {
    const ACCEPTS = {
      repo: "acceptsRepo",
      bk7: "acceptsBk7",
      bk13: "acceptsBk13",
      itin: "acceptsItin",
      thin_file: "acceptsThinFile",
      charge_off: "acceptsChargeOff",
    } as const;
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 850 }), dealArb, (beacon, d) => {
        fc.pre(d.issues.length > 0 && amountFinanced(profileOf(beacon, d)).amount > 0);
        const result = routeLender(profileOf(beacon, d), PROGRAMS, ROUTING_REFERENCE, new Map(), AS_OF);
        for (const pick of allPicks(result)) for (const issue of d.issues) expect(program(pick.lender)[ACCEPTS[issue]]).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("funding limits (docs/domain/lender-routing.md#term-limits, #amount-financed-limits)", () => {
  // A 2016 sedan with 112,000 miles, $13,000 with $1,000 down: $12,000 financed.
  const highMiler = {
    beacon: 700,
    down_payment: 1000,
    vehicle_price: 13_000,
    vehicle_type: "car",
    vehicle_year: 2016,
    mileage: 112_000,
    store_id: NORTH,
  };

  it("a 2016 car with 112,000 miles asking 84 months goes nowhere at 84, and the note names the term the credit unions write it at", async () => {
    const result = await route({ ...highMiler, term_months: 84 });
    expect(result.primary).toBeNull();
    expect(result.term_options).toEqual([{ term_months: 48, lenders: expect.any(Array) }]);
    const at48 = result.term_options[0].lenders;
    expect(at48.length).toBeGreaterThan(1);
    for (const lender of at48) expect(program(lender).type).toBe("credit_union");
    expect(result.routing_note).toContain(
      `shorter terms open some: at 48 months ${at48.length} credit unions write it (${at48.slice(0, 3).join(", ")}`,
    );
    const cu = result.avoid_details.find((d) => d.lender === at48[0])!;
    expect(cu).toMatchObject({ rule: "term_over_limit" });
    expect(cu.reason).toBe("writes at most 48 months on this deal (60 months needs 100,000 miles or fewer)");
    // The captives and banks are out on the car's age, not on a term they would never write.
    expect(result.avoid_details.find((d) => d.lender === "Harbor Point Bank")).toMatchObject({
      rule: "vehicle_too_old",
      reason: "takes vehicles up to 8 years old; this one is 10",
    });
  });

  it("the same car without a term is priced at 48 months, and the answer says why not 60", async () => {
    const result = await route(highMiler);
    expect(result.primary!.term_months).toBe(48);
    expect(result.primary!.reasons).toContain("term 48 months: 60 months needs 100,000 miles or fewer");
    expect(result.routing_note).toContain("Term 48 months: 60 months needs 100,000 miles or fewer.");
  });

  it("a $4,000 loan is out at every program whose minimum is above it, with that reason, and goes to a credit union", async () => {
    const result = await route({
      beacon: 720,
      down_payment: 1000,
      vehicle_price: 5000,
      vehicle_type: "car",
      vehicle_year: 2019,
      mileage: 70_000,
      store_id: NORTH,
    });
    expect(result.amount_financed).toBe(4000);
    expect(result.primary!.lender_type).toBe("credit_union");
    expect(result.primary!.term_months).toBe(60);
    expect(result.avoid_details.find((d) => d.lender === "Harbor Point Bank")).toEqual({
      lender: "Harbor Point Bank",
      rule: "amount_under_minimum",
      reason: "writes loans from $10,000; this deal finances $4,000",
    });
  });

  it("the $4,000 loan at 84 months names 60 months, where the credit unions write it", async () => {
    const result = await route({
      beacon: 720,
      down_payment: 1000,
      vehicle_price: 5000,
      vehicle_type: "car",
      vehicle_year: 2019,
      mileage: 70_000,
      term_months: 84,
      store_id: NORTH,
    });
    expect(result.primary).toBeNull();
    expect(result.term_options.map((o) => o.term_months)).toEqual([60]);
    expect(result.routing_note).toMatch(/at 60 months \d+ credit unions write it/);
  });

  it("a thin-file first-time buyer asking 84 months is capped at 72 by the thin file, and told which programs write 72", async () => {
    const result = await route({
      beacon: 690,
      down_payment: 3000,
      vehicle_price: 30_000,
      vehicle_type: "car",
      vehicle_year: 2025,
      mileage: 12_000,
      known_issues: ["thin_file"],
      term_months: 84,
      store_id: NORTH,
    });
    expect(result.primary).toBeNull();
    // 72 at the captives and credit unions; 66 at the subprime finance company whose own limit it is.
    expect(result.term_options.map((o) => o.term_months)).toEqual([72, 66]);
    for (const { lenders } of result.term_options) for (const lender of lenders) expect(program(lender).acceptsThinFile).toBe(true);
    const capped = result.avoid_details.find((d) => d.rule === "term_over_limit")!;
    expect(capped.reason).toContain("a thin credit file caps the term at 72 months");
    expect(result.avoid_details.find((d) => d.lender === "Harbor Point Bank")).toMatchObject({ rule: "no_thin_file" });
  });

  it("a deep-subprime 480 is written to 60 months at most, whatever the program allows", () => {
    const result = routeLender(
      {
        beacon: 480,
        downPayment: 4000,
        vehiclePrice: 16_000,
        vehicleType: "car",
        condition: "used",
        knownIssues: [],
        vehicleYear: 2022,
        mileage: 40_000,
        termMonths: 72,
      },
      [program("Second Gear Acceptance")],
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.avoid_details[0]).toMatchObject({
      rule: "term_over_limit",
      reason: "writes at most 60 months on this deal (deep subprime paper is written to 60 months at most)",
    });
    expect(result.term_options).toEqual([{ term_months: 60, lenders: ["Second Gear Acceptance"] }]);
  });
});

describe("the poor-fit line (docs/domain/lender-routing.md#approval-likelihood)", () => {
  it("a 660 at exactly Harbor Point's minimum and exactly its 120% LTV, no history, is 0.35 likely: it fits, it is not avoided as a poor fit", () => {
    // Program fit 0.30 + 0 (no score margin) + 0 (no LTV headroom) + 0.05 (no income given) = 0.35, the line itself.
    const result = routeLender(
      {
        beacon: 660,
        downPayment: 0,
        vehiclePrice: 24_000,
        bookValue: 20_000,
        vehicleType: "car",
        condition: "used",
        knownIssues: [],
        vehicleYear: 2024,
        mileage: 30_000,
        termMonths: 60,
      },
      [program("Harbor Point Bank")],
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.primary).toMatchObject({ lender: "Harbor Point Bank", confidence: 0.35 });
    expect(result.avoid).toEqual([]);
  });
});

describe("LTV at the program's maximum (docs/domain/lender-routing.md#ltv-limits)", () => {
  // Harbor Point Bank advances 120% of book on a car: $24,000 on a $20,000 book.
  const atBook = (financed: number, vehicleType: "car" | "truck" = "car"): RouteProfile => ({
    beacon: 740,
    downPayment: 0,
    vehiclePrice: financed,
    bookValue: 20_000,
    vehicleType,
    condition: "used",
    knownIssues: [],
    vehicleYear: 2024,
    mileage: 20_000,
  });
  const harbor = [program("Harbor Point Bank")];

  it("financing exactly 120% of book at a 120% lender is inside: it routes", () => {
    const result = routeLender(atBook(24_000), harbor, ROUTING_REFERENCE, new Map(), AS_OF);
    expect(result.ltv).toBe(120);
    expect(result.primary?.lender).toBe("Harbor Point Bank");
  });

  it("a dollar more is over, and the reason says by how much and what fixes it", () => {
    const result = routeLender(atBook(24_001), harbor, ROUTING_REFERENCE, new Map(), AS_OF);
    expect(result.primary).toBeNull();
    expect(result.avoid_details).toEqual([
      {
        lender: "Harbor Point Bank",
        rule: "ltv_over_maximum",
        reason: "LTV 120.01% is over its 120% maximum: it advances up to $24,000; $1 more cash down brings it inside",
      },
    ]);
    expect(result.routing_note).toContain("$1 more cash down brings the LTV inside Harbor Point Bank's 120% maximum.");
  });

  it("the same $24,001 on a truck is inside: trucks carry 5 more points", () => {
    expect(routeLender(atBook(24_001, "truck"), harbor, ROUTING_REFERENCE, new Map(), AS_OF).primary?.lender).toBe("Harbor Point Bank");
  });
});

describe("reasons that are true for the deal (docs/domain/lender-routing.md#routing-notes)", () => {
  it("a clean 720 at 140% LTV, which no program writes, is not told 'better-rate programs fit' by the subprime lenders", async () => {
    const result = await route({
      beacon: 720,
      down_payment: 0,
      vehicle_price: 28_000,
      book_value: 20_000,
      vehicle_type: "car",
      vehicle_year: 2023,
      mileage: 30_000,
      store_id: NORTH,
    });
    expect(result.primary).toBeNull();
    const ceilings = result.avoid_details.filter((d) => d.rule === "score_above_program");
    expect(ceilings.length).toBeGreaterThan(0);
    for (const d of ceilings) expect(d.reason).not.toContain("better-rate programs fit");
    expect(result.routing_note).toContain("more cash down brings the LTV inside");
  });

  it("a clean 720 at 86% LTV is told the subprime lenders are out on their ceilings because better-rate programs fit", async () => {
    const result = await route(clean(720, NORTH, { vehicle_year: 2023, mileage: 30_000 }));
    const ceiling = result.avoid_details.find((d) => d.lender === "Keystone Auto Finance")!;
    expect(ceiling).toEqual({
      lender: "Keystone Auto Finance",
      rule: "score_above_program",
      reason: "score 720 is over its 680 ceiling for a clean file; better-rate programs fit",
    });
  });

  it("a panel where only the subprime finance company fits sends the 560 there, in-tier, and says so plainly", () => {
    const result = routeLender(
      {
        beacon: 560,
        downPayment: 2500,
        vehiclePrice: 18_000,
        vehicleType: "car",
        condition: "used",
        knownIssues: [],
        vehicleYear: 2021,
        mileage: 48_000,
      },
      [program("Harbor Point Bank"), program("Riverbend Community Credit Union"), program("Keystone Auto Finance")],
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.primary).toMatchObject({ lender: "Keystone Auto Finance", down_tier: false, term_months: 72 });
    expect(result.backup).toBeNull();
    expect(result.avoid_details.map((d) => d.rule)).toEqual(["score_below_minimum", "score_below_minimum"]);
    expect(result.routing_note).toMatch(/^560 subprime, LTV 86.1%: 1 of 3 panel programs fit\. Send to Keystone Auto Finance first/);
    expect(result.routing_note).not.toContain("Down-tier");
  });

  it("an empty panel is said to be empty, not 'Main blockers: .'", () => {
    const result = routeLender(
      { beacon: 700, downPayment: 2000, vehiclePrice: 20_000, vehicleType: "car", condition: "used", knownIssues: [] },
      [],
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.routing_note).toMatch(/^This store's lender panel is empty: there is no program to send 700 prime, LTV 90% to\./);
    expect(result.routing_note).not.toContain("Main blockers");
  });
});

describe("ranking by evidence (docs/domain/lender-routing.md#approval-evidence)", () => {
  // A 650 near-prime, $17,000 financed on a $20,000 book: two credit unions at the same rate.
  const profile: RouteProfile = {
    beacon: 650,
    downPayment: 0,
    vehiclePrice: 17_000,
    bookValue: 20_000,
    vehicleType: "car",
    condition: "used",
    knownIssues: [],
    vehicleYear: 2023,
    mileage: 30_000,
  };
  const panel = [program("Heartland Farmers Credit Union"), program("Riverbend Community Credit Union")];
  const calibration: Calibration = new Map([
    [panel[0].id, { near_prime: { approved: 1, countered: 0, declined: 0 } }],
    [panel[1].id, { near_prime: { approved: 11, countered: 0, declined: 5 } }],
  ]);

  it("0.69 on sixteen decisions goes ahead of 0.59 on one, though the one's name sorts first and the rates are equal", () => {
    const result = routeLender(profile, panel, ROUTING_REFERENCE, calibration, AS_OF);
    expect(result.primary).toMatchObject({
      lender: "Riverbend Community Credit Union",
      confidence: 0.69,
      approval_evidence: 0.57,
      approval_bucket: "medium",
    });
    expect(result.backup).toMatchObject({
      lender: "Heartland Farmers Credit Union",
      confidence: 0.59,
      approval_evidence: 0.41,
      approval_bucket: "low",
    });
    expect(result.primary!.expected_rate).toBe(result.backup!.expected_rate);
  });

  it("renaming the two lenders does not change which goes first", () => {
    const renamed = [
      { ...panel[0], name: "Zephyr Farmers Credit Union" },
      { ...panel[1], name: "Aardvark Community Credit Union" },
    ];
    const result = routeLender(profile, renamed, ROUTING_REFERENCE, calibration, AS_OF);
    expect(result.primary!.lender_id).toBe("lp_riverbend_community_credit_union");
  });
});

describe("down payment: trade equity counts (docs/domain/lender-routing.md#down-payment)", () => {
  // Keystone Auto Finance needs 10% down: $2,000 on a $20,000 car.
  const deal = (cash: number, trade?: { value: number; payoff: number }): RouteProfile => ({
    beacon: 580,
    downPayment: cash,
    vehiclePrice: 20_000,
    vehicleType: "car",
    condition: "used",
    knownIssues: [],
    vehicleYear: 2022,
    mileage: 40_000,
    tradeValue: trade?.value,
    tradePayoff: trade?.payoff,
  });
  const keystone = [program("Keystone Auto Finance")];
  const first = (p: RouteProfile) => routeLender(p, keystone, ROUTING_REFERENCE, new Map(), AS_OF);

  it("$1,000 cash and $1,000 of trade equity make the 10%: it routes", () => {
    expect(first(deal(1000, { value: 5000, payoff: 4000 })).primary?.lender).toBe("Keystone Auto Finance");
  });

  it("$1,000 cash alone is short, and the reason says what it needs", () => {
    expect(first(deal(1000)).avoid_details).toEqual([
      {
        lender: "Keystone Auto Finance",
        rule: "down_payment_short",
        reason: "needs 10% down ($2,000); the deal has 5% (cash down plus trade equity)",
      },
    ]);
  });

  it("$2,000 cash, exactly 10%, is enough; $1,999 is not", () => {
    expect(first(deal(2000)).primary?.lender).toBe("Keystone Auto Finance");
    expect(first(deal(1999)).avoid_details[0].rule).toBe("down_payment_short");
  });

  it("an upside-down trade is not down payment: $2,000 cash with a trade $1,000 under water is still 10%, not 5%", () => {
    expect(first(deal(2000, { value: 5000, payoff: 6000 })).primary?.lender).toBe("Keystone Auto Finance");
  });
});

describe("the edges of the funding limits (docs/domain/lender-routing.md#term-limits, #amount-financed-limits)", () => {
  // A 740 at a credit union (no minimum amount, vehicles to 10 years and 150,000 miles).
  const deal = (financed: number, vehicleYear: number, mileage: number, termMonths: number): RouteProfile => ({
    beacon: 740,
    downPayment: 0,
    vehiclePrice: financed,
    bookValue: 40_000,
    vehicleType: "car",
    condition: "used",
    knownIssues: [],
    vehicleYear,
    mileage,
    termMonths,
  });
  const riverbend = [program("Riverbend Community Credit Union")];
  const writes = (p: RouteProfile) => routeLender(p, riverbend, ROUTING_REFERENCE, new Map(), AS_OF).primary !== null;

  it("72 months: exactly $15,000, 6 model years and 100,000 miles is written; a dollar less, a year older or a mile more is not", () => {
    expect(writes(deal(15_000, 2020, 100_000, 72))).toBe(true);
    expect(writes(deal(14_999, 2020, 100_000, 72))).toBe(false);
    expect(writes(deal(15_000, 2019, 100_000, 72))).toBe(false);
    expect(writes(deal(15_000, 2020, 100_001, 72))).toBe(false);
  });

  it("84 months: exactly $25,000, 3 model years and 45,000 miles is written; a dollar less, a year older or a mile more is not", () => {
    expect(writes(deal(25_000, 2023, 45_000, 84))).toBe(true);
    expect(writes(deal(24_999, 2023, 45_000, 84))).toBe(false);
    expect(writes(deal(25_000, 2022, 45_000, 84))).toBe(false);
    expect(writes(deal(25_000, 2023, 45_001, 84))).toBe(false);
  });

  it("a 16-year-old car no program takes is routed nowhere: no primary, no backup, no shorter term offered", () => {
    const result = routeLender(
      {
        beacon: 720,
        downPayment: 1000,
        vehiclePrice: 9000,
        vehicleType: "car",
        condition: "used",
        knownIssues: [],
        vehicleYear: 2010,
        mileage: 140_000,
        termMonths: 60,
      },
      PROGRAMS,
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect([result.primary, result.backup, result.term_options]).toEqual([null, null, []]);
    expect(result.routing_note).toContain("No program on this store's 53-lender panel fits 720 prime");
    // No cash down makes a program take a car it is too old for (the audit found "$350 more cash down meets Bridgeway's 15%").
    expect(result.routing_note).not.toContain("more cash down");
  });

  it("a bank writes exactly its $150,000 maximum and its $10,000 minimum, not a dollar past either", () => {
    const at = (financed: number) =>
      routeLender(
        { beacon: 800, downPayment: 0, vehiclePrice: financed, vehicleType: "car", condition: "new", knownIssues: [] },
        [program("Harbor Point Bank")],
        ROUTING_REFERENCE,
        new Map(),
        AS_OF,
      );
    expect(at(150_000).primary?.lender).toBe("Harbor Point Bank");
    expect(at(150_001).avoid_details[0]).toMatchObject({
      rule: "amount_over_maximum",
      reason: "writes loans up to $150,000; this deal finances $150,001",
    });
    expect(at(10_000).primary?.lender).toBe("Harbor Point Bank");
    expect(at(9_999).avoid_details[0]).toMatchObject({ rule: "amount_under_minimum" });
  });
});

describe("payment-to-income at the program's cap (docs/domain/lender-routing.md#pti-and-dti)", () => {
  it("$406.26 a month on $2,257 of income is exactly Riverbend's 18% cap: it routes; on $2,256 it is out, and the reason says by how much", () => {
    // A 740 on a 2024 with 30,000 miles, $20,008 financed over 60 months at 8.06%: $406.26 a month.
    const deal = (monthlyIncome: number): RouteProfile => ({
      beacon: 740,
      downPayment: 0,
      vehiclePrice: 20_008,
      vehicleType: "car",
      condition: "used",
      knownIssues: [],
      vehicleYear: 2024,
      mileage: 30_000,
      termMonths: 60,
      monthlyIncome,
    });
    const riverbend = [program("Riverbend Community Credit Union")];
    const at = routeLender(deal(2257), riverbend, ROUTING_REFERENCE, new Map(), AS_OF);
    expect(at.primary).toMatchObject({ lender: "Riverbend Community Credit Union", term_months: 60, expected_rate: 8.06 });
    const under = routeLender(deal(2256), riverbend, ROUTING_REFERENCE, new Map(), AS_OF);
    expect(under.primary).toBeNull();
    expect(under.avoid_details[0]).toMatchObject({ rule: "pti_over_cap", reason: "payment $406.26 is 18.01% of income, over its 18% cap" });
  });
});

describe("what the audit of new deals changed (docs/domain/lender-routing.md#routing-notes)", () => {
  const used = (extra: Partial<RouteProfile>): RouteProfile => ({
    beacon: 665,
    downPayment: 2000,
    vehiclePrice: 18_000,
    vehicleType: "van",
    condition: "used",
    knownIssues: [],
    vehicleYear: 2018,
    mileage: 99_999,
    ...extra,
  });

  it("a 665 at 60 months on a 99,999-mile van goes to a credit union, and no subprime finance company is offered at 48", () => {
    const panel = [program("Riverbend Community Credit Union"), program("Keystone Auto Finance")];
    const result = routeLender(used({ termMonths: 60 }), panel, ROUTING_REFERENCE, new Map(), AS_OF);
    expect(result.primary).toMatchObject({ lender: "Riverbend Community Credit Union", down_tier: false, term_months: 60 });
    expect(result.term_options).toEqual([]);
    expect(result.routing_note).not.toContain("subprime finance compan");
  });

  it("a 520 with nothing down is told the cash down that meets the nearest down-payment requirement", () => {
    const result = routeLender(
      used({ beacon: 520, downPayment: 0, vehiclePrice: 11_000, vehicleType: "car", vehicleYear: 2019, mileage: 60_000 }),
      [program("Keystone Auto Finance")],
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.primary).toBeNull();
    expect(result.routing_note).toContain("$1,100 more cash down meets Keystone Auto Finance's 10% down-payment requirement.");
  });

  it("a 700 ITIN buyer with $1,000 down is told the cash a credit union that takes ITINs needs, never the LTV of a buy-here-pay-here lot", () => {
    const result = routeLender(
      {
        ...used({
          beacon: 700,
          knownIssues: ["itin"],
          vehiclePrice: 19_000,
          downPayment: 1000,
          vehicleType: "car",
          vehicleYear: 2022,
          mileage: 40_000,
        }),
      },
      PROGRAMS,
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.primary).toBeNull();
    expect(result.routing_note).toContain("$1,850 more cash down meets Bayview Federal Credit Union's 15% down-payment requirement.");
    expect(result.routing_note).not.toContain("Keys Now Finance");
  });

  it("a $150,500 new-car loan over every bank's maximum is told the $500 that brings it to one", () => {
    const result = routeLender(
      { beacon: 760, downPayment: 10_000, vehiclePrice: 160_500, vehicleType: "car", condition: "new", knownIssues: [] },
      PROGRAMS,
      ROUTING_REFERENCE,
      new Map(),
      AS_OF,
    );
    expect(result.primary).toBeNull();
    expect(result.routing_note).toContain("$500 more cash down brings the amount financed to Altamont Motor Credit's $150,000 maximum.");
  });

  it("an ITIN buyer's blocker reads 'does not take an ITIN borrower'", () => {
    const result = routeLender(used({ knownIssues: ["itin"] }), [program("Harbor Point Bank")], ROUTING_REFERENCE, new Map(), AS_OF);
    expect(result.avoid_details[0]).toMatchObject({ rule: "no_itin", reason: "does not take an ITIN borrower" });
  });
});

describe("a used car nobody described (docs/domain/lender-routing.md#term-limits)", () => {
  const deal = (extra: Partial<RouteProfile>): RouteProfile => ({
    beacon: 720,
    downPayment: 0,
    vehiclePrice: 30_000,
    vehicleType: "car",
    condition: "used",
    knownIssues: [],
    ...extra,
  });
  const riverbend = [program("Riverbend Community Credit Union")];
  const route = (p: RouteProfile, panel = riverbend) => routeLender(p, panel, ROUTING_REFERENCE, new Map(), AS_OF);

  it("without year or mileage a 720 on a $30,000 used car routes at 48 months, and the note says to send both to open 84", () => {
    const result = route(deal({}));
    expect(result.primary).toMatchObject({ lender: "Riverbend Community Credit Union", term_months: 48 });
    expect(result.routing_note).toContain(
      "Without the vehicle's model year and mileage (not supplied) only terms that do not need them are written, 48 months at most on this deal: send vehicle_year and mileage to open terms up to 84 months.",
    );
  });

  it("with the mileage but not the year it routes at 60 months and asks only for the year", () => {
    const result = route(deal({ mileage: 30_000 }));
    expect(result.primary?.term_months).toBe(60);
    expect(result.routing_note).toContain("send vehicle_year to open terms up to 84 months.");
    expect(result.routing_note).not.toContain("send vehicle_year and mileage");
  });

  it("asked for 72 months without either, nothing fits at 72 and the note gives both the 48-month lenders and the fields to send", () => {
    const result = route(deal({ termMonths: 72 }));
    expect(result.primary).toBeNull();
    expect(result.term_options).toEqual([{ term_months: 48, lenders: ["Riverbend Community Credit Union"] }]);
    expect(result.routing_note).toContain("send vehicle_year and mileage to open terms up to 84 months.");
  });

  it("a subprime ladder reads mileage only: a 560 at a subprime finance company is asked for the mileage, not the year", () => {
    const result = route(deal({ beacon: 560, downPayment: 3000, vehiclePrice: 16_000 }), [program("Keystone Auto Finance")]);
    expect(result.primary?.term_months).toBe(42);
    expect(result.routing_note).toContain(
      "Without the vehicle's mileage (not supplied) only terms that do not need it are written, 42 months at most on this deal: send mileage to open terms up to 72 months.",
    );
  });

  it("with the year but not the mileage, a 2024 at a credit union routes at 48, not 72: every longer rung limits the mileage", () => {
    const result = route(deal({ vehicleYear: 2024 }));
    expect(result.primary?.term_months).toBe(48);
    expect(result.routing_note).toContain(
      "Without the vehicle's mileage (not supplied) only terms that do not need it are written, 48 months at most on this deal: send mileage to open terms up to 84 months.",
    );
  });

  it("described, nothing is asked for: a 2024 at 30,000 miles routes at 72 with no such sentence", () => {
    const result = route(deal({ vehicleYear: 2024, mileage: 30_000 }));
    expect(result.primary?.term_months).toBe(72);
    expect(result.routing_note).not.toContain("not supplied) only terms");
  });

  it("a new unit is this model year's with delivery miles: nothing to send", () => {
    expect(route(deal({ condition: "new" })).routing_note).not.toContain("send vehicle_year");
  });
});
