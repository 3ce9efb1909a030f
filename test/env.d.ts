declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** `[triggers] crons` of wrangler.toml (vitest.config.ts). */
    TEST_WRANGLER_CRONS: string[];
  }
}

/** Vite's `?raw` imports: a file's text, e.g. wrangler.toml for a test that holds code to its values. */
declare module "*?raw" {
  const text: string;
  export default text;
}
