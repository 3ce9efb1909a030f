/**
 * The move's life cycle after the undo window (docs/scaling.md#how-an-organization-moves-d1--its-object):
 * a moved organization's D1 copy is kept ORG_STORAGE_UNDO_WINDOW_DAYS for an undo, then deleted.
 *
 * A cron, not the object's alarm: the purge is D1's own rows, deleted by D1 statements that read
 * the flag at D1's primary, so the object would only relay them; one indexed scan of the
 * organizations finds what is due, also for an organization whose object no request wakes; and
 * the objects' alarm keeps to its own timers.
 */
import { loadConfig } from "../config";
import { getDb } from "../db/client";
import { claimD1CopyPurge, deleteD1CopyRows, finishD1CopyPurge, listD1CopiesDue } from "../db/queries/org-storage";
import { EXPIRED_ROWS_PER_STATEMENT } from "../db/queries/retention";
import { DAY_MS } from "../engines/dates";
import { logEvent } from "../lib/log";
import { enqueueJobs } from "./queue";

/** Organizations a night's run enqueues; a backlog drains over the following nights. */
const COPIES_PER_RUN = 100;
/** Statements one message runs (each deletes at most EXPIRED_ROWS_PER_STATEMENT): a message's work is bounded however large the copy. */
const STATEMENTS_PER_MESSAGE = 20;

/** The last flip whose copy is due at `now`. */
function cutoff(env: Env, now: Date): string {
  return new Date(now.getTime() - loadConfig(env).orgStorageUndoWindowDays * DAY_MS).toISOString();
}

/** Nightly: one `purge-moved-copy` message per moved organization whose undo window has passed. */
export async function purgeMovedCopies(env: Env, now: Date): Promise<void> {
  const due = await listD1CopiesDue(getDb(env.DB), cutoff(env, now), COPIES_PER_RUN);
  await enqueueJobs(
    env,
    due.map((orgId) => ({ job: "purge-moved-copy", orgId, scheduledTime: now.getTime() })),
  );
}

/**
 * One organization's D1 copy deleted, in chunks: the purge stamped first (from then on an undo is
 * refused), then the rows, then the organization taken off the list. Returns whether rows may be
 * left, for the consumer to send the message again. Idempotent: a retried message deletes what is left.
 */
export async function purgeD1Copy(env: Env, orgId: string, now: Date): Promise<boolean> {
  const db = getDb(env.DB);
  if (!(await claimD1CopyPurge(db, orgId, cutoff(env, now), now.toISOString()))) return false;
  let deleted = 0;
  for (let statement = 0; statement < STATEMENTS_PER_MESSAGE; statement++) {
    const removed = await deleteD1CopyRows(db, orgId, EXPIRED_ROWS_PER_STATEMENT);
    deleted += removed;
    if (removed === 0) {
      await finishD1CopyPurge(db, orgId);
      logEvent("info", { event: "d1_copy_purged", org_id: orgId, deleted });
      return false;
    }
  }
  logEvent("info", { event: "d1_copy_purged", org_id: orgId, deleted, more: true });
  return true;
}
