import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createApiKey } from "../helpers/factories";
import { deal, unit } from "../helpers/ingest";
import { fetchOpenApiDocument } from "../helpers/openapi-document";
import { rowsInObject } from "../helpers/org-storage";
import { seedDemoOrgs } from "../helpers/reports";
import { createBrokerToken } from "../helpers/staff";
import { loadDemoVehicleData } from "../helpers/vehicle-data";

/**
 * Every operation a dealer's credential reaches, called by one organization (Lakeside) with the
 * other's (Summit's) ids wherever it takes one, the organizations' data in their objects
 * (docs/scaling.md): an answer never carries anything of Summit's the request did not, a request
 * naming Summit's store, key, webhook or check is refused, and Summit's data is the same after.
 */
type Credential = "key" | "broker";
interface Case {
  /** Names a resource of Summit's: must be answered 404. Otherwise it is Lakeside's own request, answered 2xx. */
  namesOther: boolean;
  query?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

interface SummitIds {
  keyId: string;
  webhookId: string;
  deliveryId: string;
  checkId: string;
  vin: string;
}

const STORE = "sto_summit_north";
const engine = (body: Record<string, unknown>): Case[] => [
  { namesOther: false, body },
  { namesOther: true, body: { ...body, store_id: STORE } },
];
const feed = (): Case[] => [{ namesOther: false }, { namesOther: true, query: `store_id=${STORE}` }];

/** Each documented operation open to a dealer's credential: how it is called, and with what. */
function operations(ids: SummitIds): Record<string, { credential: Credential; cases: Case[] }> {
  const webhook = `/api/v1/webhooks/${ids.webhookId}`;
  const named = (body?: unknown): Case[] => [{ namesOther: true, body }];
  const own = (body?: unknown): Case[] => [{ namesOther: false, body }];
  return {
    "get /api/v1/inventory": { credential: "key", cases: feed() },
    "get /api/v1/sales-summary": { credential: "key", cases: feed() },
    "get /api/v1/inventory-alerts": { credential: "key", cases: feed() },
    "get /api/v1/market-pulse": { credential: "key", cases: own() },
    "post /api/v1/morning-briefing": { credential: "key", cases: engine({ role: "gm" }) },
    "post /api/v1/lender-route": {
      credential: "key",
      cases: engine({ beacon: 700, down_payment: 3000, vehicle_price: 25_000, vehicle_type: "car" }),
    },
    "post /api/v1/stip-check": { credential: "key", cases: engine({ lender: "Harbor Point Bank", beacon: 700 }) },
    "post /api/v1/gross-calc": { credential: "key", cases: engine({ purchase_price: 18_500, selling_price: 22_995 }) },
    "post /api/v1/deal-coach": { credential: "key", cases: engine({ beacon: 700, vehicle_price: 25_000 }) },
    "post /api/v1/trade-appraisal": {
      credential: "key",
      cases: own({ year: 2021, make: "Toyota", model: "Camry", mileage: 48_200, condition_notes: "clean" }),
    },
    "post /api/v1/compliance-check": { credential: "key", cases: own({ first_name: "Maria", last_name: "Hernandez", dob: "1984-06-12" }) },
    [`get /api/v1/compliance-checks/${ids.checkId}`]: { credential: "key", cases: named() },
    // A VIN Summit stocks: the decode is public reference data and must not tell who holds the car.
    [`get /api/v1/vehicles/${ids.vin}`]: { credential: "key", cases: own() },
    "get /api/v1/webhooks": { credential: "key", cases: own() },
    "post /api/v1/webhooks": { credential: "key", cases: own({ url: "https://hooks.example.com/lakeside", events: ["inventory.aged_alert"] }) },
    [`get ${webhook}`]: { credential: "key", cases: named() },
    [`patch ${webhook}`]: { credential: "key", cases: named({ description: "taken over" }) },
    [`delete ${webhook}`]: { credential: "key", cases: named() },
    [`get ${webhook}/deliveries`]: { credential: "key", cases: named() },
    [`post ${webhook}/deliveries/${ids.deliveryId}/redeliver`]: { credential: "key", cases: named() },
    [`post ${webhook}/trigger`]: { credential: "key", cases: named({ event: "inventory.aged_alert" }) },
    [`post ${webhook}/test`]: { credential: "key", cases: named() },
    [`post ${webhook}/rotate-secret`]: { credential: "key", cases: named({ overlap_hours: 0 }) },
    "put /api/v1/ingest/inventory": { credential: "key", cases: [{ namesOther: true, query: `store_id=${STORE}`, body: { units: [unit(1)] } }] },
    "post /api/v1/ingest/deals": { credential: "key", cases: named({ deals: [deal("X-1", STORE)] }) },
    "get /api/public-api/keys": { credential: "broker", cases: own() },
    "post /api/public-api/keys": { credential: "broker", cases: own({ label: "matrix", permissions: ["read"] }) },
    [`delete /api/public-api/keys/${ids.keyId}`]: { credential: "broker", cases: named() },
    [`post /api/public-api/keys/${ids.keyId}/rotate`]: { credential: "broker", cases: named({ overlap_hours: 0 }) },
    "get /api/settings/stores": { credential: "broker", cases: own() },
    [`get /api/settings/stores/${STORE}`]: { credential: "broker", cases: named() },
    [`patch /api/settings/stores/${STORE}`]: {
      credential: "broker",
      cases: [{ namesOther: true, body: { pack_used: 1 }, headers: { "If-Match": "*" } }],
    },
    [`get /api/settings/stores/${STORE}/lender-panel`]: { credential: "broker", cases: named() },
    [`put /api/settings/stores/${STORE}/lender-panel`]: { credential: "broker", cases: named({ programs: [] }) },
    "get /api/settings/compliance": { credential: "broker", cases: own() },
    "get /api/settings/audit": { credential: "broker", cases: own() },
  };
}

/** Operations that carry no organization's data either way (a session's own logout; a change of Lakeside's own settings is covered by its GET). */
const NOT_IN_MATRIX = ["post /api/auth/logout", "patch /api/settings/compliance"];

/** The documented operation (`method /path/{param}`) a concrete call is an instance of. */
const templateOf = (operation: string, ids: SummitIds) =>
  Object.entries({
    [ids.webhookId]: "{id}",
    [ids.keyId]: "{id}",
    [ids.deliveryId]: "{delivery_id}",
    [ids.checkId]: "{check_id}",
    [ids.vin]: "{vin}",
    [STORE]: "{store_id}",
  }).reduce((path, [id, param]) => path.split(`/${id}`).join(`/${param}`), operation);

async function d1Rows(sql: string): Promise<string[]> {
  const { results } = await env.DB.prepare(sql).all<{ v: string }>();
  return results.map((r) => r.v);
}

/** `sql`'s `v` column from the organization's object, where its units and deals are. */
async function storedRows(orgId: string, sql: string): Promise<string[]> {
  return (await rowsInObject<{ v: string }>(orgId, sql)).map((r) => r.v);
}

interface Summit {
  ids: SummitIds;
  markers: string[];
  /** What Summit sees of itself through `key`, to compare after every Lakeside call. */
  view: (key: string) => Promise<string[]>;
}

/** The demo organizations (seeded once: the file's tests share them), and Summit's webhook, delivery and check. */
async function seedSummit(): Promise<Summit> {
  const { summitKey } = await seedDemoOrgs();
  await loadDemoVehicleData();
  const summitCall = (path: string, body?: unknown) =>
    call(path, {
      method: body ? "POST" : "GET",
      key: summitKey,
      headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const hook = await (await summitCall("/api/v1/webhooks", { url: "https://hooks.example.com/summit-desk", events: ["inventory.aged_alert"] })).json<{
    id: string;
  }>();
  const check = await (await summitCall("/api/v1/compliance-check", { first_name: "Dana", last_name: "Whitfield", dob: "1979-03-02" })).json<{
    check_id: string;
  }>();
  const [keyId] = await d1Rows("SELECT id AS v FROM api_keys WHERE org_id = 'org_summit'");
  const [vin] = await storedRows("org_summit", "SELECT vin AS v FROM inventory_units ORDER BY id LIMIT 1");
  const ids: SummitIds = { keyId, webhookId: hook.id, deliveryId: "dlv_0000000000000000", checkId: check.check_id, vin };
  expect(Object.values(ids).every(Boolean), JSON.stringify(ids)).toBe(true);

  // What only Summit has: a Lakeside answer carrying any of these (that its request did not) leaked it.
  const lakesideHas = new Set([
    ...(await storedRows("org_lakeside", "SELECT stock_number AS v FROM inventory_units")),
    ...(await storedRows("org_lakeside", "SELECT vin AS v FROM inventory_units")),
    ...(await storedRows("org_lakeside", "SELECT deal_number AS v FROM deals")),
  ]);
  const markers = [
    "org_summit",
    "sto_summit",
    "Summit Auto",
    "Dana Whitfield",
    "summit-desk",
    ...Object.values(ids),
    ...(await storedRows("org_summit", "SELECT stock_number AS v FROM inventory_units")),
    ...(await storedRows("org_summit", "SELECT vin AS v FROM inventory_units")),
    ...(await storedRows("org_summit", "SELECT deal_number AS v FROM deals")),
    ...(await d1Rows("SELECT key_prefix AS v FROM api_keys WHERE org_id = 'org_summit'")),
  ].filter((m) => !lakesideHas.has(m));
  expect(markers.length).toBeGreaterThan(100);

  const view = async (key: string) =>
    Promise.all(
      ["/api/v1/inventory?limit=500", "/api/v1/sales-summary", `/api/v1/webhooks/${hook.id}`, `/api/v1/compliance-checks/${check.check_id}`].map(
        async (p) => (await call(p, { key })).text(),
      ),
    );
  return { ids, markers, view };
}

describe("no organization reaches another's data, on any endpoint", () => {
  let summit: Summit;
  beforeAll(async () => {
    summit = await seedSummit();
  }, 30_000);

  it("Lakeside's credentials against Summit's ids", { timeout: 120_000 }, async () => {
    const { ids, markers, view: summitView } = summit;
    const { key: summitKey } = await createApiKey("org_summit");
    const before = await summitView(summitKey);

    const { key } = await createApiKey("org_lakeside", { permissions: ["read", "ingest"] });
    const { token } = await createBrokerToken("org_lakeside");
    const table = operations(ids);
    const documented = Object.entries((await fetchOpenApiDocument()).paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.some((s) => "ServiceApiKey" in s || "BrokerToken" in s || "StaffSession" in s))
        .map(([method]) => `${method} ${path}`),
    );
    expect(
      Object.keys(table)
        .map((op) => templateOf(op, ids))
        .concat(NOT_IN_MATRIX)
        .sort(),
    ).toEqual(documented.sort());

    const failures: string[] = [];
    for (const [operation, { credential, cases }] of Object.entries(table)) {
      const [method, path] = operation.split(" ");
      for (const c of cases) {
        const url = c.query ? `${path}?${c.query}` : path;
        const headers: Record<string, string> = { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID(), ...c.headers };
        if (credential === "broker") headers.Authorization = `Bearer ${token}`;
        const body = c.body === undefined ? undefined : JSON.stringify(c.body);
        const res = await call(url, { method: method.toUpperCase(), key: credential === "key" ? key : undefined, headers, body });
        const text = await res.text();
        const sent = `${url} ${body ?? ""}`;
        const leaked = markers.filter((m) => text.includes(m) && !sent.includes(m));
        const label = `${method.toUpperCase()} ${url}${c.namesOther ? " (Summit's)" : ""}`;
        if (res.status >= 500) failures.push(`${label}: ${res.status}`);
        // Not found, as for an id that does not exist: a refusal must not tell that the id is someone else's.
        if (c.namesOther && res.status !== 404) failures.push(`${label}: answered ${res.status}, not 404, for another organization's resource`);
        if (!c.namesOther && res.status >= 400) failures.push(`${label}: its own request refused ${res.status} ${text.slice(0, 200)}`);
        if (leaked.length > 0) failures.push(`${label}: carries ${leaked.slice(0, 5).join(", ")}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await summitView(summitKey)).toEqual(before);
  });
});
