import type { Database } from "../../db/client";
import { findOrgStore, loadMarketData } from "../../db/queries/reports";
import { orgStore } from "../../durable-objects/org-storage-routing";
import { isoDay } from "../../engines/dates";
import { buildAlertPage } from "../../engines/reports/alerts";
import { alertReportBody, type BriefingBody } from "../../engines/reports/bodies";
import { briefingDealsSince, type Role } from "../../engines/reports/briefings";
import { buildMarketPulse, type MarketPulse, PULSE_HISTORY_READINGS } from "../../engines/reports/pulse";
import { decodeCursor, encodeCursor } from "../../http/cursor";
import { dataAsOfOf } from "../../http/data-as-of";
import { DomainError } from "../../lib/domain-error";
import { onSettingsChange } from "../../lib/settings-changes";
import { TtlCache } from "../../lib/ttl-cache";

/** Feed entries the pulse picks its alerts from. */
const PULSE_FEED_ENTRIES = 20;

/**
 * Per-isolate copies for a minute: units and deals change a few times a day (and days on lot
 * once a day), a briefing is fixed for its day once stored, and the public series change nightly.
 */
const REPORT_CACHE_MS = 60_000;
const alertReports = new TtlCache<AlertReportPage>({ ttlMs: REPORT_CACHE_MS, maxEntries: 256 });
const briefings = new TtlCache<BriefingBody>({ ttlMs: REPORT_CACHE_MS, maxEntries: 1024 });
// A briefing is fixed when made (docs/settings.md#when-a-change-takes-effect): only the alerts follow a change.
onSettingsChange((orgId) => alertReports.evictPrefix(`${orgId}:`));
const pulses = new TtlCache<MarketPulse>({ ttlMs: REPORT_CACHE_MS, maxEntries: 4 });

/** Alerts one page holds at most, and the default (docs/reports.md#paging). */
export const ALERTS_PAGE_MAX = 500;
/** Units in stock one page reads at most, whatever it finds: what keeps a page's cost flat in the organization's size. */
export const ALERT_UNITS_PER_PAGE = 500;

type AlertReportPage = ReturnType<typeof alertReportBody> & { has_more: boolean; next_cursor: string | null } & ReturnType<typeof dataAsOfOf>;

/**
 * One page of the report: the next units in stock after the cursor (oldest in stock first, at most
 * ALERT_UNITS_PER_PAGE), examined until `limit` alerts are found, shown largest exposure first;
 * the totals are the whole organization's (or the one store's). The page, the stores' settings,
 * the totals (computed from the units in stock on each page, not stored) and the feeds' receipts
 * come in one call to the organization's object. A store that is not the organization's: 404,
 * before the cursor is judged.
 */
export async function inventoryAlerts(
  env: Pick<Env, "ORG_STORE">,
  db: Database,
  orgId: string,
  params: { store_id?: string; limit?: number; cursor?: string },
  now: Date,
) {
  const storeId = params.store_id;
  if (storeId !== undefined && !(await findOrgStore(db, orgId, storeId))) {
    throw new DomainError("not_found", "This organization has no store with that id.");
  }
  const scope = { feed: "inventory-alerts" as const, org: orgId, store: storeId ?? null, since: null };
  const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor, scope);
  const limit = params.limit ?? ALERTS_PAGE_MAX;
  return alertReports.get(`${orgId}:${storeId ?? ""}:${limit}:${params.cursor ?? ""}`, now.getTime(), async (): Promise<AlertReportPage> => {
    const page = { limit: ALERT_UNITS_PER_PAGE + 1, after: after && { stockedOn: after[0], stockNumber: after[1] }, storeId };
    const { units, totals, settings, feeds } = await orgStore(env, orgId).alertReport(orgId, page, now);
    const { alerts, examined } = buildAlertPage(units.slice(0, ALERT_UNITS_PER_PAGE), settings, now, limit);
    const last = units[examined - 1];
    const nextCursor = units.length > examined && last ? encodeCursor({ ...scope, after: [last.stockedOn, last.stockNumber] }) : null;
    return {
      ...alertReportBody({ alerts, ...totals }),
      has_more: nextCursor !== null,
      next_cursor: nextCursor,
      ...dataAsOfOf(feeds, ["inventory"], now),
    };
  });
}

export async function marketPulse(db: Database, lenderThresholdPts: number, now: Date): Promise<MarketPulse> {
  return pulses.get(String(lenderThresholdPts), now.getTime(), async () => {
    const { histories, feed } = await loadMarketData(db, PULSE_HISTORY_READINGS, PULSE_FEED_ENTRIES);
    return buildMarketPulse(histories, feed, lenderThresholdPts);
  });
}

/**
 * Today's stored briefing; the first request of a day that has none builds and stores it. One call
 * to the organization's object, which reads the stored one, or builds a missing one from the store's
 * rows, settings and feeds' receipts there and stores it; the store is found in the directory (D1)
 * and the market's pulse read first.
 */
export async function morningBriefing(
  env: Pick<Env, "ORG_STORE">,
  db: Database,
  request: { orgId: string; role: Role; storeId: string | undefined; lenderThresholdPts: number },
  now: Date,
): Promise<BriefingBody> {
  const { orgId, role } = request;
  const day = isoDay(now);
  const cacheKey = `${orgId}:${request.storeId ?? ""}:${role}:${day}`;
  return briefings.get(cacheKey, now.getTime(), async () => {
    // Read together: neither needs the other's answer (each is a round trip on a first call).
    const [store, pulse] = await Promise.all([findOrgStore(db, orgId, request.storeId), marketPulse(db, request.lenderThresholdPts, now)]);
    if (!store) {
      throw new DomainError("not_found", request.storeId ? "No such store in this organization." : "The organization has no primary store.");
    }
    const call = { storeId: store.id, role, day, dealsSince: briefingDealsSince(now) };
    const briefing = await orgStore(env, orgId).morningBriefing(orgId, call, { pulse }, now);
    if (!briefing) throw new DomainError("not_found", "No such store in this organization.");
    return briefing;
  });
}
