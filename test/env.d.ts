declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** `[triggers] crons` of wrangler.toml (vitest.config.ts). */
    TEST_WRANGLER_CRONS: string[];
  }
}
