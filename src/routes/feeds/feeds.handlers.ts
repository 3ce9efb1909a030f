import type { RouteHandler } from "@hono/zod-openapi";
import { listInventory, salesSummary } from "../../db/queries/feeds";
import type { AppEnv } from "../../http/app-env";
import type { getInventory, getSalesSummary } from "./feeds.routes";

const INVENTORY_LIMIT = 500;
const SALES_SUMMARY_LIMIT = 200;

export const inventory: RouteHandler<typeof getInventory, AppEnv> = async (c) => {
  const units = await listInventory(c.var.db, c.var.principal.orgId, new Date(), INVENTORY_LIMIT);
  return c.json(
    {
      count: units.length,
      inventory: units.map((u) => ({
        stock_number: u.stockNumber,
        vin: u.vin,
        year: u.year,
        make: u.make,
        model: u.model,
        trim: u.trim,
        condition: u.condition,
        days_in_stock: u.daysInStock,
        asking_price: u.askingPrice,
        store: u.store,
      })),
    },
    200,
  );
};

export const sales: RouteHandler<typeof getSalesSummary, AppEnv> = async (c) => {
  const rows = await salesSummary(c.var.db, c.var.principal.orgId, SALES_SUMMARY_LIMIT);
  return c.json({ count: rows.length, salesSummary: rows }, 200);
};
