import { z } from "@hono/zod-openapi";
import { UNIT_CONDITIONS } from "../../engines/deal-math/vocabulary";
import { dataAsOfFields, freshFeedExample } from "../../http/data-as-of";
import { documentedError, notFoundResponse } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";
import { INVENTORY_PAGE_MAX, SALES_SUMMARY_PAGE_MAX } from "./feeds.service";

/** Fields only a call with parameters gets: a client that sends none sees the contract's answer. */
const ONLY_WITH_PARAMETERS = "Present when the call has any query parameter.";
/** A plain call's answer says when it stopped at the cap, and how to go on. */
const WITH_PARAMETERS_OR_CAPPED =
  "Present when the call has any query parameter, and on a call without parameters whose answer stopped at the cap (then `true`, with the cursor of the next page).";
const pagingFields = {
  has_more: z
    .boolean()
    .optional()
    .openapi({ description: `Whether another page follows. ${WITH_PARAMETERS_OR_CAPPED}` }),
  next_cursor: z
    .string()
    .nullable()
    .optional()
    .openapi({
      description: `Pass as \`cursor\` (with the same \`store_id\` and \`updated_since\`) for the next page; null on the last page. ${WITH_PARAMETERS_OR_CAPPED}`,
    }),
};
const changeFields = {
  store_id: z
    .string()
    .optional()
    .openapi({ description: `The store's id. ${ONLY_WITH_PARAMETERS}` }),
  updated_at: z
    .string()
    .optional()
    .openapi({
      description: `ISO-8601 UTC time of the last change (docs/feeds.md#what-updated-means); the highest one seen is the next \`updated_since\`. ${ONLY_WITH_PARAMETERS}`,
    }),
};

const InventoryUnitSchema = z
  .object({
    stock_number: z.string(),
    vin: z.string(),
    year: z.int(),
    make: z.string(),
    model: z.string(),
    trim: z.string(),
    condition: z.enum(UNIT_CONDITIONS),
    days_in_stock: z.int().openapi({ description: "Days since the dealer took ownership, computed at read time." }),
    asking_price: z.number(),
    store: z.string().openapi({ description: "Store name." }),
    ...changeFields,
  })
  .openapi("InventoryUnit");

const RemovedUnitSchema = z
  .object({
    stock_number: z.string(),
    store: z.string(),
    store_id: z.string(),
    updated_at: z.string().openapi({ description: "When the unit left inventory (ISO-8601 UTC)." }),
  })
  .openapi("RemovedUnit");

export const InventoryFeedSchema = z
  .object({
    count: z.int().openapi({ description: "Units in `inventory` (in this page)." }),
    inventory: z.array(InventoryUnitSchema),
    removed: z.array(RemovedUnitSchema).optional().openapi({
      description: "With `updated_since` only: units that left inventory (sold, or absent from a DMS snapshot) since then, in this page.",
    }),
    ...pagingFields,
    ...dataAsOfFields,
  })
  .openapi("InventoryFeed", {
    example: {
      count: 1,
      inventory: [
        {
          stock_number: "S24117",
          vin: "3TMCZ5AN8MM401234",
          year: 2021,
          make: "Toyota",
          model: "Tacoma",
          trim: "SR5",
          condition: "used",
          days_in_stock: 61,
          asking_price: 38_995,
          store: "Summit Auto North",
        },
      ],
      data_as_of: [freshFeedExample("inventory", "2026-11-29T05:58:12.000Z", 1.5)],
      data_warnings: [],
    },
  });

const SalesSummaryRowSchema = z
  .object({
    store: z.string(),
    saleMonth: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .openapi({ example: "2026-10" }),
    units: z.int(),
    totalGross: z.number().openapi({ description: "Front plus back gross, USD." }),
    ...changeFields,
  })
  .openapi("SalesSummaryRow");

export const SalesSummaryFeedSchema = z
  .object({ count: z.int(), salesSummary: z.array(SalesSummaryRowSchema), ...pagingFields, ...dataAsOfFields })
  .openapi("SalesSummaryFeed", {
    example: {
      count: 1,
      salesSummary: [{ store: "Summit Auto North", saleMonth: "2026-10", units: 142, totalGross: 611_380 }],
      data_as_of: [freshFeedExample("deals", "2026-11-29T05:10:00.000Z", 2.3)],
      data_warnings: [],
    },
  });

const feedHeaders = {
  "Cache-Control": {
    description:
      "`no-store`. A call without parameters may be up to 10 seconds old (the service answers repeat reads from memory); a call with any parameter reads the database.",
    schema: { type: "string" as const },
  },
};

/**
 * `store_id`, `updated_since`, `limit`, `cursor`: the same on both feeds but for the page size. No
 * parameter carries an `example`: the reference builds its sample request from them, and the
 * sample should be the plain call a newcomer makes first.
 */
const feedQuery = (pageMax: number, orderedBy: string) =>
  z.object({
    store_id: z.string().trim().min(1).max(64).optional().openapi({
      description: "Only this store (e.g. `sto_summit_north`). A store of another organization, or no store at all: 404 `not_found`.",
    }),
    updated_since: z.iso.datetime({ offset: true }).optional().openapi({
      description:
        "ISO-8601 date-time with `Z` or an offset (e.g. `2026-11-26T06:00:00Z`): only what changed at or after it (docs/feeds.md#what-updated-means), ordered by the change. Use the highest `updated_at` of the previous sync.",
    }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(pageMax)
      .optional()
      .openapi({ description: `Rows per page, 1 to ${pageMax}; default ${pageMax} (the whole list up to the contract's cap).` }),
    cursor: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .openapi({
        description: `\`next_cursor\` of the previous page, unchanged; the next page starts right after its last row (${orderedBy}). Another feed's, organization's or filters' cursor, or a damaged one: 422 \`validation_error\` (detail codes \`cursor_mismatch\`, \`invalid_cursor\`).`,
      }),
  });

const feedErrors = {
  ...notFoundResponse,
  422: documentedError(
    "A query parameter is invalid (`validation_error`; details name it): `limit` out of range, `updated_since` not an ISO-8601 date-time, or a cursor that is not this list's.",
  ),
};

export const listInventory = v1Route({
  method: "get",
  path: "/api/v1/inventory",
  operationId: "listInventory",
  tags: ["Feeds"],
  summary: `The organization's current inventory (at most ${INVENTORY_PAGE_MAX} units, oldest in stock first), by store, by page or by change`,
  description: `Every store of the key's organization. \`days_in_stock\` is computed at read time from the stocking date. Also accepts the deprecated \`X-Api-Token\` (unmetered; answered with \`Deprecation\`, \`Sunset\` and \`Link\` headers, see docs/versioning.md).

Without parameters the answer is the contract's: \`count\` and \`inventory\`, at most ${INVENTORY_PAGE_MAX} units; when there are more, it adds \`has_more: true\` and the \`next_cursor\` of the next page. With any parameter (docs/feeds.md) the answer adds \`has_more\`, \`next_cursor\` and each unit's \`store_id\` and \`updated_at\`; with \`updated_since\` it lists every unit changed since then, ordered by change, and \`removed\` names those that left inventory.`,
  endpoint: "inventory",
  legacy: true,
  reads: "nearest-replica",
  request: {
    query: feedQuery(INVENTORY_PAGE_MAX, "oldest in stock first, then stock number; with `updated_since`, by change time, then stock number"),
  },
  responses: {
    200: { description: "Inventory.", headers: feedHeaders, content: { "application/json": { schema: InventoryFeedSchema } } },
    ...feedErrors,
  },
});

export const getSalesSummary = v1Route({
  method: "get",
  path: "/api/v1/sales-summary",
  operationId: "getSalesSummary",
  tags: ["Feeds"],
  summary: `Units and total gross by store and month (at most ${SALES_SUMMARY_PAGE_MAX} rows, most recent month first), by store, by page or by change`,
  description: `Delivered deals of the key's organization grouped by store and sale month; \`totalGross\` is front plus back gross in USD. Also accepts the deprecated \`X-Api-Token\` (see docs/versioning.md).

Without parameters the answer is the contract's: \`count\` and \`salesSummary\`, at most ${SALES_SUMMARY_PAGE_MAX} rows; when there are more, it adds \`has_more: true\` and the \`next_cursor\` of the next page. With any parameter (docs/feeds.md) the answer adds \`has_more\`, \`next_cursor\` and each row's \`store_id\` and \`updated_at\`; with \`updated_since\` it lists only the rows holding a deal changed since then, recomputed whole (a row whose deals were all unwound comes back with 0 units).`,
  endpoint: "sales-summary",
  legacy: true,
  reads: "nearest-replica",
  request: { query: feedQuery(SALES_SUMMARY_PAGE_MAX, "most recent month first, then store name and id") },
  responses: {
    200: { description: "Sales summary.", headers: feedHeaders, content: { "application/json": { schema: SalesSummaryFeedSchema } } },
    ...feedErrors,
  },
});
