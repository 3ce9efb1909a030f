/** Every table, one file per area; drizzle-kit reads this file (drizzle.config.ts). */
export * from "./appraisal";
export * from "./compliance";
export * from "./deal-desk";
export * from "./events";
export * from "./idempotency";
export * from "./platform";
export * from "./reports";
export * from "./settings";
export * from "./signals";
export * from "./vehicle";
