import { defineConfig } from "drizzle-kit";

/** The organization's storage object (docs/scaling.md): its own schema and migrations, bundled as text. */
export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/db/org-schema.ts",
  out: "./migrations-org",
});
