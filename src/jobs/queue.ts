import { z } from "zod";
import { sendMessages } from "../events/messages";

/** The queue the crons fan out through (wrangler.toml); src/worker.ts routes its batches to src/jobs/consumer.ts. */
export const JOBS_QUEUE = "jobs";

/**
 * One unit of a cron's work. `scheduledTime` is the cron run's time (Unix ms), the "now" every unit
 * of that run works with, so a retried or duplicated message does the same work again and adds nothing.
 */
export const JobMessageSchema = z.discriminatedUnion("job", [
  /** One retention rule (docs/retention.md); a message that leaves expired rows behind sends itself again. */
  z.object({ job: z.literal("purge-expired-records"), table: z.string().min(1), scheduledTime: z.number() }),
]);

export type JobMessage = z.infer<typeof JobMessageSchema>;

/** N messages cost N / 100 subrequests (sendMessages). */
export const enqueueJobs = (env: Pick<Env, "JOBS">, messages: readonly JobMessage[]): Promise<void> => sendMessages(env.JOBS, messages);
