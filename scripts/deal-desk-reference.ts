/**
 * The deal desk's reference rows, every figure with its public source in `source` (or in the
 * comment), as the engine pages under docs/domain/ give them. `npx tsx scripts/render-deal-desk-reference.ts` writes them into the
 * `deal_desk_reference` migration, which is what deployments load; the demo seed reads the same
 * rows to generate a history that fits the programs. Pure (no node:), like the demo data.
 */
import type { InferInsertModel, InferSelectModel } from "drizzle-orm";
import type {
  creditTiers,
  factoryWarrantyTerms,
  fiProducts,
  fiWordTracks,
  frontGrossTargets,
  knownIssueRules,
  lenderPrograms,
  lenderRoutingSettings,
  lenderTermLimits,
  stipRules,
  stipTypes,
  vehicleTypeAdjustments,
} from "../src/db/schema/deal-desk";
import type { DemoDealDeskReference } from "../src/demo/demo-data-deal-desk";
import type { LenderType } from "../src/engines/deal-math/vocabulary";

export const CREDIT_TIER_ROWS: InferInsertModel<typeof creditTiers>[] = [
  ["super_prime", 781, 850, 5.18, 6.82, 1.0, 130, 0.2, 84, 1.0, 2.0, 1.5, 1800],
  ["prime", 661, 780, 6.7, 9.06, 1.0, 125, 0.2, 84, 1.0, 2.0, 1.5, 1800],
  ["near_prime", 601, 660, 9.83, 13.74, 1.5, 115, 0.18, 75, 1.0, 2.0, 1.5, 2000],
  ["subprime", 501, 600, 13.22, 18.99, 2.0, 110, 0.15, 72, 0, 0, 0, 1500],
  ["deep_subprime", 300, 500, 15.81, 21.58, 2.5, 100, 0.15, 60, 0, 0, 0, 1500],
].map(([tier, scoreMin, scoreMax, newApr, usedApr, aprSpread, maxLtv, maxPti, maxTerm, standardMarkup, capShort, capLong, backGross]) => ({
  tier: tier as InferInsertModel<typeof creditTiers>["tier"],
  scoreMin: scoreMin as number,
  scoreMax: scoreMax as number,
  newApr: newApr as number,
  usedApr: usedApr as number,
  aprSpread: aprSpread as number,
  maxLtv: maxLtv as number,
  maxPti: maxPti as number,
  maxTerm: maxTerm as number,
  standardMarkup: standardMarkup as number,
  markupCapShortTerm: capShort as number,
  markupCapLongTerm: capLong as number,
  backGrossTarget: backGross as number,
  source:
    "APR: Experian, State of the Automotive Finance Market Q1 2025, by VantageScore 4.0 band (via creditvana.com); reserve caps 2.0 pts ≤ 60 mo, 1.5 pts 61–84, none below 601: engineering default inside the caps F&I Magazine (2018) and the CFPB/DOJ consent orders (2015–2016) report; back-gross targets: engineering default against Group 1 Automotive's Q4 2024 8-K (sec.gov) and Presidio/NCM Q3 2025 (autodealer-news.com) F&I per unit",
}));

export const VEHICLE_TYPE_ADJUSTMENT_ROWS: InferInsertModel<typeof vehicleTypeAdjustments>[] = [
  { vehicleType: "car", ltvAdd: 0, aprAdd: 0 },
  { vehicleType: "truck", ltvAdd: 5, aprAdd: -0.1 },
  { vehicleType: "suv", ltvAdd: 5, aprAdd: -0.1 },
  { vehicleType: "van", ltvAdd: 0, aprAdd: 0.1 },
];

export const KNOWN_ISSUE_ROWS: InferInsertModel<typeof knownIssueRules>[] = [
  {
    issue: "repo",
    label: "repossession",
    extraDownPct: 10,
    rateAdd: 2.0,
    maxTerm: null,
    source: "Engineering default; repo at least 1 year old, one at most: carsdirect.com, autocreditexpress.com; deficiency paid: safefed.org",
  },
  {
    issue: "bk7",
    label: "Chapter 7 bankruptcy",
    extraDownPct: 0,
    rateAdd: 1.5,
    maxTerm: null,
    source: "Engineering default; Chapter 7 financed after discharge: ntrial.com, American Motor Credit guidelines",
  },
  {
    issue: "bk13",
    label: "Chapter 13 bankruptcy",
    extraDownPct: 0,
    rateAdd: 3.0,
    maxTerm: null,
    source: "Engineering default; Chapter 13 needs the trustee's permission or a court order: ntrial.com, pocketsense.com",
  },
  {
    issue: "itin",
    label: "ITIN borrower",
    extraDownPct: 15,
    rateAdd: 0,
    maxTerm: 60,
    source: "Engineering default; fewer lenders, extra ID, bigger down, shorter term: financeglass.com, accountinginsights.org",
  },
  {
    issue: "thin_file",
    label: "thin credit file",
    extraDownPct: 0,
    rateAdd: 2.0,
    maxTerm: 72,
    source: "Credit-union lending manual (swhitworth4.wixsite.com): +2% for a thin file; the rest engineering default",
  },
  {
    issue: "charge_off",
    label: "charge-off",
    extraDownPct: 0,
    rateAdd: 1.0,
    maxTerm: null,
    source: "safefed.org: no unpaid charge-offs under 12 months old; paid → normal tier +1.0 pt: engineering default",
  },
];

export const FRONT_GROSS_TARGET_ROWS: InferInsertModel<typeof frontGrossTargets>[] = [
  {
    condition: "new",
    targetPct: 3,
    minAmount: 1000,
    source: "Engineering default, against Group 1 Automotive's Q4 2024 8-K (sec.gov) and Presidio/NCM Q3 2025 (autodealer-news.com) gross per unit",
  },
];

// ---------------------------------------------------------------------------------------------
// Lender programs (fictional names; type defaults: docs/domain/lender-routing.md)

type Program = InferInsertModel<typeof lenderPrograms>;
type ProgramDefaults = Omit<Program, "id" | "name" | "type">;

const ACCEPTS_NONE = {
  acceptsRepo: false,
  acceptsBk7: false,
  acceptsBk13: false,
  acceptsItin: false,
  acceptsThinFile: false,
  acceptsChargeOff: false,
};

/** Per lender type: LTV, PTI, terms/age/miles, issues, funding days, reserve (docs/domain/lender-routing.md). */
const TYPE_DEFAULTS: Record<LenderType, ProgramDefaults> = {
  captive: {
    ...ACCEPTS_NONE,
    acceptsBk7: true,
    acceptsThinFile: true,
    minScore: 620,
    maxScore: 850,
    maxLtv: 125,
    maxPti: 0.2,
    maxTerm: 84,
    minDownPct: 0,
    vehicleMaxAge: 6,
    vehicleMaxMiles: 80_000,
    rateMargin: -0.5,
    rateAdd: {},
    markupCap: 2.0,
    flatFee: 0,
    fundingDays: 2,
    turnaroundHours: 24,
    baseStips: ["Driver's license", "Proof of insurance"],
    minAmount: 10_000,
    maxAmount: 150_000,
  },
  bank: {
    ...ACCEPTS_NONE,
    acceptsChargeOff: true,
    minScore: 660,
    maxScore: 850,
    maxLtv: 120,
    maxPti: 0.2,
    maxTerm: 84,
    minDownPct: 0,
    vehicleMaxAge: 8,
    vehicleMaxMiles: 100_000,
    rateMargin: 0,
    rateAdd: {},
    markupCap: 2.0,
    flatFee: 0,
    fundingDays: 3,
    turnaroundHours: 36,
    baseStips: ["Driver's license", "Proof of insurance"],
    minAmount: 10_000,
    maxAmount: 150_000,
  },
  credit_union: {
    ...ACCEPTS_NONE,
    acceptsItin: true,
    acceptsThinFile: true,
    acceptsChargeOff: true,
    minScore: 620,
    maxScore: 850,
    maxLtv: 115,
    maxPti: 0.18,
    maxTerm: 84,
    minDownPct: 0,
    vehicleMaxAge: 10,
    vehicleMaxMiles: 150_000,
    rateMargin: -1.0,
    rateAdd: {},
    markupCap: 0,
    flatFee: 200,
    fundingDays: 4,
    turnaroundHours: 48,
    baseStips: ["Driver's license", "Proof of insurance"],
    minAmount: 0,
    maxAmount: 150_000,
  },
  subprime: {
    ...ACCEPTS_NONE,
    acceptsRepo: true,
    acceptsBk7: true,
    acceptsThinFile: true,
    acceptsChargeOff: true,
    minScore: 500,
    maxScore: 680,
    maxLtv: 120,
    maxPti: 0.15,
    maxTerm: 72,
    minDownPct: 10,
    vehicleMaxAge: 10,
    vehicleMaxMiles: 120_000,
    rateMargin: 1.0,
    rateAdd: {},
    markupCap: 0,
    flatFee: 0,
    fundingDays: 7,
    turnaroundHours: 96,
    baseStips: ["Driver's license", "Proof of insurance", "Proof of income", "Proof of residence"],
    minAmount: 5_000,
    maxAmount: null,
  },
  specialty: {
    acceptsRepo: true,
    acceptsBk7: true,
    acceptsBk13: true,
    acceptsItin: true,
    acceptsThinFile: true,
    acceptsChargeOff: true,
    minScore: 300,
    maxScore: 640,
    maxLtv: 110,
    maxPti: 0.15,
    maxTerm: 60,
    minDownPct: 15,
    vehicleMaxAge: 12,
    vehicleMaxMiles: 150_000,
    rateMargin: 1.5,
    rateAdd: {},
    markupCap: 0,
    flatFee: 0,
    fundingDays: 10,
    turnaroundHours: 168,
    baseStips: ["Driver's license", "Proof of insurance", "Proof of income", "Proof of residence", "References"],
    minAmount: 5_000,
    maxAmount: null,
  },
  bhph: {
    acceptsRepo: true,
    acceptsBk7: true,
    acceptsBk13: true,
    acceptsItin: true,
    acceptsThinFile: true,
    acceptsChargeOff: true,
    minScore: 300,
    maxScore: 620,
    maxLtv: 100,
    maxPti: 0.2,
    maxTerm: 48,
    minDownPct: 20,
    vehicleMaxAge: 15,
    vehicleMaxMiles: 200_000,
    rateMargin: 3.0,
    rateAdd: {},
    markupCap: 0,
    flatFee: 0,
    fundingDays: 0,
    turnaroundHours: 4,
    baseStips: ["Driver's license", "Proof of income", "Proof of residence", "References"],
    minAmount: 0,
    maxAmount: null,
  },
};

/** [name, type, overrides]. Names are fictional, so no real lender's approval is implied; the first nine are the demo stores' historic lenders. */
const PROGRAM_SPECS: readonly (readonly [string, LenderType, Partial<ProgramDefaults>])[] = [
  ["Crestline Motor Credit", "captive", {}],
  ["Harbor Point Bank", "bank", {}],
  ["Prairie State Bank Auto Finance", "bank", { minScore: 600, maxLtv: 115, rateMargin: 0.25 }],
  ["Lakeshore Savings Bank", "bank", { minScore: 640, maxLtv: 120 }],
  ["Riverbend Community Credit Union", "credit_union", {}],
  ["Tri-County Teachers Credit Union", "credit_union", { minScore: 660, maxLtv: 125, rateMargin: -1.25 }],
  ["Second Gear Acceptance", "subprime", { minScore: 480, maxScore: 660, maxLtv: 130 }],
  ["Keystone Auto Finance", "subprime", { minScore: 500, maxScore: 680 }],
  ["Fresh Start Auto Lending", "specialty", { maxScore: 620 }],
  // Captives
  ["Altamont Motor Credit", "captive", { minScore: 640, maxLtv: 120 }],
  ["Meridian Motors Acceptance", "captive", { acceptsThinFile: true, rateMargin: -0.75 }],
  ["Northstar Auto Credit", "captive", { minScore: 600, maxLtv: 120, maxTerm: 75, rateMargin: 0 }],
  ["Pinnacle Vehicle Finance", "captive", { minScore: 680, maxLtv: 130, rateMargin: -1.0 }],
  ["Corsa Captive Finance", "captive", { acceptsBk7: false, maxTerm: 72 }],
  ["Bluewater Motor Credit", "captive", { minScore: 660, vehicleMaxAge: 5 }],
  ["Ironwood Automotive Financial", "captive", { minScore: 620, maxLtv: 115, rateMargin: -0.25 }],
  // Banks
  ["Granite Trust Bank", "bank", { minScore: 700, maxLtv: 125, rateMargin: -0.25 }],
  ["Copperfield National Bank", "bank", { minScore: 680 }],
  ["Westgate Bank Auto Lending", "bank", { minScore: 620, maxLtv: 115, maxTerm: 75, rateMargin: 0.5 }],
  ["First Lantern Bank", "bank", { minScore: 660, maxLtv: 125 }],
  ["Oak Hollow Bank", "bank", { minScore: 640, acceptsChargeOff: false }],
  ["Silver Creek Bank", "bank", { minScore: 720, maxLtv: 130, rateMargin: -0.5 }],
  ["Three Rivers National Bank", "bank", { minScore: 650, maxTerm: 75 }],
  ["Beacon Hill Savings Bank", "bank", { minScore: 690, maxLtv: 120, vehicleMaxAge: 7 }],
  ["Redstone Bank Indirect", "bank", { minScore: 610, maxLtv: 110, maxTerm: 72, rateMargin: 0.75, acceptsBk7: true }],
  ["Cedar Valley Bank", "bank", { minScore: 670, maxLtv: 125 }],
  // Credit unions
  ["Mountain Lakes Federal Credit Union", "credit_union", { minScore: 640, maxLtv: 120 }],
  ["Public Servants Credit Union", "credit_union", { minScore: 600, maxLtv: 110, rateMargin: -0.5 }],
  ["Heartland Farmers Credit Union", "credit_union", { minScore: 650, maxLtv: 125, acceptsItin: false }],
  ["Millworkers Credit Union", "credit_union", { minScore: 580, maxLtv: 100, maxTerm: 72, rateMargin: 0 }],
  ["Bayview Federal Credit Union", "credit_union", { minScore: 680, maxLtv: 125, rateMargin: -1.25 }],
  ["Canyon State Credit Union", "credit_union", { minScore: 620, acceptsThinFile: false }],
  ["Evergreen Nurses Credit Union", "credit_union", { minScore: 660, maxLtv: 120 }],
  ["Union Rail Credit Union", "credit_union", { minScore: 600, maxLtv: 115, maxTerm: 75, rateMargin: -0.5 }],
  // Subprime finance companies
  ["Roadrunner Auto Finance", "subprime", { minScore: 520, maxScore: 700, maxLtv: 125 }],
  ["Milestone Acceptance Corp", "subprime", { minScore: 480, maxScore: 640, maxLtv: 115, rateMargin: 1.5 }],
  ["Brightpath Auto Credit", "subprime", { minScore: 540, maxScore: 720, maxLtv: 125, rateMargin: 0.5, maxTerm: 75 }],
  ["Open Road Finance", "subprime", { minScore: 500, maxScore: 660, acceptsRepo: false }],
  ["Cornerstone Auto Acceptance", "subprime", { minScore: 460, maxScore: 640, maxLtv: 110, maxTerm: 66, rateMargin: 2.0 }],
  ["Fairway Auto Capital", "subprime", { minScore: 520, maxScore: 680, acceptsBk7: false }],
  ["Turnpike Acceptance", "subprime", { minScore: 500, maxScore: 700, maxLtv: 130, vehicleMaxMiles: 100_000 }],
  ["Signal Auto Finance", "subprime", { minScore: 480, maxScore: 660, acceptsThinFile: false, rateMargin: 1.25 }],
  ["Lodestar Motor Credit", "subprime", { minScore: 540, maxScore: 700, maxLtv: 120, acceptsItin: true }],
  // Specialty (BK, ITIN, deep subprime)
  ["New Chapter Auto Finance", "specialty", { minScore: 300, maxScore: 660, maxLtv: 115, rateAdd: { bk13: 2.5, bk7: 1.0 } }],
  ["Bridgeway ITIN Auto Loans", "specialty", { minScore: 300, maxScore: 760, maxLtv: 100, acceptsBk13: false, rateMargin: 0.5 }],
  ["Phoenix Rebuild Credit", "specialty", { minScore: 300, maxScore: 600, maxLtv: 105, rateMargin: 2.0 }],
  ["Clear Slate Acceptance", "specialty", { minScore: 350, maxScore: 640, acceptsItin: false }],
  ["Trustee-Ready Auto Finance", "specialty", { minScore: 300, maxScore: 680, maxLtv: 110, rateAdd: { bk13: 2.0 }, acceptsItin: false }],
  ["Passport Auto Lending", "specialty", { minScore: 300, maxScore: 720, maxLtv: 105, acceptsBk13: false, acceptsBk7: false }],
  // Buy-here-pay-here / in-house
  ["Main Street In-House Finance", "bhph", {}],
  ["Lot Line Buy Here Pay Here", "bhph", { maxLtv: 95, minDownPct: 25 }],
  ["Drive Today In-House", "bhph", { maxTerm: 42, rateMargin: 3.5 }],
  ["Keys Now Finance", "bhph", { maxScore: 580, maxLtv: 90 }],
];

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

export const LENDER_PROGRAM_ROWS: Program[] = PROGRAM_SPECS.map(([name, type, overrides]) => ({
  id: `lp_${slug(name)}`,
  name,
  type,
  ...TYPE_DEFAULTS[type],
  ...overrides,
}));

type TermLimit = InferSelectModel<typeof lenderTermLimits>;
type Rung = Omit<TermLimit, "programId">;

const PRIME_84 =
  "Cooperative CU loan rates (cooperativecu.com): 84 months from $25,000, on newer units under 45,000 miles (a credit-union rate sheet); age 3: engineering default";
const PRIME_72 =
  "Cooperative CU loan rates (cooperativecu.com): 72 months from $15,000, used 72 only on the 6 newest model years; > 100,000 mi ≤ 48: engineering default";
const PRIME_60 = "Engineering default: > 100,000 miles → 48 months at most";
const AMC = "American Motor Credit's subprime term by mileage (domestic figures)";

const PRIME_LADDER: Rung[] = [
  { maxTerm: 84, minAmount: 25_000, maxVehicleAge: 3, maxMileage: 45_000, source: PRIME_84 },
  { maxTerm: 72, minAmount: 15_000, maxVehicleAge: 6, maxMileage: 100_000, source: PRIME_72 },
  { maxTerm: 60, minAmount: 0, maxVehicleAge: null, maxMileage: 100_000, source: PRIME_60 },
  { maxTerm: 48, minAmount: 0, maxVehicleAge: null, maxMileage: null, source: PRIME_60 },
];

/**
 * Term ladders per lender type (docs/domain/lender-routing.md#term-limits): the
 * longest rung a deal meets is the longest term the program writes on it.
 */
const TERM_LADDERS: Record<LenderType, Rung[]> = {
  captive: PRIME_LADDER,
  bank: PRIME_LADDER,
  credit_union: PRIME_LADDER,
  subprime: [
    { maxTerm: 72, minAmount: 0, maxVehicleAge: null, maxMileage: 50_000, source: `${AMC}: 0–50,000 mi 72 months` },
    { maxTerm: 60, minAmount: 0, maxVehicleAge: null, maxMileage: 80_000, source: `${AMC}: 50–80,000 mi 60 months` },
    { maxTerm: 48, minAmount: 0, maxVehicleAge: null, maxMileage: 100_000, source: `${AMC}: 80–100,000 mi 48 months` },
    { maxTerm: 42, minAmount: 0, maxVehicleAge: null, maxMileage: null, source: `${AMC}: 100–120,000 mi 42 months` },
  ],
  specialty: [
    { maxTerm: 60, minAmount: 0, maxVehicleAge: null, maxMileage: 80_000, source: `${AMC}: up to 80,000 mi 60 months` },
    { maxTerm: 48, minAmount: 0, maxVehicleAge: null, maxMileage: 100_000, source: `${AMC}: 80–100,000 mi 48 months` },
    { maxTerm: 42, minAmount: 0, maxVehicleAge: null, maxMileage: 120_000, source: `${AMC}: 100–120,000 mi 42 months` },
    {
      maxTerm: 36,
      minAmount: 0,
      maxVehicleAge: null,
      maxMileage: null,
      source: "Engineering default: past American Motor Credit's 120,000-mile table, 36 months",
    },
  ],
  bhph: [{ maxTerm: 48, minAmount: 0, maxVehicleAge: null, maxMileage: null, source: "Engineering default: BHPH 48 months" }],
};

export const LENDER_TERM_LIMIT_ROWS: TermLimit[] = LENDER_PROGRAM_ROWS.flatMap((p) =>
  TERM_LADDERS[p.type].map((rung) => ({ programId: p.id, ...rung })),
);

// ---------------------------------------------------------------------------------------------
// Stips: document rules, trigger matrix and default hours (docs/domain/stips.md)

export const STIP_TYPE_ROWS: InferInsertModel<typeof stipTypes>[] = [
  ["Driver's license", "valid, unexpired, showing the current address (name-change document if needed)", 0.5, "planetmotorsfl.com"],
  ["Proof of insurance", "card or declarations page naming the lender as loss payee, before delivery", 2, "financeglass.com"],
  ["Proof of income", "most recent computer-generated pay stub with YTD earnings, issued within 40 days", 4, "Capital One, Proof of Income"],
  [
    "Pay stub",
    "computer-generated with YTD earnings and taxes, issued within 40 days; 90+ days on the job to count OT/bonus",
    4,
    "Capital One, Proof of Income",
  ],
  ["W-2", "prior-year W-2 or year-end stub between Jan 1 and Apr 15", 24, "Capital One, Proof of Income"],
  ["Proof of residence", "utility bill in the applicant's name dated within 30 days, matching the application address", 12, "autodirectms.com"],
  ["References", "5–6 personal references not living with the applicant (subprime); 3–5 elsewhere", 2, "carapprovalpro.pages.dev"],
  ["Bank statements", "3 most recent statements, all pages and transactions", 24, "autodirectms.com; Capital One, Proof of Income"],
  ["Tax returns", "2 years of returns with Schedule C (self-employed 2+ years)", 72, "Capital One, Proof of Income"],
  ["Business license", "current license showing 2+ years in business", 24, "Engineering default (no public benchmark)"],
  ["Award letter", "current award letter plus the latest bank statement showing the deposit", 48, "help.motolease.net"],
  ["ITIN letter", "IRS ITIN assignment letter (CP565); number is 9 digits starting with 9", 48, "financeglass.com"],
  ["Passport or consular ID", "unexpired passport or consular ID matching the application name", 2, "financeglass.com"],
  ["Down payment proof", "cashier's check or transfer receipt for the full down payment", 4, "financeglass.com"],
  ["BK discharge papers", "Chapter 7 discharge order", 48, "ntrial.com"],
  ["Trustee permission letter", "Chapter 13 trustee approval letter or court order authorising the new debt", 120, "ntrial.com"],
  ["Plan payment history", "Chapter 13 plan payment ledger showing on-time payments", 48, "Engineering default (no public benchmark)"],
  ["Proof deficiency paid", "letter or receipt showing the repo deficiency or charge-off balance paid", 48, "safefed.org auto loans"],
  ["Employment verification", "HR phone number the lender can call, or an employer letter on letterhead", 24, "autodirectms.com"],
  ["Co-signer documents", "co-signer's license, proof of income and proof of residence", 48, "Engineering default (no public benchmark)"],
].map(([stip, rule, turnaroundHours, source]) => ({
  stip: stip as string,
  rule: rule as string,
  turnaroundHours: turnaroundHours as number,
  source: source as string,
}));

type Rule = InferSelectModel<typeof stipRules>;
const rules: Omit<Rule, "id">[] = [];
const rule = (
  triggerKind: Rule["triggerKind"],
  triggerValue: string,
  priority: Rule["priority"],
  stips: string[],
  replaces: string | null = null,
  season: { activeFrom: string; activeUntil: string } | null = null,
) => {
  for (const stip of stips)
    rules.push({
      triggerKind,
      triggerValue,
      lenderType: null,
      stip,
      priority,
      replaces,
      activeFrom: season?.activeFrom ?? null,
      activeUntil: season?.activeUntil ?? null,
    });
};
const REQUIRED = "required" as const;
const LIKELY = "likely" as const;

for (const tier of ["subprime", "deep_subprime"]) {
  rule("tier", tier, REQUIRED, ["Proof of income", "Proof of residence", "Driver's license", "Proof of insurance"]);
  rule("tier", tier, LIKELY, ["References", "Bank statements"]);
}
rule("tier", "near_prime", REQUIRED, ["Proof of income", "Driver's license", "Proof of insurance"]);
rule("tier", "near_prime", LIKELY, ["Proof of residence"]);
for (const tier of ["prime", "super_prime"]) {
  rule("tier", tier, REQUIRED, ["Driver's license", "Proof of insurance"]);
  rule("tier", tier, LIKELY, ["Proof of income"]);
}
rule("income_type", "w2", REQUIRED, ["Pay stub"], "Proof of income");
// Tax season only (Capital One, Proof of Income: "Jan 1–Apr 15 also prior-year W-2"); set by migration 0014.
rule("income_type", "w2", LIKELY, ["W-2"], null, { activeFrom: "01-01", activeUntil: "04-15" });
rule("income_type", "self_employed", REQUIRED, ["Bank statements"], "Proof of income");
rule("income_type", "self_employed", LIKELY, ["Tax returns", "Business license"]);
rule("income_type", "fixed", REQUIRED, ["Award letter"], "Proof of income");
rule("income_type", "fixed", LIKELY, ["Bank statements"]);
for (const kind of ["income_type", "issue"] as const) {
  rule(kind, "itin", REQUIRED, ["ITIN letter", "Passport or consular ID", "Proof of income", "Proof of residence"]);
  rule(kind, "itin", LIKELY, ["References", "Down payment proof"]);
}
rule("issue", "bk7", REQUIRED, ["BK discharge papers"]);
rule("issue", "bk7", LIKELY, ["Proof of income", "Proof of residence"]);
rule("issue", "bk13", REQUIRED, ["Trustee permission letter"]);
rule("issue", "bk13", LIKELY, ["Plan payment history"]);
for (const issue of ["repo", "charge_off"]) {
  rule("issue", issue, REQUIRED, ["Proof of income", "Proof of residence", "References"]);
  rule("issue", issue, LIKELY, ["Proof deficiency paid"]);
}
rule("issue", "thin_file", REQUIRED, ["Proof of income", "Proof of residence", "References"]);
rule("issue", "thin_file", LIKELY, ["Employment verification", "Co-signer documents"]);
// Finance companies verify references and residence on every deal (carapprovalpro.pages.dev: 5–6 references for subprime).
for (const lenderType of ["subprime", "specialty", "bhph"] as const) {
  rules.push({
    triggerKind: "lender_type",
    triggerValue: lenderType,
    lenderType,
    stip: "References",
    priority: REQUIRED,
    replaces: null,
    activeFrom: null,
    activeUntil: null,
  });
  rules.push({
    triggerKind: "lender_type",
    triggerValue: lenderType,
    lenderType,
    stip: "Employment verification",
    priority: LIKELY,
    replaces: null,
    activeFrom: null,
    activeUntil: null,
  });
}

/** Lender routing's ranking figures (engineering defaults), as migration 0014 ships them. */
export const LENDER_ROUTING_SETTINGS_ROW: InferSelectModel<typeof lenderRoutingSettings> = {
  id: "default",
  approvalBucketHigh: 0.8,
  approvalBucketLow: 0.5,
  downTierScoreMargin: 40,
  approvalEvidenceZ: 1.2816,
  source:
    'Engineering default ranking (buckets ≥ 0.8 / 0.5–0.8 / < 0.5; down-tier = score ≥ program ceiling + 40); down-tier placement as steering: Center for Responsible Lending, "Under the Hood" (2011)',
};

export const STIP_RULE_ROWS: Rule[] = rules.map((r, i) => ({ id: `sr_${String(i + 1).padStart(3, "0")}`, ...r }));

// ---------------------------------------------------------------------------------------------
// F&I products (docs/domain/deal-coach.md)

export const FI_PRODUCT_ROWS: InferSelectModel<typeof fiProducts>[] = [
  {
    product: "vsc",
    label: "Vehicle service contract",
    penetrationNew: 0.45,
    penetrationUsed: 0.48,
    penetrationHighLtv: null,
    financedOnly: false,
    typicalProfit: 1000,
    objection: "I never buy warranties.",
    source: "F&I Magazine (NADA 2018): 45.7% new / 47.6% used; example cost $800 / sell $1,800 (cardealershipguy)",
    highLtvPct: null,
  },
  {
    product: "gap",
    label: "GAP protection",
    penetrationNew: 0.35,
    penetrationUsed: 0.35,
    penetrationHighLtv: 0.45,
    financedOnly: true,
    typicalProfit: 561,
    objection: "GAP is a scam.",
    source:
      "F&I Magazine 2012: 34.9% (2011); 38.5% franchised 2023 (gitnux.org); 0.45 when LTV > 110%: engineering default; example cost $189 / sell $750 (cardealershipguy)",
    highLtvPct: 110,
  },
  {
    product: "tire_wheel",
    label: "Tire & wheel",
    penetrationNew: 0.22,
    penetrationUsed: 0.22,
    penetrationHighLtv: null,
    financedOnly: false,
    typicalProfit: 312,
    objection: "I don't want to add to my payment.",
    source: "gitnux.org: ~22% (2023); ~$312 profit per unit sold",
    highLtvPct: null,
  },
  {
    product: "prepaid_maintenance",
    label: "Prepaid maintenance",
    penetrationNew: 0.2,
    penetrationUsed: 0.2,
    penetrationHighLtv: null,
    financedOnly: false,
    typicalProfit: 350,
    objection: "I'll just pay for oil changes as I go.",
    source: "F&I Magazine 2012 (prepaid maintenance gaining); penetration 0.20 and profit: engineering defaults",
    highLtvPct: null,
  },
  {
    product: "appearance",
    label: "Appearance protection (paint & fabric)",
    penetrationNew: 0.15,
    penetrationUsed: 0.15,
    penetrationHighLtv: null,
    financedOnly: false,
    typicalProfit: 400,
    objection: "I keep my cars clean.",
    source: "F&I Magazine 2012: most other products below 20%; 0.15 and profit: engineering defaults",
    highLtvPct: null,
  },
  {
    product: "theft_etch",
    label: "Theft deterrent / etch",
    penetrationNew: 0.15,
    penetrationUsed: 0.15,
    penetrationHighLtv: null,
    financedOnly: false,
    typicalProfit: 200,
    objection: "My insurance covers theft.",
    source: "F&I Magazine 2012: 'penetrated well'; 0.15 and profit: engineering defaults",
    highLtvPct: null,
  },
  {
    product: "key_replacement",
    label: "Key replacement",
    penetrationNew: 0.12,
    penetrationUsed: 0.12,
    penetrationHighLtv: null,
    financedOnly: false,
    typicalProfit: 250,
    objection: "I've never lost a key.",
    source: "F&I Magazine 2012 (most other products below 20%); 0.12 and profit: engineering defaults",
    highLtvPct: null,
  },
];

const TRACK_RULE = "docs/domain/deal-coach.md#word-track-truth-rule";
const REPAIR_COST = "one major repair commonly runs $2,000–$4,000";

/**
 * Objection word tracks (content, not researched facts: editable templates).
 * `{name}` placeholders are facts of the deal the coach fills in; a track whose claim the deal
 * does not bear out is not sent. Per product the lowest `rank` that is true wins.
 */
export const FI_WORD_TRACK_ROWS: InferSelectModel<typeof fiWordTracks>[] = [
  {
    id: "gap_owes_more_than_worth",
    product: "gap",
    claim: "owes_more_than_worth",
    rank: 10,
    template:
      "Let's look at your numbers: you'd owe {amount_financed} on a {vehicle_price} car, {amount_over_value} more than it's worth today (LTV {ltv}). If it's totaled or stolen, insurance pays the car's value, not the loan, and GAP pays the difference so you're not making payments on a car you don't have.",
    source: `${TRACK_RULE} (FTC Act §5: only when LTV > 100% or the trade carried negative equity)`,
  },
  {
    id: "gap_negative_equity_rolled",
    product: "gap",
    claim: "negative_equity_rolled",
    rank: 20,
    template:
      "Let's look at your numbers: the {negative_equity} still owed on your trade is rolled into this loan. If the car is totaled or stolen, insurance pays the car's value, not what's owed on it, and GAP pays the difference so you're not making payments on a car you don't have.",
    source: `${TRACK_RULE} (FTC Act §5: only when LTV > 100% or the trade carried negative equity)`,
  },
  {
    id: "gap_balance_ahead_of_value",
    product: "gap",
    claim: "balance_ahead_of_value",
    rank: 30,
    template:
      "Let's look at your numbers: a year into this {term}-month loan you'd still owe about {balance_after_year}, while a car like this is worth about {value_after_year} by then on average. If it's totaled or stolen while the balance runs ahead of the value, insurance pays the value, not the loan, and GAP pays the difference.",
    source: `${TRACK_RULE} (balance after 12 payments against the average depreciation curve, KBB depreciation calculator)`,
  },
  {
    id: "vsc_coverage_remaining",
    product: "vsc",
    claim: "coverage_remaining",
    rank: 5,
    template: `Totally fair. This car's {coverage} has about {coverage_left} left, whichever comes first; after that, ${REPAIR_COST}. This picks up where it ends and caps a covered repair at your deductible.`,
    source: `${TRACK_RULE} (the remaining factory or CPO warranty the request states; a certified unit is never told its coverage is over)`,
  },
  {
    id: "vsc_coverage_ends_soon",
    product: "vsc",
    claim: "coverage_ends_soon",
    rank: 10,
    template: `Totally fair. This car's factory {coverage} coverage ({coverage_term}) ends in about {coverage_left}, whichever comes first; ${REPAIR_COST} after that. This caps a covered repair at your deductible.`,
    source: `${TRACK_RULE} (FTC Act §5: "ends soon" only within ~12 months/12,000 miles of the basic or powertrain warranty)`,
  },
  {
    id: "vsc_coverage_ends_later",
    product: "vsc",
    claim: "coverage_ends_later",
    rank: 20,
    template: `Totally fair. It's under factory {coverage} coverage today; after the factory coverage ends at {coverage_term}, ${REPAIR_COST}. This picks up there and caps a covered repair at your deductible.`,
    source: `${TRACK_RULE} (FTC Act §5: otherwise "after the factory coverage ends at …")`,
  },
  {
    id: "vsc_coverage_ended",
    product: "vsc",
    claim: "coverage_ended",
    rank: 30,
    template: `Totally fair. {coverage_ended_at} this car is past its factory coverage ({coverage_terms}), so repairs are yours from day one; ${REPAIR_COST}. This caps a covered repair at your deductible.`,
    source: `${TRACK_RULE} (FTC Act §5: a statement that cannot be true for the deal is not sent)`,
  },
  {
    id: "vsc_no_deal_fact",
    product: "vsc",
    claim: "no_deal_fact",
    rank: 90,
    template: `Totally fair. Once factory coverage runs out, repairs are yours; ${REPAIR_COST}. This caps a covered repair at your deductible.`,
    source: `${TRACK_RULE} (no vehicle year or mileage: no coverage-timing claim)`,
  },
  {
    id: "tire_wheel_no_deal_fact",
    product: "tire_wheel",
    claim: "no_deal_fact",
    rank: 90,
    template:
      "I hear you. One bent wheel and tire from a pothole commonly runs $400 or more out of pocket; let's look at what this costs per day against that.",
    source: `${TRACK_RULE} (NADA's model F&I menu policy, F&I Magazine 2019: "I don't want to add to my payment" → show cost per day)`,
  },
  {
    id: "prepaid_maintenance_no_deal_fact",
    product: "prepaid_maintenance",
    claim: "no_deal_fact",
    rank: 90,
    template:
      "You will pay for them either way; this locks today's prices for the services the car needs and keeps the service record the next buyer pays more for.",
    source: TRACK_RULE,
  },
  {
    id: "appearance_no_deal_fact",
    product: "appearance",
    claim: "no_deal_fact",
    rank: 90,
    template: "That's exactly who it's for: it keeps the finish and seats at trade-in condition, which is worth more than its cost when you sell.",
    source: TRACK_RULE,
  },
  {
    id: "theft_etch_no_deal_fact",
    product: "theft_etch",
    claim: "no_deal_fact",
    rank: 90,
    template:
      "It does, after the deductible; etch makes the car a worse target and pays toward your deductible and replacement if it's stolen anyway.",
    source: TRACK_RULE,
  },
  {
    id: "key_replacement_no_deal_fact",
    product: "key_replacement",
    claim: "no_deal_fact",
    rank: 90,
    template: "Good, and a modern smart key commonly costs $300–$600 to replace and program; this covers the keys on the car for the product's term.",
    source: TRACK_RULE,
  },
];

/** The common factory terms and the ~12-month/12,000-mile "ends soon" window (engineering default). */
export const FACTORY_WARRANTY_ROWS: InferSelectModel<typeof factoryWarrantyTerms>[] = [
  {
    coverage: "basic",
    label: "bumper-to-bumper",
    months: 36,
    miles: 36_000,
    endsSoonMonths: 12,
    endsSoonMiles: 12_000,
    source:
      'Basic coverage commonly 3 yr/36,000 mi (manufacturers\' published warranties); "ends soon" within ~12 months/12,000 miles: engineering default',
  },
  {
    coverage: "powertrain",
    label: "powertrain",
    months: 60,
    miles: 60_000,
    endsSoonMonths: 12,
    endsSoonMiles: 12_000,
    source:
      'Powertrain coverage commonly 5 yr/60,000 mi (manufacturers\' published warranties); "ends soon" within ~12 months/12,000 miles: engineering default',
  },
];

/** The rows the demo generator draws the lender history against (the Worker reads the same rows from D1). */
export const DEMO_DEAL_DESK_REFERENCE: DemoDealDeskReference = {
  tiers: CREDIT_TIER_ROWS as DemoDealDeskReference["tiers"],
  programs: LENDER_PROGRAM_ROWS as DemoDealDeskReference["programs"],
  stipRules: STIP_RULE_ROWS as DemoDealDeskReference["stipRules"],
  stipTypes: STIP_TYPE_ROWS as DemoDealDeskReference["stipTypes"],
};
