/** Development-only vars, never set in wrangler.toml (so `wrangler types` does not list them). */
interface Env {
  /** `1`: every bound D1 statement is logged for `npm run bench:scale` (src/db/query-log.ts). */
  QUERY_LOG?: string;
  /** `true`: screen against a sanctions list past its age limit, with a warning (docs/domain/screening.md#list-age). */
  DEV_SCREEN_STALE_SANCTIONS_LIST?: string;
}
