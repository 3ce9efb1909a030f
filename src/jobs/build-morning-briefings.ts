import { loadConfig } from "../config";
import { getDb } from "../db/client";
import { existingBriefingRoles, insertBriefing, listAllStores, loadBriefingData, loadMarketData } from "../db/queries/reports";
import { isoDay } from "../engines/dates";
import { briefingBody } from "../engines/reports/bodies";
import { briefingDealsSince, buildBriefing, ROLES } from "../engines/reports/briefings";
import { buildMarketPulse, PULSE_HISTORY_READINGS } from "../engines/reports/pulse";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { describeError, logEvent } from "../lib/log";

/**
 * 06:00 UTC, after the market refresh: every role's briefing for every store, stored for the
 * day with a `morning_briefing.ready` event each. A briefing already stored for the day (built on
 * an early request, or by an earlier run) is kept and raises nothing again.
 */
export async function buildMorningBriefings(env: Env, now: Date): Promise<void> {
  const config = loadConfig(env);
  const db = getDb(env.DB);
  const day = isoDay(now);
  const market = await loadMarketData(db, PULSE_HISTORY_READINGS, 20);
  const pulse = buildMarketPulse(market.histories, market.feed, config.lenderEnvironmentChangePts);
  const dealsSince = briefingDealsSince(now);
  let built = 0;
  const failed: string[] = [];
  for (const store of await listAllStores(db)) {
    try {
      const existing = await existingBriefingRoles(db, store.orgId, store.id, day);
      const missing = ROLES.filter((role) => !existing.has(role));
      if (missing.length === 0) continue;
      const data = await loadBriefingData(db, store.orgId, store.id, dealsSince);
      if (!data) continue;
      const statements = [];
      const events: DomainEvent[] = [];
      for (const role of missing) {
        const body = briefingBody(buildBriefing({ role, ...data, pulse }, now));
        statements.push(insertBriefing(db, { orgId: store.orgId, storeId: store.id, role, day, generatedAt: body.generated_at, body }));
        events.push({
          event: "morning_briefing.ready",
          orgId: store.orgId,
          storeId: store.id,
          data: { role, day, generated_at: body.generated_at, total_aged_units: body.total_aged_units, alerts: body.alerts.length },
        });
      }
      await commitWithEvents(env, db, statements, events, now);
      built += missing.length;
    } catch (error) {
      failed.push(store.id);
      logEvent("error", { event: "morning_briefing_failed", store: store.id, ...describeError(error) });
    }
  }
  logEvent("info", { event: "morning_briefings_built", day, built, failed: failed.length });
  if (failed.length > 0) throw new Error(`briefings failed for ${failed.length} store(s)`);
}
