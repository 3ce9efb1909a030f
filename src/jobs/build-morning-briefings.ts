import { loadConfig } from "../config";
import { getDb } from "../db/client";
import { type BriefingData, type BriefingRow, type BriefingStore, briefingData, loadMarketData } from "../db/queries/reports";
import type { FeedReceipts } from "../db/queries/signals";
import { isoDay } from "../engines/dates";
import { type BriefingBody, briefingBody } from "../engines/reports/bodies";
import { briefingDealsSince, buildBriefing, ROLES, type Role } from "../engines/reports/briefings";
import { buildMarketPulse, type MarketPulse, PULSE_HISTORY_READINGS } from "../engines/reports/pulse";
import { briefingSignals } from "../engines/reports/signals";
import type { DomainEvent } from "../events/emit";
import { logEvent } from "../lib/log";

/**
 * Every role's briefing for one store, stored for the day with a `morning_briefing.ready` event
 * each, run by the organization's object on its 06:00 alarm (src/jobs/org-nightly.ts): `store`
 * reads the store's rows and writes the briefings with their events in one transaction of the
 * object. A briefing already stored for the day (built on an early request, or by a rerun of the
 * same time) is kept and raises nothing again.
 */
export async function buildStoreBriefings(env: Env, orgId: string, storeId: string, now: Date, store: BriefingStore): Promise<void> {
  const config = loadConfig(env);
  const db = getDb(env.DB);
  const day = isoDay(now);
  const existing = await store.existingRoles(storeId, day);
  const missing = ROLES.filter((role) => !existing.has(role));
  if (missing.length === 0) return;
  const [market, storeRows, feeds] = await Promise.all([
    loadMarketData(db, PULSE_HISTORY_READINGS, 20),
    store.rows(storeId, briefingDealsSince(now)),
    store.feeds(storeId),
  ]);
  const data = briefingData(storeRows);
  if (!data) return;
  const pulse = buildMarketPulse(market.histories, market.feed, config.lenderEnvironmentChangePts);
  const rows: BriefingRow[] = [];
  const events: DomainEvent[] = [];
  for (const role of missing) {
    const body = composeBriefing(role, data, pulse, feeds, now);
    rows.push({ orgId, storeId, role, day, generatedAt: body.generated_at, body });
    events.push({
      event: "morning_briefing.ready",
      orgId,
      storeId,
      data: { role, day, generated_at: body.generated_at, total_aged_units: body.total_aged_units, alerts: body.alerts.length },
    });
  }
  const stored = store.write(rows, events, now.toISOString());
  logEvent("info", { event: "morning_briefings_built", org_id: orgId, store: storeId, day, built: stored.length });
}

/**
 * What a request's briefing is built of besides the store's rows, settings and feeds' receipts (the
 * object's own): the market's pulse, read by the Worker before its one call to the object.
 */
export interface BriefingInputs {
  pulse: MarketPulse;
}

/** One role's briefing from what it is built of: the same on a request and in the nightly run. */
export function composeBriefing(role: Role, data: BriefingData, pulse: MarketPulse, feeds: FeedReceipts, now: Date): BriefingBody {
  return briefingBody(buildBriefing({ role, ...data, pulse, ...briefingSignals({ feeds, tightenings: data.tightenings }, now) }, now));
}
