declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** `[triggers] crons` of wrangler.toml (vitest.config.ts). */
    TEST_WRANGLER_CRONS: string[];
    /** OFAC's sdn.csv, alt.csv and sdn_comments.csv from data/ofac/, and their publication date (vitest.config.ts). */
    TEST_OFAC_SDN: string;
    TEST_OFAC_ALT: string;
    TEST_OFAC_COMMENTS: string;
    TEST_OFAC_VERSION: string;
    /** data/vpic/vpic-demo.json.gz's JSON text (vitest.config.ts). */
    TEST_VPIC_DATA: string;
    /** A second database standing in for a lagging D1 read replica (test/helpers/lagging-replica.ts). */
    LAGGING_REPLICA: D1Database;
  }
}

/** Vite's `?raw` imports: a file's text, e.g. wrangler.toml for a test that holds code to its values. */
declare module "*?raw" {
  const text: string;
  export default text;
}
