import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  if (migrations.length === 0) throw new Error("no D1 migrations found in ./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        main: "./src/index.ts",
        miniflare: {
          // Fixed test values, so a developer's .dev.vars never changes what the tests see.
          bindings: {
            TEST_MIGRATIONS: migrations,
            STAFF_ALLOWED_ORIGINS: "https://staff.example.test",
            PASSWORD_PEPPER: "test-pepper",
          },
          queueConsumers: { webhooks: { maxBatchTimeout: 0.05 } },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup/apply-migrations.ts"],
      include: ["test/**/*.test.ts"],
    },
  };
});
