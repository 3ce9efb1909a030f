/**
 * The crons, exactly as in wrangler.toml's `[triggers] crons` (a test holds SCHEDULE and wrangler.toml
 * to the same set). Named in a module of their own so that an object's nightly alarm
 * (src/jobs/org-nightly.ts) times its jobs by them without importing every job.
 */
export const CRONS = {
  nightly: "15 0 * * *",
  sanctionsList: "30 4 * * *",
  marketData: "0 5 * * *",
  everyFiveMinutes: "*/5 * * * *",
} as const;
