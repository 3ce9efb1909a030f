import { purgeLapsedSessions } from "./purge-lapsed-sessions";
import { logEvent } from "../http/log";

type Job = (env: Env, now: Date) => Promise<void>;

/**
 * Cron expression (as in wrangler.toml) → job. The 05:00 market-feed refresh and the 06:00 role
 * briefings are scheduled already and get their jobs with the reports work (ROADMAP.md §3).
 */
export const JOBS: Readonly<Record<string, Job>> = {
  "15 0 * * *": purgeLapsedSessions,
};

export async function runScheduledJob(cron: string, env: Env, now: Date): Promise<void> {
  const job = JOBS[cron];
  if (!job) {
    logEvent("info", { event: "no_job_for_schedule", cron });
    return;
  }
  await job(env, now);
}
