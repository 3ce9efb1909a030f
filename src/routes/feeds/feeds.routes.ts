import { createRoute, z } from "@hono/zod-openapi";
import { commonErrorResponses } from "../../http/errors";
import { legacySecurity, meteredResponses, RATE_LIMIT_HEADERS, serviceKeySecurity } from "../../http/openapi";
import { v1Chain } from "../../http/v1-chain";

export const InventoryUnitSchema = z
  .object({
    stock_number: z.string(),
    vin: z.string(),
    year: z.int(),
    make: z.string(),
    model: z.string(),
    trim: z.string(),
    condition: z.enum(["new", "used", "cpo"]),
    days_in_stock: z.int().openapi({ description: "Days since the dealer took ownership, computed at read time." }),
    asking_price: z.number(),
    store: z.string().openapi({ description: "Store name." }),
  })
  .openapi("InventoryUnit");

export const InventoryFeedSchema = z.object({ count: z.int(), inventory: z.array(InventoryUnitSchema) }).openapi("InventoryFeed", {
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
  },
});

export const SalesSummaryRowSchema = z
  .object({
    store: z.string(),
    saleMonth: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .openapi({ example: "2026-10" }),
    units: z.int(),
    totalGross: z.number().openapi({ description: "Front plus back gross, USD." }),
  })
  .openapi("SalesSummaryRow");

export const SalesSummaryFeedSchema = z.object({ count: z.int(), salesSummary: z.array(SalesSummaryRowSchema) }).openapi("SalesSummaryFeed", {
  example: { count: 1, salesSummary: [{ store: "Summit Auto North", saleMonth: "2026-10", units: 142, totalGross: 611_380 }] },
});

const feedHeaders = {
  ...RATE_LIMIT_HEADERS,
  "Cache-Control": {
    description: "`no-store`. The feed itself may be up to 10 seconds old: the service answers repeat reads from memory.",
    schema: { type: "string" as const },
  },
};

export const listInventory = createRoute({
  method: "get",
  path: "/api/v1/inventory",
  operationId: "listInventory",
  tags: ["Feeds"],
  summary: "The organization's current inventory (at most 500 units, oldest in stock first)",
  description:
    "Every store of the key's organization. `days_in_stock` is computed at read time from the stocking date. Also accepts the deprecated `X-Api-Token` (unmetered; answered with `Deprecation`, `Sunset` and `Link` headers, see docs/versioning.md).",
  security: [...serviceKeySecurity, ...legacySecurity],
  middleware: v1Chain("inventory", { legacy: true }),
  responses: {
    200: { description: "Inventory.", headers: feedHeaders, content: { "application/json": { schema: InventoryFeedSchema } } },
    ...commonErrorResponses,
    ...meteredResponses,
  },
});

export const getSalesSummary = createRoute({
  method: "get",
  path: "/api/v1/sales-summary",
  operationId: "getSalesSummary",
  tags: ["Feeds"],
  summary: "Units and total gross by store and month (at most 200 rows, most recent month first)",
  description:
    "Delivered deals of the key's organization grouped by store and sale month; `totalGross` is front plus back gross in USD. Also accepts the deprecated `X-Api-Token` (see docs/versioning.md).",
  security: [...serviceKeySecurity, ...legacySecurity],
  middleware: v1Chain("sales-summary", { legacy: true }),
  responses: {
    200: { description: "Sales summary.", headers: feedHeaders, content: { "application/json": { schema: SalesSummaryFeedSchema } } },
    ...commonErrorResponses,
    ...meteredResponses,
  },
});
