import { z } from "@hono/zod-openapi";

/**
 * Each store setting: its column (src/db/schema/platform.ts) and the range a manager would accept
 * (docs/settings.md#the-store-fields-and-their-ranges). The one schema of each setting's range: the
 * settings PATCH and the operator's create-store both validate with it.
 * A value outside it is a typo (a pack of 50,000, an APR of 85) more likely than a policy.
 */
const money = (max: number, description: string) =>
  z
    .number()
    .min(0)
    .max(max)
    .openapi({ description: `${description} USD, 0 to ${max.toLocaleString("en-US")}.` });
const days = (description: string) =>
  z
    .int()
    .min(1)
    .max(365)
    .openapi({ description: `${description} Whole days, 1 to 365.` });

const hours = (description: string) =>
  z
    .int()
    .min(1)
    .max(720)
    .openapi({ description: `${description} Whole hours, 1 to 720.` });

export const STORE_SETTING_FIELDS = {
  pack_new: { column: "packNew", schema: money(5000, "Pack added to a new unit's cost (docs/domain/gross.md).") },
  pack_used: { column: "packUsed", schema: money(5000, "Pack added to a used unit's cost.") },
  holding_cost_per_day: { column: "holdingCostPerDay", schema: money(500, "All-in daily holding cost of a unit under `holding_high_value_cost`.") },
  holding_high_value_cost: {
    column: "holdingHighValueCost",
    schema: money(1_000_000, "Unit cost at and above which a unit also carries `holding_high_value_daily_pct` of its cost per day."),
  },
  holding_high_value_daily_pct: {
    column: "holdingHighValueDailyPct",
    schema: z.number().min(0).max(1).openapi({ description: "Percent of a high-value unit's cost it costs per day, 0 to 1 (0.1 = 0.1 % a day)." }),
  },
  floorplan_apr_new: {
    column: "floorplanAprNew",
    schema: z.number().min(0).max(30).openapi({ description: "Floorplan APR on new units, percent, 0 to 30." }),
  },
  floorplan_apr_used: {
    column: "floorplanAprUsed",
    schema: z.number().min(0).max(30).openapi({ description: "Floorplan APR on used units, percent, 0 to 30." }),
  },
  floorplan_assistance_new_per_day: {
    column: "floorplanAssistanceNewPerDay",
    schema: money(
      500,
      "Floor-plan assistance or holdback the store counts against a new unit's floor-plan interest, per day (docs/domain/gross.md#holding-cost).",
    ),
  },
  overhead_new_per_day: {
    column: "overheadNewPerDay",
    schema: money(500, "The store's own overhead figure for a new unit, per day, on top of its floor-plan interest."),
  },
  wholesale_ratio_pct: {
    column: "wholesaleRatioPct",
    schema: z.number().min(50).max(95).openapi({
      description: "Wholesale value of a clean unit today, percent of its retail market, 50 to 95 (docs/domain/gross.md#expected-auction-proceeds).",
    }),
  },
  auction_fees: { column: "auctionFees", schema: money(5000, "Auction and transport fees taken from a unit's wholesale value.") },
  recon_car: { column: "reconCar", schema: money(20_000, "Average reconditioning of a used car.") },
  recon_truck: { column: "reconTruck", schema: money(20_000, "Average reconditioning of a used truck.") },
  recon_suv: { column: "reconSuv", schema: money(20_000, "Average reconditioning of a used SUV.") },
  recon_van: { column: "reconVan", schema: money(20_000, "Average reconditioning of a used van.") },
  aged_threshold_days: {
    column: "agedThresholdDays",
    schema: days("Used and CPO units are aged from this many days in stock (inventory alerts, the aged-alert webhook)."),
  },
  aged_threshold_days_new: { column: "agedThresholdDaysNew", schema: days("New units are aged from this many days in stock.") },
  target_front_gross_used_pct: {
    column: "targetFrontGrossUsedPct",
    schema: z.number().min(0).max(50).openapi({ description: "Front gross a used unit must earn, percent of its retail price, 0 to 50." }),
  },
  target_front_gross_used_min: { column: "targetFrontGrossUsedMin", schema: money(20_000, "Floor of the used front-gross target.") },
  inventory_stale_hours: {
    column: "inventoryStaleHours",
    schema: hours(
      "Inventory older than this is stale: answers built on it warn, briefings lead with it, and `store.feed_stale` is raised (docs/ingestion.md#when-a-feed-stops).",
    ),
  },
  deals_stale_hours: { column: "dealsStaleHours", schema: hours("Deals older than this are stale; the same for the deals feed.") },
} as const;

export type StoreSettingField = keyof typeof STORE_SETTING_FIELDS;
type FieldSchemas = { [F in StoreSettingField]: (typeof STORE_SETTING_FIELDS)[F]["schema"] };
export const storeSettingSchemas = Object.fromEntries(
  Object.entries(STORE_SETTING_FIELDS).map(([name, field]) => [name, field.schema]),
) as FieldSchemas;
export const optionalStoreSettingSchemas = Object.fromEntries(
  Object.entries(storeSettingSchemas).map(([name, schema]) => [name, schema.optional()]),
) as {
  [F in StoreSettingField]: z.ZodOptional<FieldSchemas[F]>;
};

const STORE_SETTING_NAMES = Object.keys(STORE_SETTING_FIELDS) as StoreSettingField[];
type StoreSettingColumn = (typeof STORE_SETTING_FIELDS)[StoreSettingField]["column"];

/** A store row's settings as the API names them, in the fields' order. */
export function storeSettingsOf(row: Record<StoreSettingColumn, number>): Record<StoreSettingField, number> {
  return Object.fromEntries(STORE_SETTING_NAMES.map((name) => [name, row[STORE_SETTING_FIELDS[name].column]])) as Record<StoreSettingField, number>;
}

/** Settings as the API names them, as the row's columns; those left out stay out (their defaults apply). */
export function storeSettingColumnsOf(input: Partial<Record<StoreSettingField, number>>): Partial<Record<StoreSettingColumn, number>> {
  return Object.fromEntries(
    STORE_SETTING_NAMES.filter((name) => input[name] !== undefined).map((name) => [STORE_SETTING_FIELDS[name].column, input[name]]),
  );
}
