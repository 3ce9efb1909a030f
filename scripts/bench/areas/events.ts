/**
 * Events and ingestion are not request-rate scenarios, so this area adds measurements instead:
 * - `ingest_inventory_5000`: PUT /api/v1/ingest/inventory with 5,000 units, as a first load
 *   (every row inserted) and as a full update (every asking price changed); seconds and rows/s.
 * - `webhook_delivery`: deals ingested with one new stip each raise that many deal.stip_alert
 *   events; the consumer fans them out and delivers them to a receiver on 127.0.0.1. Deliveries
 *   per second from the ingestion's answer to the last verified delivery, queue batching included.
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { BROKER_TOKEN_PREFIX, generateToken, sha256Hex } from "../../../src/credentials/tokens";
import { dmsUnit } from "../dms-unit";
import type { BenchArea, BenchFixture, Measurement } from "../scenario";

/** A submitted deal whose one stip, proof of income, is outstanding or cleared: each change raises a `deal.stip_alert`. */
export function submittedDeal(dealNumber: string, storeId: string, state: "outstanding" | "cleared") {
  return {
    deal_number: dealNumber,
    store_id: storeId,
    status: "submitted",
    sold_on: "2026-11-20",
    vin: "1HGCV1F34NA012345",
    year: 2022,
    make: "Honda",
    model: "Accord",
    condition: "used",
    vehicle_type: "car",
    selling_price: 27_950,
    lender: "Ally Financial",
    front_gross: 1850,
    back_gross: 1320,
    stips: [{ stip: "proof_of_income", state }],
  };
}

export const brokerToken = generateToken(BROKER_TOKEN_PREFIX);
const UNITS = 5000;
const DELIVERIES = 500;

function inventory(priceOffset: number) {
  return {
    units: Array.from({ length: UNITS }, (_, i) => dmsUnit(`BENCH${i}`, i, priceOffset)),
  };
}

async function send(url: URL, method: string, path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(new URL(path, url), { method, headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function measureIngestion(url: URL, fixture: BenchFixture): Promise<Measurement[]> {
  const path = `/api/v1/ingest/inventory?store_id=${fixture.storeId}`;
  const auth = { Authorization: `Bearer ${brokerToken}` };
  // The first load takes every unit the store has in stock out of inventory, so it confirms that
  // count, which the refusal of an empty snapshot names (docs/ingestion.md).
  const probe = await fetch(new URL(path, url), { method: "PUT", headers: { "Content-Type": "application/json", ...auth }, body: '{"units":[]}' });
  const { in_stock: inStock } = (await probe.json()) as { in_stock: number };
  const results: Measurement[] = [];
  for (const [label, offset, query] of [
    ["first load", 0, `&confirm_removals=${inStock}`],
    ["full update", 1, ""],
  ] as const) {
    const started = performance.now();
    await send(url, "PUT", `${path}${query}`, auth, inventory(offset));
    const seconds = (performance.now() - started) / 1000;
    results.push({
      name: "ingest_inventory_5000",
      detail: label,
      value: Number(seconds.toFixed(2)),
      unit: "s",
      rate: Math.round(UNITS / seconds),
      rateUnit: "rows/s",
    });
  }
  return results;
}

async function measureDelivery(url: URL, fixture: BenchFixture): Promise<Measurement[]> {
  let secret = "";
  let verified = 0;
  let done: () => void = () => {};
  const allDelivered = new Promise<void>((resolve) => {
    done = resolve;
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const mac = createHmac("sha256", secret)
        .update(`${req.headers["x-service-webhook-id"]}.${req.headers["x-service-webhook-timestamp"]}.${body}`)
        .digest("hex");
      if (req.headers["x-service-signature"] === `sha256=${mac}`) verified++;
      res.writeHead(204).end();
      if (verified === DELIVERIES) done();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const endpoint = await send(
      url,
      "POST",
      "/api/v1/webhooks",
      { "X-Service-API-Key": fixture.key },
      {
        url: `http://127.0.0.1:${port}/bench`,
        events: ["deal.stip_alert"],
      },
    );
    secret = endpoint.secret;
    const deals = Array.from({ length: DELIVERIES }, (_, i) => submittedDeal(`BENCH-${i}`, fixture.storeId, "outstanding"));
    await send(url, "POST", "/api/v1/ingest/deals", { Authorization: `Bearer ${brokerToken}` }, { deals });
    const started = performance.now();
    const timeout = setTimeout(() => done(), 120_000);
    await allDelivered;
    clearTimeout(timeout);
    const seconds = (performance.now() - started) / 1000;
    if (verified < DELIVERIES) throw new Error(`webhook_delivery: ${verified} of ${DELIVERIES} verified deliveries within 120 s`);
    return [
      {
        name: "webhook_delivery",
        detail: `${DELIVERIES} signed deliveries`,
        value: Number(seconds.toFixed(2)),
        unit: "s",
        rate: Math.round(DELIVERIES / seconds),
        rateUnit: "deliveries/s",
      },
    ];
  } finally {
    server.close();
  }
}

export const eventsArea: BenchArea = {
  name: "events",
  seed: async (db, fixture) => {
    await db
      .prepare("INSERT INTO broker_tokens (id, org_id, token_hash, label) VALUES ('brk_bench', ?, ?, 'bench')")
      .bind(fixture.orgId, await sha256Hex(brokerToken))
      .run();
  },
  scenarios: () => [],
  measurements: [
    { name: "ingest_inventory_5000", run: measureIngestion },
    { name: "webhook_delivery", run: measureDelivery },
  ],
};
