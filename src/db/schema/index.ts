/** Every table, one file per area; drizzle-kit reads this file (drizzle.config.ts). */

export * from "./deal-desk";
export * from "./platform";
