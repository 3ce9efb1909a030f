import { z } from "@hono/zod-openapi";
import type { DealFields, UnitFields } from "../../db/queries/ingest";
import { STIP_STATES } from "../../db/schema";
import { DEAL_STATUSES, UNIT_CONDITIONS, VEHICLE_TYPES } from "../../engines/deal-math/vocabulary";
import { documentedError, ErrorSchema } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";

const MAX_INGEST_ROWS = 5000;
/** 5,000 rows of either kind fit in well under 4 MiB of JSON. */
const INGEST_MAX_BYTES = 4 * 1024 * 1024;

const isoDate = z.iso.date().openapi({ example: "2026-10-02" });
const text = (max: number) => z.string().trim().min(1).max(max);
const money = z.number().min(0).max(10_000_000);

/** A unit's fields are the `inventory_units` columns a snapshot sets (db/queries/ingest.ts): a column added there fails here until it is. */
export const IngestInventoryUnitSchema = z
  .object({
    stock_number: text(40).openapi({ example: "U24117" }),
    vin: z
      .string()
      .trim()
      // Case-insensitive by listing both cases: a regex flag is lost in the document's `pattern`.
      .regex(/^[A-HJ-NPR-Za-hj-npr-z0-9]{17}$/, "must be a 17-character VIN (no I, O or Q)")
      .openapi({ example: "4T1G11AK5NU712345" }),
    year: z.int().min(1980).max(2100).openapi({ example: 2022 }),
    make: text(40).openapi({ example: "Toyota" }),
    model: text(60).openapi({ example: "Camry" }),
    trim: z.string().trim().max(60).default("").openapi({ example: "SE" }),
    condition: z.enum(UNIT_CONDITIONS),
    vehicle_type: z.enum(VEHICLE_TYPES),
    mileage: z.int().min(0).max(2_000_000).openapi({ example: 31250 }),
    stocked_on: isoDate.openapi({ description: "The day the dealer took ownership (the aging clock starts here)." }),
    cost: money.openapi({ example: 21400 }),
    asking_price: money.openapi({ example: 24995 }),
  } satisfies Record<keyof UnitFields, z.ZodType>)
  .openapi("IngestInventoryUnit");

export const IngestInventorySchema = z.object({ units: z.array(IngestInventoryUnitSchema).max(MAX_INGEST_ROWS) }).openapi("IngestInventorySnapshot");

const IngestStipSchema = z
  .object({
    stip: text(60).openapi({ example: "proof_of_income" }),
    state: z.enum(STIP_STATES),
    requested_on: isoDate.optional().openapi({ description: "Default: the day it is first ingested." }),
    cleared_on: isoDate.optional().openapi({ description: "Default, when `state` is `cleared`: the day the clearing is first ingested." }),
  })
  .openapi("IngestStip");

/** A deal's fields are the `deals` columns a push sets, and its stips. */
export const IngestDealSchema = z
  .object({
    deal_number: text(40).openapi({ example: "D-10442" }),
    store_id: text(64).openapi({ description: "A store of this organization (else 404).", example: "sto_summit_north" }),
    status: z.enum(DEAL_STATUSES),
    sold_on: isoDate,
    submitted_on: isoDate.optional(),
    funded_on: isoDate.optional(),
    vin: IngestInventoryUnitSchema.shape.vin,
    year: IngestInventoryUnitSchema.shape.year,
    make: IngestInventoryUnitSchema.shape.make,
    model: IngestInventoryUnitSchema.shape.model,
    condition: z.enum(UNIT_CONDITIONS),
    vehicle_type: z.enum(VEHICLE_TYPES),
    selling_price: money.openapi({ example: 27950 }),
    lender: text(80).optional().openapi({ description: "Omit for cash deals.", example: "Ally Financial" }),
    beacon: z.int().min(300).max(900).optional().openapi({ example: 684 }),
    amount_financed: money.optional().openapi({ example: 24100 }),
    front_gross: z.number().min(-1_000_000).max(1_000_000).openapi({ example: 1850 }),
    back_gross: z.number().min(-1_000_000).max(1_000_000).openapi({ example: 1320 }),
    stips: z.array(IngestStipSchema).max(30).optional().openapi({
      description:
        "The deal's stipulations as the DMS has them now, each name once (a name listed twice is a 422, detail code `duplicate`). Omitted: the deal's stips are left as they are.",
    }),
  } satisfies Record<keyof DealFields | "stips", z.ZodType>)
  .openapi("IngestDeal");

export const IngestDealsSchema = z.object({ deals: z.array(IngestDealSchema).max(MAX_INGEST_ROWS) }).openapi("IngestDeals");

const IngestInventoryResultSchema = z
  .object({
    store_id: z.string(),
    received: z.int().openapi({ description: "Units in the snapshot.", example: 212 }),
    created: z.int().openapi({ example: 4 }),
    updated: z.int().openapi({ description: "Units already known whose fields changed (or that came back into stock).", example: 9 }),
    unchanged: z.int().openapi({ example: 199 }),
    removed: z.int().openapi({ description: "Units in stock at this store that the snapshot no longer lists; they left inventory.", example: 3 }),
  })
  .openapi("IngestInventoryResult");

const IngestDealsResultSchema = z
  .object({
    received: z.int().openapi({ example: 40 }),
    created: z.int().openapi({ example: 2 }),
    updated: z.int().openapi({ example: 5 }),
    unchanged: z.int().openapi({ example: 33 }),
    stip_alerts: z
      .int()
      .openapi({ description: "`deal.stip_alert` events raised (a new stip, or one cleared, on a deal in the funding pipeline).", example: 3 }),
  })
  .openapi("IngestDealsResult");

/** The 422 of a snapshot refused for what it would remove: the counts, so a client can check and confirm them. */
export const SnapshotRefusedSchema = ErrorSchema.extend({
  error: z.literal("validation_error"),
  in_stock: z.int().openapi({ description: "Units in stock at the store now.", example: 175 }),
  would_remove: z
    .int()
    .openapi({ description: "Of those, the units the snapshot does not list: what it would take out of inventory.", example: 172 }),
}).openapi("SnapshotRefused");

const csvBody = { schema: { type: "string" as const, description: "RFC 4180 CSV, UTF-8, with a header row naming the fields." } };
const ROW_PROBLEMS =
  "Row-level problems (`validation_error`); nothing was written. Each detail's `path` is `units.<row>.<field>` or `deals.<row>.<field>`, the row counted from 0 in the JSON array or the CSV's data rows (CSV line = row + 2).";

export const ingestInventory = v1Route({
  method: "put",
  path: "/api/v1/ingest/inventory",
  operationId: "ingestInventory",
  tags: ["Ingestion"],
  summary: "Replace one store's inventory with the DMS's snapshot",
  description: `Upserts every unit (by stock number) and takes units the snapshot does not list out of inventory (status \`sold\`). Up to ${MAX_INGEST_ROWS} units; all or nothing; sending the same snapshot again changes nothing. A broker token or a key with the \`ingest\` permission.

Nothing is removed by accident: a snapshot with no units is refused unless \`allow_empty=true\`, and one that would take more than half of the store's units in stock out of inventory is refused unless \`confirm_removals\` gives that number (the refusal says it). Exactly half goes through.`,
  endpoint: "ingest",
  ingest: true,
  body: { maxBytes: INGEST_MAX_BYTES },
  idempotent: true,
  reads: "primary",
  request: {
    query: z.object({
      store_id: text(64).openapi({
        description: "The store this snapshot is for. A store of another organization, or no store at all: 404 `not_found`.",
        example: "sto_summit_north",
      }),
      allow_empty: z.enum(["true", "false"]).default("false").openapi({
        description:
          "`true`: a snapshot listing no units is applied (every unit in stock at the store leaves inventory). Without it such a snapshot is a 422 (detail code `empty_snapshot`) and nothing is written.",
      }),
      confirm_removals: z.coerce.number().int().min(0).optional().openapi({
        description:
          "The number of units the snapshot takes out of inventory, as the caller expects it. Required when that is more than half the units in stock at the store (else a 422 with detail code `removals_unconfirmed`); when given it must equal that number (else a 422 with detail code `removals_mismatch`). Either refusal carries `in_stock` and `would_remove`; nothing is written.",
        example: 3,
      }),
    }),
    body: {
      description: "JSON `{ units: [...] }`, or CSV with the unit fields as columns.",
      content: {
        "application/json": {
          schema: IngestInventorySchema,
          example: {
            units: [
              {
                stock_number: "U24117",
                vin: "4T1G11AK5NU712345",
                year: 2022,
                make: "Toyota",
                model: "Camry",
                trim: "SE",
                condition: "used",
                vehicle_type: "car",
                mileage: 31250,
                stocked_on: "2026-10-02",
                cost: 21400,
                asking_price: 24995,
              },
            ],
          },
        },
        "text/csv": csvBody,
      },
    },
  },
  responses: {
    200: {
      description: "Applied.",
      content: {
        "application/json": {
          schema: IngestInventoryResultSchema,
          // A demo store's 175 units with 3 sold, 9 repriced and 4 new ones stocked.
          example: { store_id: "sto_summit_north", received: 176, created: 4, updated: 9, unchanged: 163, removed: 3 },
        },
      },
    },
    404: documentedError("`store_id` names no store of this organization (`not_found`); nothing was written."),
    422: {
      description: `${ROW_PROBLEMS} Or the snapshot was refused for what it would remove (detail codes \`empty_snapshot\`, \`removals_unconfirmed\`, \`removals_mismatch\`; the body adds \`in_stock\` and \`would_remove\`).`,
      content: { "application/json": { schema: z.union([SnapshotRefusedSchema, ErrorSchema]) } },
    },
  },
});

export const ingestDeals = v1Route({
  method: "post",
  path: "/api/v1/ingest/deals",
  operationId: "ingestDeals",
  tags: ["Ingestion"],
  summary: "Upsert deals with their status and stips",
  description: `Upserts each deal by deal number, and its stips by name. A stip that is new, or newly cleared, on a deal in the funding pipeline (pending, submitted, approved) raises \`deal.stip_alert\`. Up to ${MAX_INGEST_ROWS} deals; all or nothing; sending the same request again changes nothing and raises nothing. A deal lists each stip once (a name twice is a 422 naming it). In CSV the \`stips\` column lists \`name=state\` pairs separated by \`;\`.`,
  endpoint: "ingest",
  ingest: true,
  body: { maxBytes: INGEST_MAX_BYTES },
  idempotent: true,
  reads: "primary",
  request: {
    body: {
      description: "JSON `{ deals: [...] }`, or CSV with the deal fields as columns.",
      content: {
        "application/json": {
          schema: IngestDealsSchema,
          example: {
            deals: [
              {
                deal_number: "D-10442",
                store_id: "sto_summit_north",
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
                stips: [{ stip: "proof_of_income", state: "outstanding" }],
              },
            ],
          },
        },
        "text/csv": csvBody,
      },
    },
  },
  responses: {
    200: {
      description: "Applied.",
      content: {
        "application/json": {
          schema: IngestDealsResultSchema,
          // The answer to the example request: a new submitted deal with an outstanding stip.
          example: { received: 1, created: 1, updated: 0, unchanged: 0, stip_alerts: 1 },
        },
      },
    },
    422: documentedError(ROW_PROBLEMS),
    404: documentedError("A deal's `store_id` names no store of this organization (`not_found`; the message names the rows); nothing was written."),
  },
});
