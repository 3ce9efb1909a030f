/**
 * The appraisal audit (docs/domain/appraisal.md#the-audit) in one command: `npm run appraisal:audit`.
 * Applies every migration to an in-memory D1 (wrangler's own Miniflare), loads the shipped reference rows as
 * the service does, prices each trade with the engine (no comparables, Summit Auto North's economics, ZIP
 * 80234, the golden tests' date) and prints the table and its counts as the rules page shows them. A trade's
 * "judged against" is what a manager reads it against: a published figure, an unverified one (a typical
 * asking price, or a listing average that is not the model year's own), or the rule its notes invoke. The
 * counts say how many overrules stand against published figures: a verdict against a guess proves nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { getDb } from "../src/db/client";
import { loadAppraisalReference } from "../src/db/queries/appraisal";
import { appraise } from "../src/engines/appraisal/appraise";
import type { AppraisalSubject, StoreEconomics } from "../src/engines/appraisal/types";
import { REPO_ROOT } from "./lib/repo-root";

const wranglerRequire = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));

const NOW = new Date("2026-11-26T12:00:00Z");
/** Summit Auto North's economics: the `stores` column defaults, as the demo seeds them. */
const STORE: StoreEconomics = {
  name: "Summit Auto North",
  marketZip: "80234",
  packUsed: 500,
  holdingCostPerDay: 35,
  holdingHighValueCost: 30_000,
  holdingHighValueDailyPct: 0.1,
  targetFrontGrossUsedPct: 8,
  targetFrontGrossUsedMin: 1_200,
};

/** A figure the market value is read against (published, or not), or the rule the notes invoke. */
type Judged = { figure: number; what: string; published: boolean } | { rule: string };

interface Trade {
  subject: AppraisalSubject;
  judged: Judged;
  /** How the trade reads in the table when the subject alone does not say it (a VIN's trim list). */
  label?: string;
}

const unverified = (figure: number, what: string): Judged => ({ figure, what: `${what}, unverified`, published: false });
const typical = (figure: number): Judged => unverified(figure, "typical asking");
const published = (figure: number, what: string): Judged => ({ figure, what: `published: ${what}`, published: true });
/** badvin.com's model-year pages carry one price series per model, relabelled by year: not the model year's own. */
const badvin = (figure: number, what: string): Judged => unverified(figure, `badvin ${what}, one series per model`);
const rule: Judged = { rule: "the rule for the notes" };
const unit = (year: number, make: string, model: string, trim: string | undefined, mileage: number, conditionNotes = "clean") => ({
  year,
  make,
  model,
  ...(trim ? { trim } : {}),
  mileage,
  conditionNotes,
});

const TRADES: Trade[] = [
  // The issue's own twelve.
  { subject: unit(2018, "Porsche", "911", "Carrera S", 25_000, "garage kept"), judged: typical(100_000) },
  { subject: unit(2021, "Jeep", "Wrangler", "Sport", 38_000), judged: typical(28_500) },
  { subject: unit(2015, "Chevrolet", "Silverado 2500", "Duramax", 140_000), judged: typical(33_000) },
  { subject: unit(2018, "Honda", "Civic", undefined, 160_000), judged: typical(13_000) },
  { subject: unit(2016, "Toyota", "Prius", undefined, 120_000), judged: typical(14_000) },
  { subject: unit(2015, "Zastava", "Yugo 45", undefined, 60_000, "runs"), judged: rule },
  { subject: unit(2012, "Toyota", "Camry", undefined, 90_000, "possible rollback, Carfax shows 128k in 2019"), judged: rule },
  { subject: unit(2016, "Ford", "F-250", "Lariat Power Stroke", 150_000, "TMU title"), judged: rule },
  { subject: unit(2019, "Toyota", "Camry", "SE", 60_000, "hail damage on hood, roof and trunk, dozens of dents"), judged: rule },
  { subject: unit(2014, "Toyota", "Prius", undefined, 150_000, "hybrid battery weak, needs battery"), judged: rule },
  { subject: unit(2017, "Honda", "Accord", undefined, 90_000, "brakes and rotors front and rear"), judged: rule },
  { subject: unit(2010, "Toyota", "Camry", undefined, 230_000, "runs and drives"), judged: rule },
  // Against published figures (the four badvin averages are not a model year's own: unverified).
  { subject: unit(2014, "Mazda", "CX-5", "Touring", 144_000), judged: published(12_522, "Edmunds dealer retail") },
  { subject: unit(2016, "Chevrolet", "Cruze Limited", "1LT", 120_000), judged: published(10_053, "Edmunds dealer retail") },
  { subject: unit(2012, "Toyota", "Tacoma", "Double Cab", 168_000), judged: published(14_132, "Edmunds dealer retail") },
  { subject: unit(2016, "Ford", "Mustang", "GT", 120_000), judged: published(23_512, "Edmunds dealer retail") },
  { subject: unit(2019, "Tesla", "Model 3", "Performance", 70_000), judged: published(21_196, "KBB private party") },
  { subject: unit(2021, "Subaru", "Forester", undefined, 55_000), judged: published(17_514, "KBB private party") },
  { subject: unit(2020, "Tesla", "Model X", "Long Range", 70_000), judged: published(28_962, "KBB private party") },
  { subject: unit(2021, "Ford", "F-150", "XLT", 47_000), judged: badvin(33_798, "2025 avg, all trims") },
  { subject: unit(2021, "Kia", "Telluride", "EX", 58_000), judged: badvin(33_986, "2025 avg") },
  { subject: unit(2020, "Kia", "Forte", "LXS", 59_000), judged: badvin(16_199, "2025 avg") },
  { subject: unit(2020, "Kia", "Sportage", "LX", 57_000), judged: badvin(18_991, "2025 avg") },
  // Against typical asking prices.
  { subject: unit(2019, "Toyota", "Camry", "SE", 70_000), judged: typical(20_500) },
  { subject: unit(2022, "Toyota", "RAV4", "XLE", 35_000), judged: typical(28_000) },
  { subject: unit(2023, "Honda", "CR-V", "EX", 20_000), judged: typical(31_000) },
  { subject: unit(2018, "Honda", "Accord", "Sport", 85_000), judged: typical(19_000) },
  { subject: unit(2020, "Toyota", "Corolla", "LE", 50_000), judged: typical(18_500) },
  { subject: unit(2017, "Ford", "Fusion", "SE", 95_000), judged: typical(11_500) },
  { subject: unit(2019, "Nissan", "Altima", "2.5 S", 70_000), judged: typical(15_500) },
  { subject: unit(2021, "Hyundai", "Elantra", "SEL", 40_000), judged: typical(17_500) },
  { subject: unit(2015, "Honda", "CR-V", "EX", 130_000), judged: typical(13_000) },
  { subject: unit(2018, "Toyota", "Highlander", "XLE", 90_000), judged: typical(25_000) },
  { subject: unit(2020, "Honda", "Pilot", "EX-L", 70_000), judged: typical(27_000) },
  { subject: unit(2022, "Ford", "Explorer", "XLT", 40_000), judged: typical(30_000) },
  { subject: unit(2019, "Chevrolet", "Tahoe", "LT", 80_000), judged: typical(36_000) },
  { subject: unit(2020, "Chevrolet", "Silverado 1500", "LT", 70_000), judged: typical(33_000) },
  { subject: unit(2019, "Ram", "1500", "Big Horn", 75_000), judged: typical(29_000) },
  { subject: unit(2018, "Toyota", "Tacoma", "SR5", 80_000), judged: typical(28_000) },
  { subject: unit(2022, "Toyota", "Tundra", "SR5", 30_000), judged: typical(42_000) },
  { subject: unit(2021, "Ford", "Ranger", "XLT", 45_000), judged: badvin(32_500, "2025 avg at 30,816 mi") },
  { subject: unit(2023, "Ford", "F-150 Lightning", "Lariat", 15_000), judged: typical(45_000) },
  { subject: unit(2022, "Chevrolet", "Bolt EV", "LT", 30_000), judged: typical(17_500) },
  { subject: unit(2021, "Ford", "Mustang Mach-E", "Premium", 35_000), judged: typical(26_000) },
  { subject: unit(2023, "Hyundai", "Ioniq 5", "SEL", 20_000), judged: typical(30_000) },
  { subject: unit(2022, "Toyota", "Prius", "LE", 40_000), judged: typical(24_000) },
  { subject: unit(2021, "Toyota", "RAV4 Hybrid", "XLE", 45_000), judged: typical(30_000) },
  { subject: unit(2020, "Honda", "Accord Hybrid", undefined, 60_000), judged: typical(22_000) },
  { subject: unit(2019, "Mazda", "MX-5 Miata", "Club", 30_000), judged: typical(24_000) },
  { subject: unit(2020, "Ford", "Mustang", "EcoBoost", 45_000), judged: typical(21_000) },
  { subject: unit(2018, "Dodge", "Challenger", "R/T", 60_000), judged: typical(25_000) },
  { subject: unit(2017, "Chevrolet", "Camaro", "SS", 50_000), judged: typical(30_000) },
  { subject: unit(2022, "Subaru", "WRX", undefined, 20_000), judged: typical(30_000) },
  { subject: unit(2019, "BMW", "330i", undefined, 60_000), judged: typical(23_000) },
  { subject: unit(2020, "Mercedes-Benz", "GLC 300", undefined, 50_000), judged: typical(28_000) },
  { subject: unit(2018, "Lexus", "RX 350", undefined, 80_000), judged: typical(29_000) },
  { subject: unit(2017, "Audi", "Q5", "Premium", 90_000), judged: typical(17_000) },
  { subject: unit(2021, "Cadillac", "Escalade", "Premium Luxury", 50_000), judged: typical(62_000) },
  { subject: unit(2016, "Jeep", "Grand Cherokee", "Laredo", 110_000), judged: typical(14_500) },
  { subject: unit(2019, "Subaru", "Outback", undefined, 90_000, "salvage title"), judged: rule },
  { subject: unit(2018, "Honda", "Civic", "LX", 70_000, "frame damage"), judged: rule },
  { subject: unit(2017, "Toyota", "Camry", undefined, 100_000, "flood damage"), judged: rule },
  { subject: unit(2020, "Toyota", "Corolla", undefined, 60_000, "check engine light on, bald tires, cracked windshield"), judged: rule },
  { subject: unit(2019, "Honda", "Odyssey", "EX-L", 80_000, "smells of smoke, stains on seats"), judged: typical(25_000) },
  { subject: unit(2021, "Nissan", "Rogue", "SV", 40_000, "3 door dings, scratches on bumper and fender"), judged: typical(22_000) },
  { subject: unit(2014, "Ford", "F-150", "XLT", 160_000), judged: typical(16_000) },
  { subject: unit(2011, "Honda", "Accord", "EX", 180_000), judged: typical(8_000) },
  { subject: unit(2013, "Toyota", "4Runner", "SR5", 170_000), judged: typical(19_000) },
  { subject: unit(2023, "Kia", "Telluride", "SX", 15_000), judged: typical(45_000) },
  { subject: unit(2024, "Toyota", "Camry", "SE", 10_000), judged: typical(29_000) },
  {
    subject: unit(2022, "Tesla", "Model Y", "Long Range", 40_000),
    judged: published(26_335, "iSeeCars via jalopnik.com 2025, a 3-year-old (2022) lost 56.1%, $33,653"),
  },
  { subject: unit(2021, "Ford", "F-150", "Lariat", 60_000), judged: typical(38_000) },
  { subject: unit(2020, "Honda", "Civic", "EX", 55_000), judged: typical(20_500) },
  { subject: unit(2020, "Subaru", "Outback", "Premium", 60_000), judged: typical(22_500) },
  { subject: unit(2020, "Kia", "Telluride", "SX", 55_000), judged: typical(32_000) },
  { subject: unit(2022, "Tesla", "Model 3", "Long Range", 40_000), judged: typical(27_000) },
  {
    subject: { ...unit(2017, "Toyota", "Tacoma", undefined, 90_000), decodedTrims: ["SR", "SR5", "TRD Off Road", "TRD Sport", "TRD Pro"] },
    judged: { rule: "the trim list" },
    label: '2017 Toyota Tacoma (VIN 5TFCZ5CN6HX123456: "SR/SR5/TRD Off Road/TRD Sport/TRD Pro") 90000 clean',
  },
  // 2026-11-29, issue 33: the models the new figures and prices reach, and more classes, ages and conditions.
  { subject: unit(2020, "Audi", "Q7", "Premium", 55_000), judged: published(23_685, "iSeeCars Q7 page 2025, a 5-year-old (2020)") },
  { subject: unit(2016, "Audi", "Q7", "Premium Plus", 110_000), judged: typical(13_500) },
  { subject: unit(2019, "Lexus", "RX 350", undefined, 70_000), judged: typical(30_000) },
  { subject: unit(2014, "Lexus", "RX 350", undefined, 140_000), judged: typical(15_000) },
  { subject: unit(2020, "Toyota", "RAV4", "LE", 70_000), judged: published(20_398, "iSeeCars via jalopnik.com 2025, a 2020 at 5 years") },
  { subject: unit(2015, "Toyota", "RAV4", "XLE", 120_000), judged: typical(13_000) },
  { subject: unit(2019, "Chevrolet", "Bolt EV", "LT", 60_000), judged: typical(14_000) },
  { subject: unit(2023, "Chevrolet", "Bolt EV", "1LT", 20_000), judged: typical(19_000) },
  { subject: unit(2019, "Audi", "Q5", "Premium Plus", 60_000), judged: typical(24_000) },
  { subject: unit(2020, "Cadillac", "Escalade", "Luxury", 65_000), judged: published(37_899, "KBB value, jalopnik.com 2025") },
  { subject: unit(2021, "Toyota", "Tacoma", "SR", 60_000), judged: published(26_600, "KBB resale, jalopnik.com 2026") },
  { subject: unit(2018, "Toyota", "Prius", "Four Touring", 85_000), judged: published(18_484, "KBB private party") },
  { subject: unit(2013, "Toyota", "Prius Plug-in", "Advanced", 110_000), judged: published(10_533, "KBB private party") },
  { subject: unit(2020, "Jeep", "Wrangler", "Recon", 60_000), judged: published(31_290, "KBB resale, usnfix.com 2025") },
  { subject: unit(2024, "Kia", "K5", "LXS", 15_000), judged: typical(23_000) },
  { subject: unit(2025, "Honda", "Accord", "EX", 8_000), judged: typical(29_000) },
  { subject: unit(2019, "Audi", "Q7", "Premium", 80_000, "hail damage on roof and hood"), judged: rule },
  { subject: unit(2017, "Chevrolet", "Bolt EV", "Premier", 90_000, "battery weak, needs battery"), judged: rule },
  { subject: unit(2020, "Toyota", "RAV4 Hybrid", "XLE", 60_000, "check engine light on"), judged: rule },
  { subject: unit(2012, "Lexus", "RX 350", undefined, 160_000, "smells of smoke"), judged: rule },
];

/** The reason a `low` answer names, in a word or two (the note says it in full). */
const REASONS: [RegExp, string][] = [
  [/demand for the model, not a curve/, "outlier model"],
  [/is not in the model table|maker code/, "unknown model"],
  [/years old and no published figure/, "older unit"],
  [/^borrowed retention/, "borrowed retention"],
  [/or its make measures how it keeps its value/, "class curve only"],
  [/trim priced above its class/, "trim above class"],
  [/the VIN does not tell/, "decoded trim list"],
  [/odometer/i, "odometer"],
  [/salvage/i, "salvage title"],
  [/frame/i, "frame damage"],
  [/flood/i, "flood"],
];

const usd = (n: number) => `$${n.toLocaleString("en-US")}`;

async function loadReference() {
  const { Miniflare, convertV4MiniflareOptions } = wranglerRequire("miniflare");
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: "export default { fetch() { return new Response(null, { status: 404 }); } };",
      compatibilityDate: "2026-11-01",
      d1Databases: { DB: "appraisal-audit" },
    }),
  );
  const d1: D1Database = await mf.getD1Database("DB");
  const migrations = path.join(REPO_ROOT, "migrations");
  for (const name of readdirSync(migrations)
    .filter((file) => file.endsWith(".sql"))
    .sort()) {
    // drizzle-kit's breakpoints split a file into the statements D1 runs one by one.
    const statements = readFileSync(path.join(migrations, name), "utf8")
      .split("--> statement-breakpoint")
      .map((sql) => sql.trim())
      .filter(Boolean);
    await d1.batch(statements.map((sql) => d1.prepare(sql)));
  }
  // No organization has rows of its own: the shipped defaults.
  const reference = await loadAppraisalReference(getDb(d1), "appraisal-audit");
  await mf.dispose();
  return reference;
}

async function main() {
  const reference = await loadReference();
  const counts = { signs: 0, "honest check": 0, overrules: 0 };
  let overrulesAgainstPublished = 0;
  console.log(
    "| # | Trade (year make model trim, miles, notes) | Market value | Max acquisition | Confidence | Reason (and recon where named) | Judged against | Verdict |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  TRADES.forEach(({ subject, judged, label }, i) => {
    const result = appraise({ subject, marketZip: STORE.marketZip, store: STORE, reference, comps: [], photos: { status: "none" }, now: NOW });
    const reasons = [
      ...new Set(result.manualInspectionReasons.map((text) => REASONS.find(([pattern]) => pattern.test(text))?.[1] ?? text.slice(0, 40))),
    ];
    const recon = result.recon.total > 0 && subject.conditionNotes !== "clean" ? ` (recon ${usd(result.recon.total)})` : "";
    const confidence = `${result.confidence}${result.appraisedTo === "wholesale" ? ", wholesale" : ""}`;
    let against: string;
    let verdict: keyof typeof counts;
    if ("rule" in judged) {
      against = judged.rule;
      verdict = result.confidence === "low" ? "honest check" : "signs";
    } else {
      const off = result.marketValue / judged.figure - 1;
      against = `${usd(judged.figure)} (${judged.what}) ${off >= 0 ? "+" : "-"}${Math.round(Math.abs(off) * 100)}%`;
      verdict = result.confidence === "low" ? "honest check" : Math.abs(off) <= 0.15 ? "signs" : "overrules";
      if (verdict === "overrules" && judged.published) overrulesAgainstPublished++;
    }
    counts[verdict]++;
    const name =
      label ?? [subject.year, subject.make, subject.model, subject.trim, subject.mileage, subject.conditionNotes].filter(Boolean).join(" ");
    console.log(
      `| ${i + 1} | ${name} | ${usd(result.marketValue)} | ${usd(result.maxAcquisition)} | ${confidence} | ${reasons.join("; ") || "—"}${recon} | ${against} | ${verdict} |`,
    );
  });
  console.log(
    `\n**Counts: ${counts.signs} sign, ${counts["honest check"]} honest checks, ${counts.overrules} overrule** (${TRADES.length} trades; ` +
      `${overrulesAgainstPublished} of the overrules against a published figure, ${counts.overrules - overrulesAgainstPublished} against an unverified one).`,
  );
}

await main();
