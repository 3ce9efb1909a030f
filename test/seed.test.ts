import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_DEAL_DESK_REFERENCE } from "../scripts/deal-desk-reference";
import { hashPassword } from "../src/credentials/password";
import { apiKeyDisplayPrefix, BROKER_TOKEN_PREFIX, generateApiKey, generateToken, LEGACY_TOKEN_PREFIX, sha256Hex } from "../src/credentials/tokens";
import { buildDemoSeed, DEAL_HISTORY_MONTHS, type DemoCredentials, demoOrgSeeds } from "../src/demo/demo-data";
import { seedDemoObjects } from "../src/demo/demo-objects";
import type { InventoryFeedSchema } from "../src/routes/feeds/feeds.routes";
import { loadDemo } from "./helpers/demo";
import { call } from "./helpers/factories";
import { rowsInObject } from "./helpers/org-storage";
import { all } from "./helpers/sql";

const REFERENCE_DATE = "2026-11-20";
/** D1's tables the seed writes; each organization's own rows are in its storage object. */
const D1_TABLES = ["organizations", "stores", "staff_users", "api_keys", "broker_tokens", "legacy_tokens", "market_feed_entries"] as const;
const OBJECT_TABLES = ["stores", "inventory_units", "unit_market_values", "deals", "deal_stips", "store_lender_panel", "lender_decisions"] as const;
const ORG_IDS = ["org_summit", "org_lakeside"];

const summitKey = generateApiKey();
const lakesideKey = generateApiKey();

/** Hashed the way the seed script hashes `.dev.vars`, with the real functions and the test pepper. */
async function hashCredentials(): Promise<DemoCredentials> {
  const org = async (apiKey: string, email: string) => ({
    apiKeyHash: await sha256Hex(apiKey),
    apiKeyPrefix: apiKeyDisplayPrefix(apiKey),
    brokerTokenHash: await sha256Hex(generateToken(BROKER_TOKEN_PREFIX)),
    staffEmail: email,
    staffPasswordHash: await hashPassword("demo-password", env.PASSWORD_PEPPER),
  });
  return {
    summit: { ...(await org(summitKey, "desk@summit.test")), legacyTokenHash: await sha256Hex(generateToken(LEGACY_TOKEN_PREFIX, 32)) },
    lakeside: await org(lakesideKey, "gm@lakeside.test"),
  };
}

async function apply(statements: string[]) {
  await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
}

async function rowCounts(): Promise<Record<string, number>> {
  const row = await env.DB.prepare(`SELECT ${D1_TABLES.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`).first<
    Record<string, number>
  >();
  return row!;
}

const countAll = (tables: readonly string[]) => `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`;

/** Each organization's own rows, by table, as its object holds them. */
async function objectRowCounts(): Promise<Record<string, Record<string, number>>> {
  const counts = await Promise.all(
    ORG_IDS.map(async (orgId) => [orgId, (await rowsInObject<Record<string, number>>(orgId, countAll(OBJECT_TABLES)))[0]]),
  );
  return Object.fromEntries(counts);
}

/** `query`'s rows from every demo organization's object, in the organizations' order. */
async function allStored<Row extends Record<string, SqlStorageValue>>(query: string, ...binds: SqlStorageValue[]): Promise<Row[]> {
  return (await Promise.all(ORG_IDS.map((orgId) => rowsInObject<Row>(orgId, query, ...binds)))).flat();
}

describe("demo seed", () => {
  let credentials: DemoCredentials;
  let statements: string[];
  let countsAfterFirstRun: Record<string, number>;
  let objectCountsAfterFirstRun: Record<string, Record<string, number>>;

  beforeAll(async () => {
    credentials = await hashCredentials();
    statements = (
      await loadDemo({ referenceDate: REFERENCE_DATE, organizations: demoOrgSeeds(credentials), dealDeskReference: DEMO_DEAL_DESK_REFERENCE })
    ).statements;
    countsAfterFirstRun = await rowCounts();
    objectCountsAfterFirstRun = await objectRowCounts();
    // Two years of both organizations' deals and decisions, generated and written into their objects.
  }, 30_000);

  it("keeps every statement under D1's 100 KB limit and builds the same statements twice", () => {
    for (const statement of statements) expect(new TextEncoder().encode(statement).length).toBeLessThan(100_000);
    expect(
      buildDemoSeed({ referenceDate: REFERENCE_DATE, organizations: demoOrgSeeds(credentials), dealDeskReference: DEMO_DEAL_DESK_REFERENCE })
        .statements,
    ).toEqual(statements);
  });

  it("duplicates nothing when run again, the same day or months later; an open object is not seeded twice", async () => {
    await apply(statements);
    expect(await rowCounts()).toEqual(countsAfterFirstRun);
    const later = buildDemoSeed({
      referenceDate: "2027-03-01",
      organizations: demoOrgSeeds(await hashCredentials()),
      dealDeskReference: DEMO_DEAL_DESK_REFERENCE,
    });
    await apply(later.statements);
    expect(await rowCounts()).toEqual(countsAfterFirstRun);
    await expect(seedDemoObjects(env, ["org_summit"], later.inventory)).rejects.toThrow();
    expect(await objectRowCounts()).toEqual(objectCountsAfterFirstRun);
  });

  it("keeps each store's own settings in its organization's object", async () => {
    expect(await allStored("SELECT id, pack_new, holding_cost_per_day, recon_van, aged_threshold_days_new FROM stores ORDER BY id")).toEqual([
      { id: "sto_summit_north", pack_new: 300, holding_cost_per_day: 35, recon_van: 1200, aged_threshold_days_new: 90 },
      { id: "sto_summit_south", pack_new: 350, holding_cost_per_day: 38, recon_van: 1250, aged_threshold_days_new: 90 },
      { id: "sto_lakeside_main", pack_new: 250, holding_cost_per_day: 32, recon_van: 1150, aged_threshold_days_new: 90 },
    ]);
  });

  it("creates two demo organizations, with two stores and one store, one primary each", async () => {
    const orgs = await all<{ id: string; stores: number; primaries: number }>(
      `SELECT o.id, count(s.id) AS stores, sum(s.is_primary) AS primaries
       FROM organizations o JOIN stores s ON s.org_id = o.id WHERE o.is_demo = 1 GROUP BY o.id ORDER BY o.id DESC`,
    );
    expect(orgs).toEqual([
      { id: "org_summit", stores: 2, primaries: 1 },
      { id: "org_lakeside", stores: 1, primaries: 1 },
    ]);
  });

  it("stocks about 300 and 150 units, some aged past 45, 60 and 90 days", async () => {
    const stock = await allStored<{ org_id: string; units: number; past45: number; past60: number; past90: number; sold: number }>(
      `SELECT org_id,
              sum(status = 'in_stock') AS units,
              sum(status = 'in_stock' AND julianday(?1) - julianday(stocked_on) > 45) AS past45,
              sum(status = 'in_stock' AND julianday(?1) - julianday(stocked_on) > 60) AS past60,
              sum(status = 'in_stock' AND julianday(?1) - julianday(stocked_on) > 90) AS past90,
              sum(status = 'sold') AS sold
       FROM inventory_units GROUP BY org_id`,
      REFERENCE_DATE,
    );
    const [summit, lakeside] = stock;
    expect(summit.units).toBeGreaterThanOrEqual(280);
    expect(summit.units).toBeLessThanOrEqual(320);
    expect(lakeside.units).toBeGreaterThanOrEqual(140);
    expect(lakeside.units).toBeLessThanOrEqual(160);
    for (const org of stock) {
      expect(org.past90).toBeGreaterThan(0);
      expect(org.past60).toBeGreaterThan(org.past90);
      expect(org.past45).toBeGreaterThan(org.past60);
      expect(org.sold).toBeGreaterThan(0);
    }
    const badVins = await allStored("SELECT vin FROM inventory_units WHERE length(vin) != 17 OR vin GLOB '*[IOQ]*'");
    expect(badVins).toEqual([]);
  });

  it(`records sales in each of the last ${DEAL_HISTORY_MONTHS} months for every store`, async () => {
    const months = await allStored<{ store_id: string; months: number; first: string; last: string }>(
      `SELECT store_id, count(DISTINCT substr(sold_on, 1, 7)) AS months, min(sold_on) AS first, max(sold_on) AS last
       FROM deals GROUP BY store_id ORDER BY store_id`,
    );
    expect(months.map((m) => m.store_id)).toEqual(["sto_summit_north", "sto_summit_south", "sto_lakeside_main"]);
    for (const store of months) {
      expect(store.months).toBe(DEAL_HISTORY_MONTHS);
      expect(store.first >= "2024-12-01").toBe(true);
      expect(store.last).toBe(REFERENCE_DATE);
    }
    const unwound = await allStored<{ n: number }>("SELECT count(*) AS n FROM deals WHERE status = 'unwound'");
    for (const org of unwound) expect(org.n).toBeGreaterThan(0);
  });

  it("leaves an open funding pipeline with outstanding stips in every store", async () => {
    const pipeline = await allStored<{ store_id: string; open_deals: number; outstanding: number }>(
      `SELECT d.store_id, count(DISTINCT d.id) AS open_deals, sum(st.state = 'outstanding') AS outstanding
       FROM deals d JOIN deal_stips st ON st.deal_id = d.id
       WHERE d.status IN ('pending', 'submitted', 'approved') GROUP BY d.store_id ORDER BY d.store_id`,
    );
    expect(pipeline.map((p) => p.store_id)).toEqual(["sto_summit_north", "sto_summit_south", "sto_lakeside_main"]);
    for (const store of pipeline) {
      expect(store.open_deals).toBeGreaterThan(0);
      expect(store.outstanding).toBeGreaterThan(0);
    }
    const openButOld = await allStored(
      "SELECT id FROM deals WHERE status IN ('pending', 'submitted', 'approved') AND sold_on < date(?, '-30 days')",
      REFERENCE_DATE,
    );
    expect(openButOld).toEqual([]);
  });

  it("fills the market feed with at least 20 recent entries across its four categories", async () => {
    const feed = await all<{ category: string; date: string; refreshed_at: string }>("SELECT category, date, refreshed_at FROM market_feed_entries");
    expect(feed.length).toBeGreaterThanOrEqual(20);
    expect(new Set(feed.map((e) => e.category))).toEqual(new Set(["macro", "lender_environment", "wholesale_index", "dealer_market"]));
    for (const entry of feed) {
      expect(entry.date <= REFERENCE_DATE && entry.date >= "2026-10-21").toBe(true);
      expect(entry.refreshed_at.startsWith(REFERENCE_DATE)).toBe(true);
    }
  });

  it("lets each demo key read its own organization's inventory and nothing else", async () => {
    const summit = await call("/api/v1/inventory", { key: summitKey });
    expect(summit.status).toBe(200);
    const summitBody = await summit.json<z.infer<typeof InventoryFeedSchema>>();
    expect(summitBody.count).toBeGreaterThan(0);
    expect(summitBody.count).toBeLessThanOrEqual(500);
    expect(new Set(summitBody.inventory.map((u) => u.store))).toEqual(new Set(["Summit Auto North", "Summit Auto South"]));

    const lakeside = await call("/api/v1/inventory", { key: lakesideKey });
    const lakesideBody = await lakeside.json<z.infer<typeof InventoryFeedSchema>>();
    expect(new Set(lakesideBody.inventory.map((u) => u.store))).toEqual(new Set(["Lakeside Motors"]));
  });
});
