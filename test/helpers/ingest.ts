import { dmsUnit } from "../../scripts/bench/dms-unit";
import { call, createApiKey } from "./factories";

/** A `lak_` key with the `ingest` permission. */
export async function createIngestKey(orgId: string, scopes: string[] | null = null) {
  return (await createApiKey(orgId, { permissions: ["read", "ingest"], scopes, dailyLimit: 100_000 })).key;
}

export function unit(i: number, overrides: Record<string, unknown> = {}) {
  return { ...dmsUnit(`S${String(i).padStart(5, "0")}`, i), ...overrides };
}

/** What a snapshot's answer counts. */
export type SnapshotCounts = { created: number; updated: number; unchanged: number; removed: number };

/** Sixty units, the start of every `growingSnapshot`. */
export const BASE_UNITS = Array.from({ length: 60 }, (_, i) => unit(i));

/** The i-th snapshot of a feed that grows: the base units, unit 0 repriced to 30,000 + i, and one new unit W-j for each j ≤ i. */
export const growingSnapshot = (i: number) => [
  unit(0, { asking_price: 30_000 + i }),
  ...BASE_UNITS.slice(1),
  ...Array.from({ length: i + 1 }, (_, j) => unit(90_000 + j, { stock_number: `W-${j}` })),
];

export function deal(number: string, storeId: string, overrides: Record<string, unknown> = {}) {
  return {
    deal_number: number,
    store_id: storeId,
    status: "submitted",
    sold_on: "2026-11-20",
    submitted_on: "2026-11-21",
    vin: "1HGCV1F34NA012345",
    year: 2022,
    make: "Honda",
    model: "Accord",
    condition: "used",
    vehicle_type: "car",
    selling_price: 27950,
    lender: "Ally Financial",
    beacon: 684,
    amount_financed: 24100,
    front_gross: 1850,
    back_gross: 1320,
    ...overrides,
  };
}

/** Rows as CSV with a header row (cells quoted when needed). */
export function toCsv(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => {
    const text = v === undefined || v === null ? "" : String(v);
    return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.join(","), ...rows.map((r) => columns.map((c) => cell(r[c])).join(","))].join("\n");
}

type Auth = { key: string } | { broker: string };

export function ingestCall(path: string, auth: Auth, body: unknown, options: { method?: string; csv?: boolean } = {}) {
  const headers: Record<string, string> = { "Content-Type": options.csv ? "text/csv" : "application/json" };
  if ("broker" in auth) headers.Authorization = `Bearer ${auth.broker}`;
  return call(path, {
    method: options.method ?? "POST",
    key: "key" in auth ? auth.key : undefined,
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** `query` adds parameters after `store_id` (e.g. `{ confirm_removals: "3" }`). */
export const putInventory = (storeId: string, auth: Auth, body: unknown, csv = false, query: Record<string, string> = {}) =>
  ingestCall(`/api/v1/ingest/inventory?${new URLSearchParams({ store_id: storeId, ...query })}`, auth, body, { method: "PUT", csv });

export const postDeals = (auth: Auth, body: unknown, csv = false) => ingestCall("/api/v1/ingest/deals", auth, body, { csv });
