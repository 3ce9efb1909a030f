import { getDb } from "../db/client";
import { deleteLapsedStaffSessions } from "../db/queries/staff-sessions";
import { SESSION_IDLE_TIMEOUT_MS } from "../engines/sessions/session-expiry";
import { logEvent } from "../lib/log";

export async function purgeLapsedSessions(env: Env, now: Date): Promise<void> {
  const idleCutoff = new Date(now.getTime() - SESSION_IDLE_TIMEOUT_MS).toISOString();
  const removed = await deleteLapsedStaffSessions(getDb(env.DB), now.toISOString(), idleCutoff);
  logEvent("info", { event: "lapsed_sessions_purged", removed });
}
