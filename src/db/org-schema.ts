/**
 * The tables of an organization's storage object (src/durable-objects/org-storage.ts,
 * docs/scaling.md): drizzle-kit reads this file through drizzle-org.config.ts and writes the
 * object's migrations to migrations-org/. Table and column names are D1's, so the query modules of
 * src/db/queries run unchanged on either; nothing here references a global table.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { complianceCheckColumns, complianceCheckIndexes } from "./schema/compliance";
import {
  dealColumns,
  dealIndexes,
  dealStipColumns,
  dealStipIndexes,
  inventoryUnitColumns,
  inventoryUnitIndexes,
  salesMonthlyColumns,
  salesMonthlyIndexes,
} from "./schema/platform";
import { unitMarketValueColumns } from "./schema/reports";

/** Whose object this is, and whether it serves (`active`): a move fills it first, then turns it on. */
export const storageOwner = sqliteTable("storage_owner", {
  orgId: text("org_id").primaryKey(),
  active: integer("active", { mode: "boolean" }).notNull().default(false),
});

/** The organization's stores as the directory (D1 `stores`) names them: what the inventory feed joins. */
export const stores = sqliteTable("stores", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  name: text("name").notNull(),
});

export const inventoryUnits = sqliteTable(
  "inventory_units",
  inventoryUnitColumns(text("org_id").notNull(), text("store_id").notNull()),
  inventoryUnitIndexes,
);

/** The units' market values (the valuation feed's), joined by the inventory alerts and the briefings. */
export const unitMarketValues = sqliteTable(
  "unit_market_values",
  unitMarketValueColumns(text("unit_id").primaryKey(), text("org_id").notNull()),
  (t) => [index("unit_market_values_org_idx").on(t.orgId)],
);

/** The deals group: the deals a DMS pushes, their stips, and the monthly sales rollup triggers keep (as D1's migration 0023 does). */
export const deals = sqliteTable("deals", dealColumns(text("org_id").notNull(), text("store_id").notNull()), dealIndexes);

export const dealStips = sqliteTable(
  "deal_stips",
  dealStipColumns(
    text("org_id").notNull(),
    text("deal_id")
      .notNull()
      .references(() => deals.id),
  ),
  dealStipIndexes,
);

export const salesMonthly = sqliteTable("sales_monthly", salesMonthlyColumns(text("org_id").notNull()), salesMonthlyIndexes);

/** The compliance checks group: the organization's screening audit trail (hashes only, as in D1), which the screening's history reads. */
export const complianceChecks = sqliteTable("compliance_checks", complianceCheckColumns(text("org_id").notNull()), complianceCheckIndexes);
