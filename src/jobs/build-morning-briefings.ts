import { loadConfig } from "../config";
import { getDb } from "../db/client";
import { isStorageMovedError, readOrgStorage, unlessStorageInD1 } from "../db/queries/org-storage";
import {
  type BriefingData,
  type BriefingRow,
  type BriefingStore,
  existingBriefingRoles,
  insertNewBriefing,
  listOrganizationIds,
  listStoreIds,
  loadBriefingData,
  loadMarketData,
} from "../db/queries/reports";
import { type FeedReceipts, loadFeedReceipts } from "../db/queries/signals";
import { isoDay } from "../engines/dates";
import { type BriefingBody, briefingBody } from "../engines/reports/bodies";
import { briefingDealsSince, buildBriefing, ROLES, type Role } from "../engines/reports/briefings";
import { buildMarketPulse, type MarketPulse, PULSE_HISTORY_READINGS } from "../engines/reports/pulse";
import { briefingSignals } from "../engines/reports/signals";
import { commitWithEvents, type DomainEvent } from "../events/emit";
import { logEvent } from "../lib/log";
import { enqueueJobs } from "./queue";

/**
 * 06:00 UTC, after the market refresh: one `organization-morning-briefings` message per
 * organization in D1 on the jobs queue; each becomes one `store-morning-briefings` message per store
 * (src/jobs/consumer.ts), so no invocation's work grows with the number of stores.
 */
export async function buildMorningBriefings(env: Env, now: Date): Promise<void> {
  const orgIds = await listOrganizationIds(getDb(env.DB), "d1");
  await enqueueJobs(
    env,
    orgIds.map((orgId) => ({ job: "organization-morning-briefings", orgId, scheduledTime: now.getTime() })),
  );
  logEvent("info", { event: "morning_briefings_enqueued", organizations: orgIds.length });
}

/**
 * One message per store of an organization whose units are in D1. An organization in its object
 * (docs/scaling.md) is skipped: this job reads D1's units, a copy that no longer changes; its
 * object's alarm builds its briefings (src/jobs/org-nightly.ts).
 */
export async function enqueueStoreBriefings(env: Env, orgId: string, now: Date): Promise<void> {
  const db = getDb(env.DB);
  const storage = await readOrgStorage(db, orgId);
  if (storage !== undefined && storage !== "d1") {
    logEvent("info", { event: "morning_briefings_skipped", org_id: orgId, storage });
    return;
  }
  const storeIds = await listStoreIds(db, orgId);
  await enqueueJobs(
    env,
    storeIds.map((storeId) => ({ job: "store-morning-briefings", orgId, storeId, scheduledTime: now.getTime() })),
  );
}

/**
 * Every role's briefing for one store, stored for the day with a `morning_briefing.ready` event
 * each. A briefing already stored for the day (built on an early request, or by an earlier
 * delivery of the same message) is kept and raises nothing again; one stored while this build ran
 * fails its batch, and the queue's retry finds it stored. `elsewhere` is where a moved
 * organization's briefings and rows are (its object, whose alarm runs this): the briefings and
 * their events are written there in one transaction, and a briefing a request stored meanwhile is
 * kept and raises nothing.
 */
export async function buildStoreBriefings(env: Env, orgId: string, storeId: string, now: Date, elsewhere?: BriefingStore): Promise<void> {
  const config = loadConfig(env);
  const db = getDb(env.DB);
  const day = isoDay(now);
  const existing = await (elsewhere ? elsewhere.existingRoles(storeId, day) : existingBriefingRoles(db, orgId, storeId, day));
  const missing = ROLES.filter((role) => !existing.has(role));
  if (missing.length === 0) return;
  const [market, data, feeds] = await Promise.all([
    loadMarketData(db, PULSE_HISTORY_READINGS, 20),
    loadBriefingData(db, orgId, storeId, briefingDealsSince(now), elsewhere?.rows),
    elsewhere ? elsewhere.feeds(storeId) : loadFeedReceipts(db, orgId, [storeId]),
  ]);
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
  if (elsewhere) {
    const stored = new Set(elsewhere.write(rows, events, now.toISOString()));
    logEvent("info", { event: "morning_briefings_built", org_id: orgId, store: storeId, day, built: stored.size });
    return;
  }
  try {
    // Fenced: a message read before a move began writes nothing to the copy the move left (the object's alarm builds them).
    await commitWithEvents(env, db, [unlessStorageInD1(db, orgId), ...rows.map((row) => insertNewBriefing(db, row))], events, now);
  } catch (error) {
    if (!isStorageMovedError(error)) throw error;
    logEvent("info", { event: "morning_briefings_skipped", org_id: orgId, store: storeId, storage: "moved" });
    return;
  }
  logEvent("info", { event: "morning_briefings_built", org_id: orgId, store: storeId, day, built: missing.length });
}

/**
 * What a request's briefing is built of besides the store's rows, settings and feeds' receipts (the
 * object's own): the market's pulse, read by the Worker before its one call to the object.
 */
export interface BriefingInputs {
  pulse: MarketPulse;
}

/** One role's briefing from what it is built of: the same on a request and in the nightly run, wherever the store's rows are. */
export function composeBriefing(role: Role, data: BriefingData, pulse: MarketPulse, feeds: FeedReceipts, now: Date): BriefingBody {
  return briefingBody(buildBriefing({ role, ...data, pulse, ...briefingSignals({ feeds, tightenings: data.tightenings }, now) }, now));
}
