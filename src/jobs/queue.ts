import { z } from "zod";
import { sendMessages } from "../events/messages";

/** The queue the crons fan out through (wrangler.toml); src/worker.ts routes its batches to src/jobs/consumer.ts. */
export const JOBS_QUEUE = "jobs";

/**
 * One unit of a cron's work. `scheduledTime` is the cron run's time (Unix ms), the "now" every unit
 * of that run works with, so a retried or duplicated message does the same work again and the
 * unit's own keys (a store's briefing of the day, a unit's aged crossing) make it add nothing.
 */
export const JobMessageSchema = z.discriminatedUnion("job", [
  /** Fans out again: one `store-morning-briefings` per store of the organization. */
  z.object({ job: z.literal("organization-morning-briefings"), orgId: z.string().min(1), scheduledTime: z.number() }),
  z.object({ job: z.literal("store-morning-briefings"), orgId: z.string().min(1), storeId: z.string().min(1), scheduledTime: z.number() }),
  z.object({ job: z.literal("aged-inventory-alerts"), orgId: z.string().min(1), scheduledTime: z.number() }),
  /** The organization's programs tested against their own outcomes (src/jobs/lender-outcomes.ts). */
  z.object({ job: z.literal("lender-outcome-shifts"), orgId: z.string().min(1), scheduledTime: z.number() }),
  /** One retention rule (docs/retention.md); a message that leaves expired rows behind sends itself again. */
  z.object({ job: z.literal("purge-expired-records"), table: z.string().min(1), scheduledTime: z.number() }),
]);

export type JobMessage = z.infer<typeof JobMessageSchema>;

/** A fan-out over N organizations costs N / 100 subrequests (sendMessages). */
export const enqueueJobs = (env: Pick<Env, "JOBS">, messages: readonly JobMessage[]): Promise<void> => sendMessages(env.JOBS, messages);
