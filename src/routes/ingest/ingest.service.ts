import type { z } from "@hono/zod-openapi";
import Papa from "papaparse";
import type { Database } from "../../db/client";
import { GUARDED_WRITE_ATTEMPTS } from "../../db/guarded";
import * as queries from "../../db/queries/ingest";
import { refreshAlertTotals } from "../../db/queries/reports";
import { findStaleFeeds, recordFeedDeliveries } from "../../db/queries/signals";
import type { StoreFeed } from "../../engines/freshness";
import { commitWithEvents, type DomainEvent } from "../../events/emit";
import { ApiError, type ValidationDetail } from "../../http/errors";
import { validationError } from "../../http/router";
import { newId } from "../../lib/ids";
import type { IngestDealSchema, IngestDealsSchema, IngestInventorySchema } from "./ingest.routes";

type Deal = z.infer<typeof IngestDealSchema>;

/** Deals whose stips still matter: not yet funded, not unwound. */
const PIPELINE_STATUSES = new Set(["pending", "submitted", "approved"]);

const NUMERIC_FIELDS = new Set([
  "year",
  "mileage",
  "cost",
  "asking_price",
  "selling_price",
  "beacon",
  "amount_financed",
  "front_gross",
  "back_gross",
]);

/**
 * CSV cells are text: numeric columns become numbers (a cell that is not a number stays text, so
 * validation names its row and field), empty cells are left out, and a deal's `stips` cell
 * (`name=state;name=state`) becomes the list JSON carries.
 */
function csvRecord(record: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(record)) {
    if (cell === "") continue;
    if (NUMERIC_FIELDS.has(column)) {
      const n = Number(cell);
      out[column] = Number.isFinite(n) ? n : cell;
    } else if (column === "stips") {
      out.stips = cell
        .split(";")
        .filter((pair) => pair.trim() !== "")
        .map((pair) => {
          const [stip, state] = pair.split("=").map((part) => part.trim());
          return { stip, state };
        });
    } else {
      out[column] = cell;
    }
  }
  return out;
}

function parseCsv(body: string): Record<string, unknown>[] {
  // An empty body is a missing body, as for JSON; curl sends one when `--data-binary @file` names no file.
  if (body.replace(/^\ufeff/, "").trim() === "")
    throw new ApiError(
      "invalid_request",
      "The CSV body is empty: send the header row and one row per record (is the file you meant to send there?).",
    );
  // The delimiter is given so Papa Parse never guesses it; any quoting or field-count problem it
  // reports refuses the whole body (it would otherwise recover and keep going).
  const { data, errors, meta } = Papa.parse<Record<string, string>>(body, {
    header: true,
    delimiter: ",",
    skipEmptyLines: true,
    transformHeader: (header) => header.trim(),
    transform: (cell) => cell.trim(),
  });
  const [error] = errors;
  if (error) {
    // Quoting errors carry the offending character's offset; field-count errors the data row (from 0, as in 422 paths).
    const where =
      error.index !== undefined
        ? ` (near line ${body.slice(0, error.index).split("\n").length})`
        : error.row !== undefined
          ? ` (data row ${error.row})`
          : "";
    throw new ApiError("invalid_request", `The CSV body could not be parsed${where}: ${error.message.slice(0, 200)}`);
  }
  // Papa Parse renames a repeated column (`price`, `price_1`) and the schema would drop the copy.
  const repeated = Object.values(meta.renamedHeaders ?? {});
  if (repeated.length > 0)
    throw new ApiError("invalid_request", `The CSV header names a column more than once: ${[...new Set(repeated)].join(", ").slice(0, 200)}.`);
  return data.map(csvRecord);
}

/** The body as the route's schema sees it: JSON was validated by the route; CSV is parsed and validated here, the same way. */
export function readBody<T extends z.ZodType>(schema: T, body: { json: unknown; csv: string | null }, listName: string): z.infer<T> {
  if (body.csv === null) return body.json as z.infer<T>;
  const parsed = schema.safeParse({ [listName]: parseCsv(body.csv) });
  if (!parsed.success) throw validationError(parsed.error, "body");
  return parsed.data;
}

/** Rows whose key an earlier row has already, with that earlier row's index. */
function repeatedRows<T>(rows: T[], key: (row: T) => string) {
  const seen = new Map<string, number>();
  const repeated: { index: number; key: string; first: number }[] = [];
  rows.forEach((row, index) => {
    const first = seen.get(key(row));
    if (first !== undefined) repeated.push({ index, key: key(row), first });
    else seen.set(key(row), index);
  });
  return repeated;
}

function assertUnique<T>(rows: T[], key: (row: T) => string, listName: string, field: string): void {
  const details = repeatedRows(rows, key).map(
    (r): ValidationDetail => ({ path: `${listName}.${r.index}.${field}`, code: "duplicate", message: `Also in row ${r.first}.` }),
  );
  if (details.length > 0) throw new ApiError("validation_error", `Each ${field} may appear once per request.`, { details: details.slice(0, 100) });
}

/**
 * Stips are matched by name, so a name listed twice in one deal has no single state: both rows
 * would be stored and every replay would flip them (and raise an alert every other time).
 */
function assertStipsUniquePerDeal(deals: Deal[]): void {
  const repeated = deals.flatMap((deal, dealIndex) => repeatedRows(deal.stips ?? [], (s) => s.stip).map((r) => ({ ...r, dealIndex })));
  if (repeated.length === 0) return;
  const names = [...new Set(repeated.map((r) => r.key))].join(", ");
  throw new ApiError("validation_error", `A deal may list each stip once; listed more than once: ${names.slice(0, 200)}.`, {
    details: repeated.slice(0, 100).map((r) => ({
      path: `deals.${r.dealIndex}.stips.${r.index}.stip`,
      code: "duplicate",
      message: `${r.key} is also stip ${r.first} of this deal.`,
    })),
  });
}

/** The deal desk's answer for a store id that is not the organization's, whether it exists elsewhere or not. */
const storeNotFound = (where?: string) => new ApiError("not_found", `This organization has no store with that id${where ? ` (${where})` : ""}.`);

export interface SnapshotSafety {
  /** The caller says an empty snapshot is meant. */
  allowEmpty: boolean;
  /** The number of units the caller expects the snapshot to take out of inventory. */
  confirmRemovals: number | undefined;
}

/**
 * An empty snapshot, or one that takes most of a store out of inventory, is more often a wrong or
 * missing file than a real sale-out: it is applied only when the caller says so (docs/ingestion.md).
 */
function assertDeliberateRemovals(storeId: string, listed: number, counts: { inStock: number; absent: number }, safety: SnapshotSafety): void {
  const { inStock, absent } = counts;
  const refuse = (path: string, code: string, message: string) =>
    new ApiError("validation_error", message, { details: [{ path, code, message }], body: { in_stock: inStock, would_remove: absent } });
  const emptyAllowed = listed === 0 && safety.allowEmpty;
  if (listed === 0 && !emptyAllowed) {
    throw refuse(
      "units",
      "empty_snapshot",
      `The snapshot lists no units: applied, it would take all ${inStock} units in stock at ${storeId} out of inventory. If the store really has none left, send it again with allow_empty=true; otherwise check the body you sent.`,
    );
  }
  if (safety.confirmRemovals !== undefined && safety.confirmRemovals !== absent) {
    throw refuse(
      "confirm_removals",
      "removals_mismatch",
      `confirm_removals=${safety.confirmRemovals}, but this snapshot would take ${absent} of the ${inStock} units in stock at ${storeId} out of inventory. Check the snapshot; if ${absent} is right, send it with confirm_removals=${absent}.`,
    );
  }
  if (absent * 2 > inStock && safety.confirmRemovals === undefined && !emptyAllowed) {
    throw refuse(
      "confirm_removals",
      "removals_unconfirmed",
      `This snapshot would take ${absent} of the ${inStock} units in stock at ${storeId} out of inventory, more than half. If that is right, send it again with confirm_removals=${absent}.`,
    );
  }
}

const sameValues = (stored: Record<string, unknown>, incoming: Record<string, unknown>, fields: string[]) =>
  fields.every((f) => (stored[f] ?? null) === (incoming[f] ?? null));

const UNIT_FIELDS = [
  "store_id",
  "vin",
  "year",
  "make",
  "model",
  "trim",
  "condition",
  "vehicle_type",
  "mileage",
  "stocked_on",
  "cost",
  "asking_price",
  "status",
];

/**
 * A delivery of the stores' feed: each store's feed is received now, and a store whose feed had a
 * stale episode open raises `store.feed_resumed` once, closing it (docs/ingestion.md#when-a-feed-stops).
 */
async function feedDelivery(db: Database, orgId: string, storeIds: string[], feed: StoreFeed, now: Date) {
  const at = now.toISOString();
  const stale = await findStaleFeeds(db, orgId, storeIds, feed);
  const events: DomainEvent[] = stale.map((s) => ({
    event: "store.feed_resumed",
    orgId,
    storeId: s.storeId,
    data: {
      feed,
      stale_since: s.staleSince,
      last_received_at: s.receivedAt,
      received_at: at,
      gap_hours: Number(((now.getTime() - Date.parse(s.receivedAt)) / 3_600_000).toFixed(1)),
    },
  }));
  return { statements: recordFeedDeliveries(db, orgId, storeIds, feed, at), events };
}

export async function ingestInventory(
  env: Pick<Env, "WEBHOOKS">,
  db: Database,
  orgId: string,
  storeId: string,
  body: z.infer<typeof IngestInventorySchema>,
  safety: SnapshotSafety,
  now: Date,
) {
  if (!(await queries.listStoreIds(db, orgId)).has(storeId)) throw storeNotFound();
  const units = body.units;
  assertUnique(units, (u) => u.stock_number, "units", "stock_number");
  const stockNumbers = units.map((u) => u.stock_number);
  assertDeliberateRemovals(storeId, units.length, await queries.countSnapshotRemovals(db, orgId, storeId, stockNumbers), safety);
  const existing = new Map((await queries.findUnitsByStockNumber(db, orgId, stockNumbers)).map((u) => [u.stockNumber, u]));

  let created = 0;
  let updated = 0;
  const changed: queries.UnitRow[] = [];
  for (const unit of units) {
    const stored = existing.get(unit.stock_number);
    const row = { ...unit, id: stored?.id ?? newId("unit") };
    if (!stored) {
      created++;
      changed.push(row);
      continue;
    }
    const storedFields = {
      store_id: stored.storeId,
      vin: stored.vin,
      year: stored.year,
      make: stored.make,
      model: stored.model,
      trim: stored.trim,
      condition: stored.condition,
      vehicle_type: stored.vehicleType,
      mileage: stored.mileage,
      stocked_on: stored.stockedOn,
      cost: stored.cost,
      asking_price: stored.askingPrice,
      status: stored.status,
    };
    if (!sameValues(storedFields, { ...unit, store_id: storeId, status: "in_stock" }, UNIT_FIELDS)) {
      updated++;
      changed.push(row);
    }
  }

  // One batch: the snapshot lands whole or not at all, and a concurrent read sees it before or after;
  // the delivery is recorded with it (docs/ingestion.md#when-a-feed-stops).
  const delivery = await feedDelivery(db, orgId, [storeId], "inventory", now);
  const {
    results: [removedRows],
  } = await commitWithEvents(
    env,
    db,
    [queries.markAbsentUnitsSold(db, orgId, storeId, stockNumbers), ...queries.upsertUnits(db, orgId, storeId, changed), ...delivery.statements],
    delivery.events,
    now,
  );
  // The inventory-alerts totals of this store, now rather than on the next report's request (docs/reports.md#totals).
  if (created + updated + (removedRows as unknown[]).length > 0) await refreshAlertTotals(db, orgId, now, [storeId]);
  return {
    store_id: storeId,
    received: units.length,
    created,
    updated,
    unchanged: units.length - created - updated,
    removed: (removedRows as unknown[]).length,
  };
}

const DEAL_FIELDS = [
  "store_id",
  "sold_on",
  "submitted_on",
  "funded_on",
  "status",
  "vin",
  "year",
  "make",
  "model",
  "condition",
  "vehicle_type",
  "selling_price",
  "lender",
  "beacon",
  "amount_financed",
  "front_gross",
  "back_gross",
];

type StoredDeal = Awaited<ReturnType<typeof queries.findDealsByNumber>>[number];

function storedDealFields(d: StoredDeal): Record<string, unknown> {
  return {
    store_id: d.storeId,
    sold_on: d.soldOn,
    submitted_on: d.submittedOn,
    funded_on: d.fundedOn,
    status: d.status,
    vin: d.vin,
    year: d.year,
    make: d.make,
    model: d.model,
    condition: d.condition,
    vehicle_type: d.vehicleType,
    selling_price: d.sellingPrice,
    lender: d.lender,
    beacon: d.beacon,
    amount_financed: d.amountFinanced,
    front_gross: d.frontGross,
    back_gross: d.backGross,
  };
}

/** The stip writes and `deal.stip_alert` events of one deal: new stips, and stips newly cleared. */
function stipChanges(orgId: string, deal: Deal, stored: StoredDeal | undefined, today: string) {
  const rows: queries.StipRow[] = [];
  const events: DomainEvent[] = [];
  const inPipeline = PIPELINE_STATUSES.has(deal.status);
  for (const stip of deal.stips ?? []) {
    const previous = stored?.stips.find((s) => s.stip === stip.stip);
    const clearedOn = stip.state === "cleared" ? (stip.cleared_on ?? previous?.clearedOn ?? today) : null;
    const row = {
      id: previous?.id ?? newId("stp"),
      deal_number: deal.deal_number,
      stip: stip.stip,
      state: stip.state,
      requested_on: stip.requested_on ?? previous?.requestedOn ?? today,
      cleared_on: clearedOn,
    };
    if (previous && previous.state === row.state && previous.requestedOn === row.requested_on && previous.clearedOn === row.cleared_on) continue;
    rows.push(row);
    const change = !previous ? "added" : stip.state === "cleared" && previous.state !== "cleared" ? "cleared" : null;
    if (inPipeline && change) {
      events.push({
        event: "deal.stip_alert",
        orgId,
        storeId: deal.store_id,
        data: { deal_number: deal.deal_number, deal_status: deal.status, lender: deal.lender ?? null, stip: stip.stip, change, state: stip.state },
      });
    }
  }
  return { rows, events };
}

export async function ingestDeals(env: Pick<Env, "WEBHOOKS">, db: Database, orgId: string, body: z.infer<typeof IngestDealsSchema>, now: Date) {
  const deals = body.deals;
  assertUnique(deals, (d) => d.deal_number, "deals", "deal_number");
  assertStipsUniquePerDeal(deals);
  const storeIds = await queries.listStoreIds(db, orgId);
  const unknownStores = deals.flatMap((d, index) => (storeIds.has(d.store_id) ? [] : [`deals.${index}.store_id`]));
  if (unknownStores.length > 0) {
    const more = unknownStores.length > 5 ? ` and ${unknownStores.length - 5} more` : "";
    throw storeNotFound(`${unknownStores.slice(0, 5).join(", ")}${more}`);
  }

  // Simultaneous posts of the same deals: the write holds only while what was read still stands
  // (unlessDealsChanged), else the post reads again, so a new stip is stored and alerted once.
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeDeals(env, db, orgId, deals, now);
    } catch (error) {
      if (!queries.isStaleDealsError(error) || attempt === GUARDED_WRITE_ATTEMPTS) throw error;
    }
  }
}

async function writeDeals(env: Pick<Env, "WEBHOOKS">, db: Database, orgId: string, deals: Deal[], now: Date) {
  const dealNumbers = deals.map((d) => d.deal_number);
  const read = await queries.findDealsByNumber(db, orgId, dealNumbers);
  const existing = new Map(read.map((d) => [d.dealNumber, d]));
  const readStips = read.flatMap((d) => d.stips.map(({ id, state, requestedOn, clearedOn }) => ({ id, state, requestedOn, clearedOn })));
  const today = now.toISOString().slice(0, 10);
  let created = 0;
  let updated = 0;
  const dealRows: queries.DealRow[] = [];
  const stipRows: queries.StipRow[] = [];
  const events: DomainEvent[] = [];
  for (const deal of deals) {
    const stored = existing.get(deal.deal_number);
    const row: queries.DealRow = {
      id: stored?.id ?? newId("deal"),
      deal_number: deal.deal_number,
      store_id: deal.store_id,
      sold_on: deal.sold_on,
      submitted_on: deal.submitted_on ?? null,
      funded_on: deal.funded_on ?? null,
      status: deal.status,
      vin: deal.vin,
      year: deal.year,
      make: deal.make,
      model: deal.model,
      condition: deal.condition,
      vehicle_type: deal.vehicle_type,
      selling_price: deal.selling_price,
      lender: deal.lender ?? null,
      beacon: deal.beacon ?? null,
      amount_financed: deal.amount_financed ?? null,
      front_gross: deal.front_gross,
      back_gross: deal.back_gross,
    };
    const stips = stipChanges(orgId, deal, stored, today);
    const dealChanged = !stored || !sameValues(storedDealFields(stored), row as unknown as Record<string, unknown>, DEAL_FIELDS);
    if (!stored) created++;
    else if (dealChanged || stips.rows.length > 0) updated++;
    if (dealChanged) dealRows.push(row);
    stipRows.push(...stips.rows);
    events.push(...stips.events);
  }

  const guard = queries.unlessDealsChanged(db, orgId, dealNumbers, read.length, readStips);
  const delivery = await feedDelivery(db, orgId, [...new Set(deals.map((d) => d.store_id))], "deals", now);
  await commitWithEvents(
    env,
    db,
    [guard, ...queries.upsertDeals(db, orgId, dealRows), ...queries.upsertStips(db, orgId, stipRows), ...delivery.statements],
    [...events, ...delivery.events],
    now,
  );
  return { received: deals.length, created, updated, unchanged: deals.length - created - updated, stip_alerts: events.length };
}
