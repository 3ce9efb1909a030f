import { describeError, logEvent } from "../lib/log";
import { purgeExpiredChunks, retentionRule } from "./purge-expired-records";
import { enqueueJobs, type JobMessage, JobMessageSchema } from "./queue";

/** Does one message's unit of work; a unit that leaves work behind sends its continuation. */
async function runUnit(env: Env, body: JobMessage): Promise<void> {
  const now = new Date(body.scheduledTime);
  switch (body.job) {
    case "purge-expired-records": {
      const rule = retentionRule(body.table);
      if (!rule) {
        logEvent("error", { event: "retention_rule_unknown", table: body.table });
        return;
      }
      if (await purgeExpiredChunks(env, rule, now)) await enqueueJobs(env, [body]);
      return;
    }
  }
}

/**
 * The jobs queue's consumer (wrangler.toml: one message per invocation, so each invocation's D1
 * queries and subrequests are one unit's). A message that fails is retried by the queue (every
 * unit is idempotent); a malformed one is logged and dropped.
 */
export async function consumeJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const msg of batch.messages) {
    const parsed = JobMessageSchema.safeParse(msg.body);
    if (!parsed.success) {
      logEvent("error", { event: "job_message_malformed", message_id: msg.id, attempts: msg.attempts });
      msg.ack();
      continue;
    }
    try {
      await runUnit(env, parsed.data);
      msg.ack();
    } catch (error) {
      logEvent("error", { event: "job_message_failed", job: parsed.data.job, attempts: msg.attempts, ...describeError(error) });
      msg.retry();
    }
  }
}
