/** Every table, one file per area; drizzle-kit reads this file (drizzle.config.ts). */
export * from "./platform";
export * from "./appraisal";
