/**
 * Deterministic demo data for local development, as literal `INSERT OR IGNORE` statements.
 *
 * Pure on purpose (no node:, no fs, no process): the seed script runs it in Node and the tests
 * run it inside workerd. Every id is fixed and every random draw comes from a stream seeded by a
 * constant, so the rows are a function of (reference date, credentials) only and a rerun on any
 * later day inserts nothing. Figures follow the domain notes in docs/domain/ (cited below).
 */
import { getTableColumns, getTableName, type InferInsertModel } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { TEST_KEY_DAILY_LIMIT } from "../credentials/sandbox-limits";
import {
  type dealStips,
  type deals,
  type inventoryUnits,
  type lenderDecisions,
  stores as objectStores,
  type storeLenderPanel,
  type unitMarketValues,
} from "../db/org-schema";
import type { StoreSettingsRow } from "../db/queries/settings";
import { apiKeys, brokerTokens, legacyTokens, marketFeedEntries, marketObservations, organizations, staffUsers, stores } from "../db/schema";
import { DAY_MS } from "../engines/dates";
import { demoSourceLabel } from "../engines/reports/market";
import { checkDigitOf, modelYearCode } from "../engines/vehicle/vin";
import { type DemoDealDeskReference, dealDeskDemoRows } from "./demo-data-deal-desk";
import { marketObservationRows, unitMarketValueRows } from "./demo-data-reports";
import { Random } from "./random";

// ---------------------------------------------------------------------------------------------
// Public contract

export interface DemoOrgCredentials {
  /** sha256 hex of the `lak_` key. */
  apiKeyHash: string;
  apiKeyPrefix: string;
  brokerTokenHash: string;
  staffEmail: string;
  /** scrypt hash from `hashPassword`. */
  staffPasswordHash: string;
}

export interface DemoCredentials {
  summit: DemoOrgCredentials & { legacyTokenHash: string };
  lakeside: DemoOrgCredentials;
}

/** One organization to generate, with the hashes of the credentials it is seeded with. */
export interface DemoOrgSeed {
  organization: DemoOrganization;
  credentials: DemoOrgCredentials & { legacyTokenHash?: string };
  /** Generate it as a self-serve sandbox (docs/sandboxes.md), refused from this ISO time on. */
  sandbox?: { expiresAt: string };
}

export interface DemoSeedInput {
  /** YYYY-MM-DD; every date in the data is relative to it. */
  referenceDate: string;
  organizations: readonly DemoOrgSeed[];
  /** The deal desk's reference rows the lender history is drawn against (src/demo/demo-data-deal-desk.ts). */
  dealDeskReference: DemoDealDeskReference;
  /** Months of deal history (default DEAL_HISTORY_MONTHS); a sandbox takes fewer, to be created quickly. */
  historyMonths?: number;
  /**
   * The market feed and the public series' history belong to no organization; a sandbox created
   * in production must not add demo entries to them. Default true (the local seed, the tests).
   */
  sharedRows?: boolean;
}

export interface DemoSeedSummary {
  referenceDate: string;
  /** Rows the seed offers per table; existing rows are kept, so not necessarily rows inserted. */
  rowCounts: Record<string, number>;
}

type VehicleType = "car" | "truck" | "suv" | "van";
type Condition = "new" | "used" | "cpo";

interface DemoStore {
  id: string;
  name: string;
  primary: boolean;
  /** Prefix of stock and deal numbers, unique within the organization. */
  code: string;
  marketZip: string;
  /** New and CPO units come only from the store's franchises; used units are any make. */
  franchises: string[];
  inStockUnits: number;
  soldUnits: number;
  dealsPerMonth: number;
  conditionMix: Record<Condition, number>;
  settings: {
    packNew: number;
    packUsed: number;
    holdingCostPerDay: number;
    floorplanAprNew: number;
    floorplanAprUsed: number;
    recon: Record<VehicleType, number>;
    agedThresholdDays: number;
  };
}

export interface DemoOrganization {
  /** Short, unique among the seeded organizations: ids of keys, tokens and units are derived from it. */
  key: string;
  id: string;
  name: string;
  staffUser: { id: string; name: string };
  stores: DemoStore[];
}

/** Settings are the docs/domain/gross.md defaults with small per-store variations, so store-level math differs visibly. */
export const DEMO_ORGANIZATIONS: readonly DemoOrganization[] = [
  {
    key: "summit",
    id: "org_summit",
    name: "Summit Auto Group",
    staffUser: { id: "usr_summit_desk", name: "Dana Whitfield" },
    stores: [
      {
        id: "sto_summit_north",
        name: "Summit Auto North",
        primary: true,
        code: "N",
        marketZip: "80234",
        franchises: ["Toyota", "Honda"],
        inStockUnits: 175,
        soldUnits: 5,
        dealsPerMonth: 80,
        conditionMix: { new: 0.45, used: 0.4, cpo: 0.15 },
        settings: {
          packNew: 300,
          packUsed: 500,
          holdingCostPerDay: 35,
          floorplanAprNew: 7.0,
          floorplanAprUsed: 8.5,
          recon: { car: 1200, truck: 1400, suv: 1300, van: 1200 },
          agedThresholdDays: 45,
        },
      },
      {
        id: "sto_summit_south",
        name: "Summit Auto South",
        primary: false,
        code: "S",
        marketZip: "80126",
        franchises: ["Ford", "Chevrolet"],
        inStockUnits: 125,
        soldUnits: 4,
        dealsPerMonth: 50,
        conditionMix: { new: 0.3, used: 0.58, cpo: 0.12 },
        settings: {
          packNew: 350,
          packUsed: 550,
          holdingCostPerDay: 38,
          floorplanAprNew: 7.25,
          floorplanAprUsed: 8.75,
          recon: { car: 1150, truck: 1500, suv: 1350, van: 1250 },
          agedThresholdDays: 45,
        },
      },
    ],
  },
  {
    key: "lakeside",
    id: "org_lakeside",
    name: "Lakeside Motors",
    staffUser: { id: "usr_lakeside_gm", name: "Marcus Lindqvist" },
    stores: [
      {
        id: "sto_lakeside_main",
        name: "Lakeside Motors",
        primary: true,
        code: "L",
        marketZip: "53717",
        franchises: ["Subaru", "Hyundai"],
        inStockUnits: 150,
        soldUnits: 3,
        dealsPerMonth: 60,
        conditionMix: { new: 0.38, used: 0.5, cpo: 0.12 },
        settings: {
          packNew: 250,
          packUsed: 450,
          holdingCostPerDay: 32,
          floorplanAprNew: 6.9,
          floorplanAprUsed: 8.25,
          recon: { car: 1100, truck: 1350, suv: 1250, van: 1150 },
          agedThresholdDays: 45,
        },
      },
    ],
  },
];

/** The two demo organizations with their credentials' hashes, as `buildDemoSeed` takes them. */
export function demoOrgSeeds(credentials: DemoCredentials): DemoOrgSeed[] {
  return DEMO_ORGANIZATIONS.map((organization) => ({ organization, credentials: credentials[organization.key as keyof DemoCredentials] }));
}

export const DEAL_HISTORY_MONTHS = 24;

/** The rows that go to the organizations' storage objects (docs/scaling.md), not to D1: `seedDemoObjects` writes them. */
export interface DemoInventory {
  /** Each store's settings: the object holds them; D1's `stores` row is the directory's (id, name, primary, market ZIP). */
  stores: (StoreSettingsRow & { orgId: string })[];
  units: InferInsertModel<typeof inventoryUnits>[];
  marketValues: InferInsertModel<typeof unitMarketValues>[];
  deals: InferInsertModel<typeof deals>[];
  dealStips: InferInsertModel<typeof dealStips>[];
  lenderDecisions: InferInsertModel<typeof lenderDecisions>[];
  lenderPanel: InferInsertModel<typeof storeLenderPanel>[];
}

/** What the organizations' own rows depend on: no credentials, so the Worker can build them (src/routes/demo-data). */
export type DemoObjectInput = Pick<DemoSeedInput, "referenceDate" | "dealDeskReference" | "historyMonths"> & {
  organizations: readonly DemoOrganization[];
};

/** D1's rows (the directory, the credentials, the shared market rows) as statements, and the organizations' own rows for their objects. */
export function buildDemoSeed(input: DemoSeedInput): { statements: string[]; summary: DemoSeedSummary; inventory: DemoInventory } {
  const rows = buildDirectoryRows(input);
  const shared = input.sharedRows ?? true;
  const rowCounts: Record<string, number> = {};
  const insert = <T extends SQLiteTable>(table: T, tableRows: InferInsertModel<T>[]) => {
    rowCounts[getTableName(table)] = tableRows.length;
    return insertOrIgnore(table, tableRows);
  };
  // Parents before children: D1 enforces the foreign keys.
  const statements = [
    ...insert(organizations, rows.organizations),
    ...insert(stores, rows.stores),
    ...insert(staffUsers, rows.staffUsers),
    ...insert(apiKeys, rows.apiKeys),
    ...insert(brokerTokens, rows.brokerTokens),
    ...insert(legacyTokens, rows.legacyTokens),
    ...(shared ? insert(marketFeedEntries, rows.marketFeedEntries) : []),
    ...(shared ? insert(marketObservations, marketObservationRows(input.referenceDate)) : []),
  ];
  return {
    statements,
    summary: { referenceDate: input.referenceDate, rowCounts },
    inventory: buildDemoObjectRows({ ...input, organizations: input.organizations.map((seed) => seed.organization) }),
  };
}

/** The shipped figures (the settings columns' defaults, docs/domain/gross.md) where a demo store keeps them. */
const SETTING_DEFAULTS = Object.fromEntries(
  Object.entries(getTableColumns(objectStores))
    .filter(([, column]) => column.hasDefault)
    .map(([key, column]) => [key, column.default]),
) as Omit<StoreSettingsRow, "id" | "name">;

function storeSettingsRow(orgId: string, store: DemoStore): StoreSettingsRow & { orgId: string } {
  const { recon, ...settings } = store.settings;
  return {
    ...SETTING_DEFAULTS,
    ...settings,
    reconCar: recon.car,
    reconTruck: recon.truck,
    reconSuv: recon.suv,
    reconVan: recon.van,
    id: store.id,
    orgId,
    name: store.name,
  };
}

/** The organizations' own rows, as of the reference date: a rerun on any later day gives the same ids. */
export function buildDemoObjectRows({
  referenceDate,
  organizations: orgs,
  dealDeskReference,
  historyMonths = DEAL_HISTORY_MONTHS,
}: DemoObjectInput): DemoInventory {
  const reference = parseDay(referenceDate);
  const storeRows: DemoInventory["stores"] = [];
  const units: DemoInventory["units"] = [];
  const dealRows: DemoInventory["deals"] = [];
  const stips: DemoInventory["dealStips"] = [];
  for (const org of orgs) {
    let unitNumber = 0;
    for (const store of org.stores) {
      storeRows.push(storeSettingsRow(org.id, store));
      for (const unit of storeInventory(store, reference)) {
        unitNumber += 1;
        units.push({ id: `unit_${org.key}_${String(unitNumber).padStart(4, "0")}`, orgId: org.id, storeId: store.id, ...unit });
      }
      const history = storeDeals(org, store, reference, historyMonths);
      dealRows.push(...history.deals);
      stips.push(...history.stips);
    }
  }
  const desk = dealDeskDemoRows(dealDeskReference, storeRows, dealRows);
  return {
    stores: storeRows,
    units,
    marketValues: unitMarketValueRows(referenceDate, units, storeRows),
    deals: dealRows,
    dealStips: stips,
    lenderDecisions: desk.decisions,
    lenderPanel: desk.panel,
  };
}

interface DirectoryRows {
  organizations: InferInsertModel<typeof organizations>[];
  stores: InferInsertModel<typeof stores>[];
  staffUsers: InferInsertModel<typeof staffUsers>[];
  apiKeys: InferInsertModel<typeof apiKeys>[];
  brokerTokens: InferInsertModel<typeof brokerTokens>[];
  legacyTokens: InferInsertModel<typeof legacyTokens>[];
  marketFeedEntries: InferInsertModel<typeof marketFeedEntries>[];
}

function buildDirectoryRows({ referenceDate, organizations: seeds }: DemoSeedInput): DirectoryRows {
  const rows: DirectoryRows = {
    organizations: [],
    stores: [],
    staffUsers: [],
    apiKeys: [],
    brokerTokens: [],
    legacyTokens: [],
    marketFeedEntries: marketFeed(parseDay(referenceDate)),
  };

  for (const { organization: org, credentials: secrets, sandbox } of seeds) {
    rows.organizations.push({
      id: org.id,
      name: org.name,
      isDemo: true,
      isSandbox: sandbox !== undefined,
      expiresAt: sandbox?.expiresAt ?? null,
    });
    rows.staffUsers.push({
      id: org.staffUser.id,
      orgId: org.id,
      email: secrets.staffEmail,
      name: org.staffUser.name,
      passwordHash: secrets.staffPasswordHash,
    });
    rows.apiKeys.push({
      id: `key_${org.key}_demo`,
      orgId: org.id,
      keyHash: secrets.apiKeyHash,
      keyPrefix: secrets.apiKeyPrefix,
      label: "Demo key",
      permissions: ["read"],
      scopes: null,
      dailyLimit: sandbox ? TEST_KEY_DAILY_LIMIT : 1000,
      createdBy: "seed",
    });
    rows.brokerTokens.push({ id: `brk_${org.key}_demo`, orgId: org.id, tokenHash: secrets.brokerTokenHash, label: "Demo broker token" });
    if (secrets.legacyTokenHash) {
      rows.legacyTokens.push({ id: `lgt_${org.key}_demo`, orgId: org.id, tokenHash: secrets.legacyTokenHash, label: "Demo legacy integration" });
    }
    for (const store of org.stores) {
      rows.stores.push({ id: store.id, orgId: org.id, name: store.name, isPrimary: store.primary, marketZip: store.marketZip });
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// SQL rendering

/** D1 rejects statements over 100 KB; the margin leaves room for a row that crosses the line. */
const MAX_STATEMENT_BYTES = 90_000;
const utf8 = new TextEncoder();

function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot seed a non-finite number: ${value}`);
    return String(value);
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text.includes("\0")) throw new Error("cannot seed a string containing NUL");
  return `'${text.replaceAll("'", "''")}'`;
}

/** Rows are typed by the drizzle schema, so a renamed column breaks the build instead of the seed. */
export function insertOrIgnore<T extends SQLiteTable>(table: T, rows: InferInsertModel<T>[]): string[] {
  if (rows.length === 0) return [];
  const columns = getTableColumns(table);
  const keys = Object.keys(rows[0]);
  const head = `INSERT OR IGNORE INTO ${getTableName(table)} (${keys.map((k) => columns[k].name).join(", ")}) VALUES\n`;
  const statements: string[] = [];
  let tuples: string[] = [];
  let bytes = utf8.encode(head).length;
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    if (Object.keys(record).length !== keys.length) throw new Error(`rows of ${getTableName(table)} must share one column set`);
    const tuple = `(${keys.map((k) => sqlLiteral(record[k])).join(", ")})`;
    const tupleBytes = utf8.encode(tuple).length + 2;
    if (tuples.length > 0 && bytes + tupleBytes > MAX_STATEMENT_BYTES) {
      statements.push(`${head}${tuples.join(",\n")};`);
      tuples = [];
      bytes = utf8.encode(head).length;
    }
    tuples.push(tuple);
    bytes += tupleBytes;
  }
  statements.push(`${head}${tuples.join(",\n")};`);
  return statements;
}

// ---------------------------------------------------------------------------------------------
// Dates

/** Days since 1970-01-01 (UTC), so date arithmetic is integer arithmetic. */
type Day = number;

function parseDay(date: string): Day {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) throw new Error(`referenceDate must be YYYY-MM-DD, got ${date}`);
  return Date.parse(date) / DAY_MS;
}

const dayIso = (day: Day) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const yearOf = (day: Day) => new Date(day * DAY_MS).getUTCFullYear();
const monthOf = (day: Day) => new Date(day * DAY_MS).getUTCMonth();

function firstDayOfMonthsBefore(day: Day, months: number): Day {
  const date = new Date(day * DAY_MS);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, 1) / DAY_MS;
}

const roundCents = (amount: number) => Math.round(amount * 100) / 100;

// ---------------------------------------------------------------------------------------------
// Vehicles

interface Model {
  make: string;
  model: string;
  type: VehicleType;
  /** Base MSRP of the current model year, USD. */
  msrp: number;
  /** First three VIN characters (world manufacturer identifier) of a typical build. */
  wmi: string;
  trims: string[];
  /** Relative sales volume. */
  popularity: number;
}

const m = (make: string, model: string, type: VehicleType, msrp: number, wmi: string, trims: string[], popularity = 1): Model => ({
  make,
  model,
  type,
  msrp,
  wmi,
  trims,
  popularity,
});

const CATALOG: Model[] = [
  m("Toyota", "Corolla", "car", 23500, "5YF", ["LE", "SE", "XSE"], 1.2),
  m("Toyota", "Camry", "car", 29000, "4T1", ["LE", "SE", "XLE", "XSE"], 1.4),
  m("Toyota", "RAV4", "suv", 31000, "2T3", ["LE", "XLE", "XLE Premium", "Limited"], 2),
  m("Toyota", "Highlander", "suv", 40500, "5TD", ["LE", "XLE", "Limited", "Platinum"]),
  m("Toyota", "Tacoma", "truck", 33000, "3TM", ["SR", "SR5", "TRD Sport", "TRD Off-Road"], 1.3),
  m("Toyota", "Tundra", "truck", 42000, "5TF", ["SR5", "Limited", "Platinum"], 0.8),
  m("Toyota", "Sienna", "van", 40000, "5TD", ["LE", "XLE", "Limited"], 0.6),
  m("Honda", "Civic", "car", 25000, "2HG", ["LX", "Sport", "EX", "Touring"], 1.3),
  m("Honda", "Accord", "car", 29500, "1HG", ["LX", "Sport", "EX-L", "Touring"], 1.2),
  m("Honda", "CR-V", "suv", 31500, "7FA", ["LX", "EX", "EX-L", "Sport Touring"], 1.8),
  m("Honda", "Pilot", "suv", 41000, "5FN", ["Sport", "EX-L", "TrailSport", "Elite"], 0.9),
  m("Honda", "Odyssey", "van", 39500, "5FN", ["EX", "EX-L", "Touring", "Elite"], 0.6),
  m("Honda", "Ridgeline", "truck", 40500, "5FP", ["Sport", "RTL", "TrailSport"], 0.5),
  m("Ford", "F-150", "truck", 41000, "1FT", ["XL", "XLT", "Lariat", "Platinum"], 2.2),
  m("Ford", "Maverick", "truck", 27500, "3FT", ["XL", "XLT", "Lariat"], 1),
  m("Ford", "Escape", "suv", 30000, "1FM", ["Active", "ST-Line", "Platinum"], 1),
  m("Ford", "Explorer", "suv", 40500, "1FM", ["Active", "ST-Line", "Platinum"], 1),
  m("Ford", "Bronco Sport", "suv", 31500, "3FM", ["Big Bend", "Outer Banks", "Badlands"], 0.8),
  m("Ford", "Transit", "van", 49000, "1FT", ["Cargo Van", "Crew Van", "Passenger Van XLT"], 0.6),
  m("Ford", "Mustang", "car", 32500, "1FA", ["EcoBoost", "EcoBoost Premium", "GT"], 0.5),
  m("Chevrolet", "Malibu", "car", 26500, "1G1", ["LS", "LT", "RS"], 0.8),
  m("Chevrolet", "Equinox", "suv", 29500, "3GN", ["LS", "LT", "RS", "Premier"], 1.4),
  m("Chevrolet", "Traverse", "suv", 39500, "1GN", ["LS", "LT", "RS", "Z71"], 0.9),
  m("Chevrolet", "Tahoe", "suv", 58500, "1GN", ["LS", "LT", "Z71", "Premier"], 0.7),
  m("Chevrolet", "Silverado 1500", "truck", 42500, "1GC", ["WT", "LT", "RST", "LTZ"], 2),
  m("Chevrolet", "Colorado", "truck", 32500, "1GC", ["WT", "LT", "Z71", "Trail Boss"], 0.8),
  m("Subaru", "Impreza", "car", 24000, "JF1", ["Base", "Sport", "RS"], 0.7),
  m("Subaru", "Crosstrek", "suv", 26500, "JF2", ["Base", "Premium", "Sport", "Limited"], 1.5),
  m("Subaru", "Forester", "suv", 29500, "JF2", ["Base", "Premium", "Sport", "Limited"], 1.5),
  m("Subaru", "Outback", "suv", 30500, "4S4", ["Base", "Premium", "Limited", "Touring"], 1.7),
  m("Subaru", "Ascent", "suv", 38500, "4S4", ["Base", "Premium", "Limited", "Touring"], 0.7),
  m("Hyundai", "Elantra", "car", 22500, "KMH", ["SE", "SEL", "Limited"], 1.3),
  m("Hyundai", "Sonata", "car", 27500, "KMH", ["SE", "SEL", "Limited"], 0.8),
  m("Hyundai", "Tucson", "suv", 29000, "5NM", ["SE", "SEL", "Limited"], 1.5),
  m("Hyundai", "Santa Fe", "suv", 34500, "5NM", ["SE", "SEL", "Limited", "Calligraphy"], 1),
  m("Hyundai", "Palisade", "suv", 38500, "KM8", ["SE", "SEL", "Limited", "Calligraphy"], 0.8),
  m("Nissan", "Altima", "car", 27000, "1N4", ["S", "SV", "SR"]),
  m("Nissan", "Rogue", "suv", 30000, "5N1", ["S", "SV", "SL"], 1.2),
  m("Jeep", "Grand Cherokee", "suv", 40000, "1C4", ["Laredo", "Limited", "Overland"]),
  m("Jeep", "Wrangler", "suv", 34000, "1C4", ["Sport", "Sahara", "Rubicon"], 0.8),
  m("Ram", "1500", "truck", 42000, "1C6", ["Tradesman", "Big Horn", "Laramie"], 1.2),
  m("Chrysler", "Pacifica", "van", 40000, "2C4", ["Touring", "Touring L", "Limited"], 0.5),
  m("Kia", "Telluride", "suv", 37000, "5XY", ["LX", "S", "EX", "SX"], 0.8),
  m("Kia", "Forte", "car", 20500, "3KP", ["LXS", "GT-Line"], 0.7),
  m("Mazda", "CX-5", "suv", 29500, "JM3", ["Select", "Preferred", "Carbon Edition"], 0.9),
  m("BMW", "X3", "suv", 49500, "5UX", ["xDrive30i", "M40i"], 0.4),
];

/** VIN characters exclude I, O and Q (ISO 3779). */
const VIN_LETTERS = [..."ABCDEFGHJKLMNPRSTUVWXYZ"];
const VIN_CHARACTERS = [...VIN_LETTERS, ..."0123456789"];
/** A North-American VIN with a valid check digit (position 9), so VIN validators accept it. */
function vin(random: Random, model: Model, year: number): string {
  const descriptor = Array.from({ length: 5 }, () => random.pick(VIN_CHARACTERS)).join("");
  const plant = random.pick(VIN_LETTERS);
  const serial = String(random.int(100000, 999999));
  const withoutCheck = `${model.wmi}${descriptor}0${modelYearCode(year)}${plant}${serial}`;
  return `${withoutCheck.slice(0, 8)}${checkDigitOf(withoutCheck)}${withoutCheck.slice(9)}`;
}

/**
 * Share of the original MSRP a used unit lists for in today's (2026) used market, standard class:
 * the five-year loss of gas cars in iSeeCars' 2025 study (45.6%, docs/domain/appraisal.md#retention-by-class),
 * reached along the KBB curve's shape, then −8%/yr with a 12% floor. Calibrated with the make
 * scales below so the demo's used lots average near Cox's $25k listing at ~71k miles (§3.6).
 */
const USED_MARKET_LOSS = [0, 0.14, 0.23, 0.31, 0.39, 0.456];

/**
 * Demo calibration, not a sourced figure: the makes that hold value best lose less (iSeeCars
 * rankings put Toyota, Honda and Subaru among the lowest five-year losses, luxury makes among the
 * highest); trucks lose ×0.89 as in docs/domain/appraisal.md#retention-by-class.
 */
const MAKE_LOSS_SCALE: Record<string, number> = { Toyota: 0.65, Honda: 0.75, Subaru: 0.8, BMW: 1.25 };

function usedMarketRetention(ageYears: number, model: Model): number {
  const scale = (MAKE_LOSS_SCALE[model.make] ?? 1) * (model.type === "truck" ? 0.89 : 1);
  const at = (y: number) =>
    y < USED_MARKET_LOSS.length ? 1 - USED_MARKET_LOSS[y] * scale : Math.max(0.12, (1 - USED_MARKET_LOSS[5] * scale) * 0.92 ** (y - 5));
  if (ageYears <= 0) return 1;
  const whole = Math.floor(ageYears);
  return at(whole) + (at(whole + 1) - at(whole)) * (ageYears - whole);
}

/** docs/domain/appraisal.md#expected-miles: 13,500 a year for 5 years, 10,000 for years 6–8, 7,800 after. */
function expectedMilesAt(age: number): number {
  return 13_500 * Math.min(age, 5) + 10_000 * Math.max(0, Math.min(age, 8) - 5) + 7_800 * Math.max(0, age - 8);
}

interface Vehicle {
  model: Model;
  trim: string;
  year: number;
  condition: Condition;
  mileage: number;
  /** What the unit retails for in today's market, USD. */
  marketValue: number;
  vin: string;
}

/** Franchise used lots lean to 2–5-year-old units, with a tail of older budget cars. */
const USED_AGE_YEARS: readonly (readonly [number, number])[] = [
  [1, 2],
  [2, 3],
  [3, 3.5],
  [4, 3],
  [5, 2.5],
  [6, 1.5],
  [7, 1.2],
  [8, 1],
  [9, 0.7],
  [10, 0.5],
  [12, 0.3],
];

/** New units carry next year's model from September on, as dealers do. */
function currentModelYear(random: Random, on: Day): number {
  return monthOf(on) >= 8 && random.chance(0.6) ? yearOf(on) + 1 : yearOf(on);
}

function pickModel(random: Random, makes: readonly string[] | null): Model {
  const candidates = makes ? CATALOG.filter((model) => makes.includes(model.make)) : CATALOG;
  return random.weighted(candidates.map((model) => [model, model.popularity] as const));
}

function vehicle(random: Random, store: DemoStore, condition: Condition, on: Day): Vehicle {
  const model = pickModel(random, condition === "used" && random.chance(0.7) ? null : store.franchises);
  const trimIndex = random.int(0, model.trims.length - 1);
  const year =
    condition === "new" ? currentModelYear(random, on) : yearOf(on) - (condition === "cpo" ? random.int(1, 5) : random.weighted(USED_AGE_YEARS));
  const modelYearAge = yearOf(on) - year;
  // Prices climb ~2.5%/yr, so an older unit's original MSRP was lower.
  const originalMsrp = model.msrp * (1 + 0.09 * trimIndex) * (1 - 0.025 * modelYearAge);
  const expectedMiles = expectedMilesAt(Math.max(0, modelYearAge + 0.5));
  let mileage = condition === "new" ? random.int(4, 45) : Math.round(expectedMiles * Math.max(0.45, random.normal(1, 0.25)));
  if (condition === "cpo") mileage = Math.min(mileage, random.int(52_000, 79_000));
  const mileageAdjustment =
    condition === "new" ? 1 : 1 - Math.max(-0.12, Math.min(0.15, (0.15 * (mileage - expectedMiles)) / Math.max(expectedMiles, 1)));
  const marketValue =
    condition === "new"
      ? originalMsrp
      : originalMsrp * usedMarketRetention(modelYearAge, model) * mileageAdjustment * (condition === "cpo" ? 1.05 : 1);
  return { model, trim: model.trims[trimIndex], year, condition, mileage, marketValue, vin: vin(random, model, year) };
}

/** Dealer-style list prices: 24,995 rather than 25,013. */
const listPrice = (amount: number) => Math.round(amount / 500) * 500 - 5;

// ---------------------------------------------------------------------------------------------
// Inventory

/** Days-in-stock buckets (vAuto buckets, docs/domain/reports.md); new units age longer than used ones. */
const AGE_BUCKETS: Record<"new" | "preowned", readonly (readonly [readonly [number, number], number])[]> = {
  new: [
    [[0, 30], 0.4],
    [[31, 45], 0.18],
    [[46, 60], 0.15],
    [[61, 90], 0.15],
    [[91, 160], 0.12],
  ],
  preowned: [
    [[0, 30], 0.58],
    [[31, 45], 0.17],
    [[46, 60], 0.11],
    [[61, 90], 0.09],
    [[91, 140], 0.05],
  ],
};

function storeInventory(store: DemoStore, reference: Day) {
  const random = new Random(`${store.id}:inventory`);
  const units: Omit<InferInsertModel<typeof inventoryUnits>, "id" | "orgId" | "storeId">[] = [];
  const total = store.inStockUnits + store.soldUnits;
  for (let n = 1; n <= total; n++) {
    const condition = random.weighted(Object.entries(store.conditionMix) as [Condition, number][]);
    const [minDays, maxDays] = random.weighted(AGE_BUCKETS[condition === "new" ? "new" : "preowned"]);
    const daysInStock = random.int(minDays, maxDays);
    const unit = vehicle(random, store, condition, reference - daysInStock);
    let cost: number;
    let askingPrice: number;
    if (condition === "new") {
      cost = roundCents(unit.marketValue * random.between(0.9, 0.94));
      askingPrice = Math.round(unit.marketValue / 5) * 5;
    } else {
      // Used: bought at 84–88% cost-to-market with recon (docs/domain/appraisal.md: sold in the high 80s to low 90s),
      // listed near the market (price-to-market at listing near 99%, Cox).
      const recon = store.settings.recon[unit.model.type];
      cost = Math.round(unit.marketValue * random.between(0.84, 0.88) - recon);
      // Some units age because they were priced over the market; keep that visible in the data.
      const priceToMarket = daysInStock > 60 && random.chance(0.5) ? random.between(1.03, 1.08) : random.between(0.97, 1.03);
      askingPrice = listPrice(Math.max(unit.marketValue * priceToMarket, cost + recon + 1200));
    }
    units.push({
      stockNumber: `${store.code}${10000 + n}`,
      vin: unit.vin,
      year: unit.year,
      make: unit.model.make,
      model: unit.model.model,
      trim: unit.trim,
      condition,
      vehicleType: unit.model.type,
      mileage: unit.mileage,
      stockedOn: dayIso(reference - daysInStock),
      cost,
      askingPrice,
      status: n > store.inStockUnits ? "sold" : "in_stock",
    });
  }
  return units;
}

// ---------------------------------------------------------------------------------------------
// Deals and the funding pipeline

type LenderType = "captive" | "bank" | "credit_union" | "subprime" | "specialty";

interface Lender {
  name: string;
  type: LenderType;
  minScore: number;
  maxScore: number;
}

/** Fictional lenders (docs/domain/lender-routing.md), a panel of nine. */
const LENDERS: Lender[] = [
  { name: "Crestline Motor Credit", type: "captive", minScore: 620, maxScore: 850 },
  { name: "Harbor Point Bank", type: "bank", minScore: 660, maxScore: 850 },
  { name: "Prairie State Bank Auto Finance", type: "bank", minScore: 600, maxScore: 850 },
  { name: "Lakeshore Savings Bank", type: "bank", minScore: 640, maxScore: 850 },
  { name: "Riverbend Community Credit Union", type: "credit_union", minScore: 620, maxScore: 850 },
  { name: "Tri-County Teachers Credit Union", type: "credit_union", minScore: 660, maxScore: 850 },
  { name: "Second Gear Acceptance", type: "subprime", minScore: 480, maxScore: 660 },
  { name: "Keystone Auto Finance", type: "subprime", minScore: 500, maxScore: 680 },
  { name: "Fresh Start Auto Lending", type: "specialty", minScore: 300, maxScore: 620 },
];

/** Default funding days by lender type (docs/domain/lender-routing.md). */
const FUNDING_DAYS: Record<LenderType, number> = { captive: 2, bank: 3, credit_union: 4, subprime: 7, specialty: 10 };

type Tier = "super_prime" | "prime" | "near_prime" | "subprime" | "deep_subprime";

/** Credit bands of docs/domain/deal-math.md; the mix follows TransUnion/Experian shares. */
const TIERS: readonly (readonly [{ tier: Tier; min: number; max: number }, number])[] = [
  [{ tier: "super_prime", min: 781, max: 850 }, 0.31],
  [{ tier: "prime", min: 661, max: 780 }, 0.4],
  [{ tier: "near_prime", min: 601, max: 660 }, 0.13],
  [{ tier: "subprime", min: 501, max: 600 }, 0.12],
  [{ tier: "deep_subprime", min: 300, max: 500 }, 0.04],
];

/** How strongly a desk sends each tier to each lender type; 0 means never. */
const LENDER_PREFERENCE: Record<Tier, Record<LenderType, number>> = {
  super_prime: { captive: 5, bank: 3, credit_union: 3, subprime: 0, specialty: 0 },
  prime: { captive: 4, bank: 3, credit_union: 3, subprime: 0, specialty: 0 },
  near_prime: { captive: 1, bank: 2, credit_union: 1.5, subprime: 3, specialty: 0 },
  subprime: { captive: 0, bank: 0.5, credit_union: 0, subprime: 5, specialty: 2 },
  deep_subprime: { captive: 0, bank: 0, credit_union: 0, subprime: 2, specialty: 5 },
};

function pickLender(random: Random, tier: Tier, beacon: number, condition: Condition): Lender {
  const eligible = LENDERS.filter(
    (lender) =>
      beacon >= lender.minScore &&
      beacon <= lender.maxScore &&
      LENDER_PREFERENCE[tier][lender.type] > 0 &&
      // Captives finance their brand's new and certified units, not other used stock.
      (lender.type !== "captive" || condition !== "used"),
  );
  if (eligible.length === 0) return LENDERS.find((lender) => lender.type === "specialty")!;
  return random.weighted(eligible.map((lender) => [lender, LENDER_PREFERENCE[tier][lender.type]] as const));
}

/** F&I penetration (docs/domain/deal-coach.md) and typical dealer profit per product sold. */
const FI_PRODUCTS = [
  { name: "vsc", penetrationNew: 0.45, penetrationUsed: 0.48, profit: 1000, financedOnly: false },
  { name: "gap", penetrationNew: 0.35, penetrationUsed: 0.35, profit: 560, financedOnly: true },
  { name: "tire_wheel", penetrationNew: 0.22, penetrationUsed: 0.22, profit: 312, financedOnly: false },
  { name: "appearance", penetrationNew: 0.15, penetrationUsed: 0.15, profit: 400, financedOnly: false },
  { name: "prepaid_maintenance", penetrationNew: 0.2, penetrationUsed: 0.2, profit: 350, financedOnly: false },
  { name: "key_replacement", penetrationNew: 0.12, penetrationUsed: 0.12, profit: 250, financedOnly: false },
  { name: "theft_etch", penetrationNew: 0.15, penetrationUsed: 0.15, profit: 200, financedOnly: false },
] as const;

/** Stip names as docs/domain/stips.md lists them; which ones a deal gets follows its trigger matrix. */
const STIP = {
  driversLicense: "Driver's license",
  insurance: "Proof of insurance",
  income: "Proof of income",
  residence: "Proof of residence",
  references: "References",
  bankStatements: "Bank statements",
} as const;

function requiredStips(random: Random, tier: Tier): string[] {
  const stips: string[] = [STIP.driversLicense, STIP.insurance];
  if (tier === "subprime" || tier === "deep_subprime") {
    stips.push(STIP.income, STIP.residence);
    if (random.chance(0.7)) stips.push(STIP.references);
    if (random.chance(0.4)) stips.push(STIP.bankStatements);
  } else if (tier === "near_prime") {
    stips.push(STIP.income);
    if (random.chance(0.5)) stips.push(STIP.residence);
  } else if (random.chance(0.25)) {
    stips.push(STIP.income);
  }
  return stips;
}

/** Stips a customer brings to the desk on signing day, before the lender calls back. */
const COLLECTED_AT_SIGNING = new Set<string>([STIP.driversLicense, STIP.insurance]);

/** Most deals go to the lender the day they are signed or the next. */
const SUBMIT_DELAY_DAYS: readonly (readonly [number, number])[] = [
  [0, 3],
  [1, 3],
  [2, 1],
];

const TRANSIT_DAYS: readonly (readonly [number, number])[] = [
  [0, 4],
  [1, 2],
  [3, 1],
  [5, 1],
];

/** Saturdays are busy, Sundays quiet; spring (tax refunds) and December sell more (docs/domain/reports.md). */
const WEEKDAY_WEIGHT = [0.35, 1, 0.95, 0.95, 1, 1.1, 1.4];
const MONTH_WEIGHT = [0.85, 0.95, 1.15, 1.05, 1.08, 1, 1, 1.03, 0.95, 0.95, 0.92, 1.1];

/**
 * Maps a fixed number of deals onto the calendar months (24 by default) before the reference date. The count
 * never depends on the date (so ids stay stable); deals are spread by stratified sampling through
 * the cumulative daily weights, which puts every month, however short, in the history.
 */
function saleDays(random: Random, count: number, reference: Day, months: number): Day[] {
  const first = firstDayOfMonthsBefore(reference, months - 1);
  const cumulative: number[] = [];
  let total = 0;
  for (let day = first; day <= reference; day++) {
    total += WEEKDAY_WEIGHT[new Date(day * DAY_MS).getUTCDay()] * MONTH_WEIGHT[monthOf(day)];
    cumulative.push(total);
  }
  const days: Day[] = [];
  for (let i = 0; i < count; i++) {
    const target = ((i + random.next()) / count) * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid] > target) high = mid;
      else low = mid + 1;
    }
    days.push(first + low);
  }
  // On the 1st of a month the current month is a single day; the newest deal keeps it in the history.
  days[count - 1] = reference;
  return days;
}

type DealStatus = InferInsertModel<typeof deals>["status"];
type StipState = InferInsertModel<typeof dealStips>["state"];

function storeDeals(org: DemoOrganization, store: DemoStore, reference: Day, months: number) {
  const dealRows: InferInsertModel<typeof deals>[] = [];
  const stips: InferInsertModel<typeof dealStips>[] = [];
  const count = store.dealsPerMonth * months;
  const days = saleDays(new Random(`${store.id}:sale-days`), count, reference, months);

  for (let i = 0; i < count; i++) {
    const soldOn = days[i];
    const dealId = `deal_${store.id.replace(/^sto_/, "")}_${String(i + 1).padStart(4, "0")}`;
    // A stream per deal, and the choices that decide its stip rows (and so their ids) drawn first:
    // later draws depend on the date (model years), and must not shift those rows on another day.
    const random = new Random(dealId);
    const condition = random.weighted(Object.entries(store.conditionMix) as [Condition, number][]);
    const isCash = random.chance(condition === "new" ? 0.12 : 0.18);
    const { tier, min, max } = random.weighted(TIERS);
    const stipNames = isCash ? [] : requiredStips(random, tier);
    const beacon = isCash ? null : random.int(min, max);
    const lender = beacon === null ? null : pickLender(random, tier, beacon, condition);
    const unit = vehicle(random, store, condition, soldOn);
    const sellingPrice = Math.round(unit.marketValue * (condition === "new" ? random.between(0.95, 1) : random.between(0.96, 1.02)));

    // docs/domain/gross.md: new GPVR ≈ $1,800–3,500, used ≈ $1,300–1,600, a few deals under water.
    const frontGross = roundCents(Math.max(-2500, sellingPrice * random.normal(condition === "new" ? 0.05 : 0.065, 0.035)));

    let productProfit = 0;
    for (const product of FI_PRODUCTS) {
      const penetration = condition === "new" ? product.penetrationNew : product.penetrationUsed;
      if ((!product.financedOnly || !isCash) && random.chance(penetration)) productProfit += product.profit * random.between(0.8, 1.2);
    }
    const downPayment = sellingPrice * random.between(tier === "deep_subprime" ? 0.15 : 0.05, 0.2);
    // Price plus ~7.5% tax and fees, plus products at retail (about twice their profit), less cash down.
    const amountFinanced = isCash ? null : Math.round(sellingPrice * 1.075 + 695 + productProfit * 2.1 - downPayment);
    // docs/domain/gross.md: prime paper pays rate reserve; subprime pays a flat fee; deep subprime costs an acquisition fee.
    const reserve =
      amountFinanced === null
        ? 0
        : tier === "super_prime" || tier === "prime"
          ? amountFinanced * random.between(0.015, 0.032)
          : tier === "near_prime"
            ? amountFinanced * random.between(0.02, 0.032)
            : tier === "subprime"
              ? random.between(250, 500)
              : -random.between(395, 695);
    const backGross = roundCents(productProfit + reserve);

    const submitDelay = random.weighted(SUBMIT_DELAY_DAYS);
    const stipDelay = Math.round((stipNames.length - 2) * random.between(0, 2.5));
    // Contracts in transit: e-contracts fund in a day, mailed ones take 3–4 business days.
    const transitDays = random.weighted(TRANSIT_DAYS);
    const fundingDelay = lender ? submitDelay + FUNDING_DAYS[lender.type] + stipDelay + transitDays : 0;
    const unwinds = random.chance(0.015);
    const stipDraws = stipNames.map(() => random.next());
    const age = reference - soldOn;

    let status: DealStatus;
    let submittedOn: Day | null = null;
    let fundedOn: Day | null = null;
    if (!lender) {
      status = "funded";
      fundedOn = soldOn;
    } else if (age >= fundingDelay) {
      submittedOn = soldOn + submitDelay;
      // Spot deliveries come back once the lender declines, a few weeks after the sale at most.
      if (unwinds && age > fundingDelay + 7) status = "unwound";
      else {
        status = "funded";
        fundedOn = soldOn + fundingDelay;
      }
    } else if (age < submitDelay) {
      status = "pending";
    } else {
      submittedOn = soldOn + submitDelay;
      status = age < submitDelay + 2 ? "submitted" : "approved";
    }

    dealRows.push({
      id: dealId,
      orgId: org.id,
      storeId: store.id,
      dealNumber: `${store.code}D${String(100000 + i + 1)}`,
      soldOn: dayIso(soldOn),
      submittedOn: submittedOn === null ? null : dayIso(submittedOn),
      fundedOn: fundedOn === null ? null : dayIso(fundedOn),
      status,
      vin: unit.vin,
      year: unit.year,
      make: unit.model.make,
      model: unit.model.model,
      condition,
      vehicleType: unit.model.type,
      sellingPrice,
      lender: lender?.name ?? null,
      beacon,
      amountFinanced,
      frontGross,
      backGross,
    });

    stipNames.forEach((stip, k) => {
      const requestedOn = COLLECTED_AT_SIGNING.has(stip) || submittedOn === null ? soldOn : submittedOn;
      const draw = stipDraws[k];
      let state: StipState;
      let clearedOn: Day | null = null;
      if (status === "funded") {
        state = "cleared";
        clearedOn = requestedOn + Math.floor(draw * (fundedOn! - requestedOn + 1));
      } else if (status === "unwound") {
        state = "received";
      } else {
        // The open pipeline: the further a deal has moved, the more of its paperwork is in.
        const [outstanding, received] = status === "pending" ? [0.7, 0.3] : status === "submitted" ? [0.45, 0.35] : [0.3, 0.3];
        const atDesk = COLLECTED_AT_SIGNING.has(stip) && status !== "pending";
        state = !atDesk && draw < outstanding ? "outstanding" : draw < outstanding + received ? "received" : "cleared";
        if (state === "cleared") clearedOn = Math.min(reference, requestedOn + Math.floor(draw * 3));
      }
      stips.push({
        id: `stip_${dealId.slice("deal_".length)}_${k + 1}`,
        orgId: org.id,
        dealId,
        stip,
        state,
        requestedOn: dayIso(requestedOn),
        clearedOn: clearedOn === null ? null : dayIso(clearedOn),
      });
    });
  }
  return { deals: dealRows, stips };
}

// ---------------------------------------------------------------------------------------------
// Market feed

const SOURCE = {
  sentiment: "FRED UMCSENT (University of Michigan consumer sentiment)",
  gasoline: "EIA weekly U.S. regular gasoline retail price (EMM_EPMR_PTE_NUS_DPG)",
  fedFunds: "FRED FEDFUNDS (effective federal funds rate)",
  prime: "FRED DPRIME (bank prime loan rate)",
  sofr: "FRED SOFR (secured overnight financing rate)",
  vehicleSales: "FRED TOTALSA (total vehicle sales, SAAR)",
  usedCpi: "FRED CUSR0000SETA02 (CPI used cars and trucks)",
  bankAuto60: "FRED RIFLPBCIANM60NM (commercial bank 60-month new auto loan rate)",
  bankAuto72: "FRED RIFLPBCIANM72NM (commercial bank 72-month new auto loan rate)",
  bankAuto48: "FRED TERMCBAUTO48NS (commercial bank 48-month new auto loan rate)",
  experian: "Experian State of the Automotive Finance Market",
  transUnion: "TransUnion auto originations report",
  fitch: "Fitch Ratings subprime auto ABS 60+ day delinquency index",
  manheim: "Manheim Used Vehicle Value Index",
  cox: "Cox Automotive vAuto market days supply",
  coxIncentives: "Cox Automotive / Dealertrack new-vehicle financing data",
} as const;

/** [days before the reference date, category, severity, source, signal]; values are plausible per docs/domain/reports.md. */
const MARKET_SIGNALS: readonly (readonly [number, string, "high" | "medium" | "low", string, string])[] = [
  [
    1,
    "macro",
    "low",
    SOURCE.gasoline,
    "U.S. regular gasoline averaged $3.12/gal this week, down 4¢ week over week; below the $3.50 level that shifts demand toward fuel-efficient stock.",
  ],
  [8, "macro", "low", SOURCE.gasoline, "U.S. regular gasoline averaged $3.16/gal, flat week over week."],
  [15, "macro", "low", SOURCE.gasoline, "U.S. regular gasoline averaged $3.17/gal, up 2¢ week over week."],
  [22, "macro", "low", SOURCE.gasoline, "U.S. regular gasoline averaged $3.15/gal, down 3¢ week over week."],
  [
    3,
    "macro",
    "high",
    SOURCE.sentiment,
    "Consumer sentiment fell to 53.6 from 55.1, well inside the weak band (< 60); expect longer decision cycles and more payment-focused shoppers.",
  ],
  [
    10,
    "macro",
    "medium",
    SOURCE.fedFunds,
    "Effective federal funds rate at 3.88%, unchanged from the prior month; lender buy rates should hold steady.",
  ],
  [2, "macro", "low", SOURCE.prime, "Bank prime loan rate unchanged at 7.00%."],
  [2, "macro", "low", SOURCE.sofr, "SOFR at 3.91%; floor-plan costs indexed to 1-month SOFR are flat month over month."],
  [12, "macro", "medium", SOURCE.vehicleSales, "Light-vehicle sales ran at a 15.9 million SAAR, down from 16.3 million the month before."],
  [14, "macro", "medium", SOURCE.usedCpi, "CPI for used cars and trucks rose 0.6% month over month; retail used prices are firming."],
  [
    6,
    "lender_environment",
    "low",
    SOURCE.bankAuto60,
    "60-month new-auto rate at commercial banks 7.52%, 0.15 pt below three periods ago: stable, not yet easing (threshold −0.25 pt).",
  ],
  [6, "lender_environment", "low", SOURCE.bankAuto72, "72-month new-auto rate at commercial banks 7.61%, down 0.08 pt from the prior reading."],
  [6, "lender_environment", "low", SOURCE.bankAuto48, "48-month new-auto rate at commercial banks 7.48%, little changed."],
  [
    18,
    "lender_environment",
    "medium",
    SOURCE.experian,
    "Banks hold 28.9% of all auto financing and 29.7% of used; several are widening buy boxes and lowering minimum scores on used paper.",
  ],
  [
    20,
    "lender_environment",
    "high",
    SOURCE.fitch,
    "Subprime 60+ day delinquencies at 6.2%, near the post-2008 high; expect tighter advances and more income and residence stips below 600.",
  ],
  [
    25,
    "lender_environment",
    "medium",
    SOURCE.transUnion,
    "Subprime fell to 14.4% of originations while super prime rose to 40.9%; lenders are favouring top-tier paper.",
  ],
  [
    4,
    "wholesale_index",
    "low",
    SOURCE.manheim,
    "Mid-month Manheim index 205.0, −0.2% year over year; wholesale values are flat, so trade appraisals can hold.",
  ],
  [
    19,
    "wholesale_index",
    "low",
    SOURCE.manheim,
    "Manheim index 204.6 for the prior full month, up 0.4% month over month after mileage and seasonal adjustment.",
  ],
  [
    16,
    "wholesale_index",
    "medium",
    SOURCE.manheim,
    "Pickup segment up 1.8% year over year while compact cars slipped 1.2%; price truck trades accordingly.",
  ],
  [
    5,
    "dealer_market",
    "medium",
    SOURCE.cox,
    "Used days supply at 44 nationally but 51 in the Denver market; units past 45 days face more price competition.",
  ],
  [9, "dealer_market", "low", SOURCE.cox, "Madison-area AWD SUV days supply at 28 ahead of winter; Outback, Forester and RAV4 turn fastest."],
  [
    11,
    "dealer_market",
    "medium",
    SOURCE.coxIncentives,
    "About 7% of new financed deals carry 0% APR, concentrated on trucks and mid-size SUVs; expect payment shoppers to compare against captive offers.",
  ],
  [
    27,
    "dealer_market",
    "low",
    SOURCE.cox,
    "Average used listing price $25,120 with 71,300 average miles; price-to-market at listing holds near 99%.",
  ],
];

function marketFeed(reference: Day): InferInsertModel<typeof marketFeedEntries>[] {
  // The reference day's start, so a seed never claims a refresh later than the moment it ran.
  const refreshedAt = `${dayIso(reference)}T00:00:00.000Z`;
  return MARKET_SIGNALS.map(([daysBefore, category, severity, source, signal], i) => ({
    id: `mkt_demo_${String(i + 1).padStart(3, "0")}`,
    category,
    signal,
    severity,
    // Illustrative values: the label and the flag say so (docs/domain/reports.md#demo-market-data).
    source: demoSourceLabel(source),
    date: dayIso(reference - daysBefore),
    refreshedAt,
    isDemo: true,
  }));
}
