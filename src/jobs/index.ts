import { describeError, logEvent } from "../lib/log";
import { raiseAgedInventoryAlerts } from "./aged-inventory-alerts";
import { buildMorningBriefings } from "./build-morning-briefings";
import { CRONS } from "./crons";
import { checkLenderOutcomes } from "./lender-outcomes";
import { purgeExpiredRecords } from "./purge-expired-records";
import { purgeExpiredSandboxes } from "./purge-expired-sandboxes";
import { purgeLapsedSessions } from "./purge-lapsed-sessions";
import { purgeWebhookBodies } from "./purge-webhook-bodies";
import { refreshMarketData } from "./refresh-market-data";
import { refreshSanctionsList } from "./refresh-sanctions-list";
import { raiseStaleFeeds } from "./stale-feeds";
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
 * A test holds this map and wrangler.toml to the same set of crons. A job whose work grows with
 * the organizations or stores only enqueues it on the jobs queue (src/jobs/queue.ts), one message
 * per organization or rule, and the consumer (src/jobs/consumer.ts) does one unit per message.
 */
export const SCHEDULE: Readonly<Record<string, readonly Job[]>> = {
  [CRONS.nightly]: [
    // First: an expired sandbox is gone before the alerts fan out over the organizations.
    { name: "purge-expired-sandboxes", run: purgeExpiredSandboxes },
    { name: "purge-lapsed-sessions", run: purgeLapsedSessions },
    { name: "aged-inventory-alerts", run: raiseAgedInventoryAlerts },
    { name: "purge-webhook-bodies", run: purgeWebhookBodies },
    { name: "purge-expired-records", run: purgeExpiredRecords },
  ],
  [CRONS.sanctionsList]: [{ name: "refresh-sanctions-list", run: refreshSanctionsList }],
  [CRONS.marketData]: [
    { name: "refresh-market-data", run: refreshMarketData },
    // After the market refresh and before the 06:00 briefings, which name what it finds.
    { name: "lender-outcome-shifts", run: checkLenderOutcomes },
  ],
  [CRONS.briefings]: [{ name: "build-morning-briefings", run: buildMorningBriefings }],
  [CRONS.everyFiveMinutes]: [
    { name: "stale-feeds", run: raiseStaleFeeds },
    { name: "sweep-outbox", run: sweepOutbox },
  ],
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
