/** Every table, one file per area; drizzle-kit reads this file (drizzle.config.ts). */

export * from "./events";
export * from "./platform";
