import { describeError, logEvent } from "../lib/log";
import { CRONS } from "./crons";
import { purgeExpiredRecords } from "./purge-expired-records";
import { purgeExpiredSandboxes } from "./purge-expired-sandboxes";
import { purgeLapsedSessions } from "./purge-lapsed-sessions";
import { refreshMarketData } from "./refresh-market-data";
import { refreshSanctionsList } from "./refresh-sanctions-list";
import { sweepOutbox } from "./sweep-outbox";

/**
 * A job and the name its log lines carry. The name is data, not `run.name`: the bundle is built
 * with keep_names = false, so a function's own name is whatever the minifier left (e.g. "pE").
 */
export interface Job {
  name: string;
  run: (env: Env, now: Date) => Promise<void>;
}

/**
 * Cron expression (exactly as in wrangler.toml's `[triggers] crons`) → the jobs it runs, in order.
 * A test holds this map and wrangler.toml to the same set of crons. They run the global jobs only:
 * an organization's own (its alerts, briefings, lender outcomes, retention, stale feeds) run on its
 * storage object's alarm (src/jobs/org-nightly.ts). A job whose work grows only enqueues it on the
 * jobs queue (src/jobs/queue.ts), and the consumer (src/jobs/consumer.ts) does one unit per message.
 */
export const SCHEDULE: Readonly<Record<string, readonly Job[]>> = {
  [CRONS.nightly]: [
    { name: "purge-expired-sandboxes", run: purgeExpiredSandboxes },
    { name: "purge-lapsed-sessions", run: purgeLapsedSessions },
    { name: "purge-expired-records", run: purgeExpiredRecords },
  ],
  [CRONS.sanctionsList]: [{ name: "refresh-sanctions-list", run: refreshSanctionsList }],
  [CRONS.marketData]: [{ name: "refresh-market-data", run: refreshMarketData }],
  [CRONS.everyFiveMinutes]: [{ name: "sweep-outbox", run: sweepOutbox }],
};

/** Runs every job of the cron; one job's failure is logged and does not stop the next. */
export async function runScheduledJobs(cron: string, env: Env, now: Date): Promise<void> {
  const jobs = SCHEDULE[cron];
  if (!jobs) {
    logEvent("error", { event: "no_job_for_schedule", cron });
    return;
  }
  const failures: unknown[] = [];
  for (const job of jobs) {
    try {
      await job.run(env, now);
    } catch (error) {
      logEvent("error", { event: "scheduled_job_failed", cron, job: job.name, ...describeError(error) });
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} job(s) of ${cron} failed`);
}
