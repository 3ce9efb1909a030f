import type { Database } from "../../db/client";
import { unlessStorageInD1 } from "../../db/queries/org-storage";
import {
  type AlertPageAfter,
  alertUnitPage,
  briefingQuery,
  findBriefing,
  findOrgStore,
  insertBriefing,
  loadBriefingData,
  loadMarketData,
  readStoreSettings,
} from "../../db/queries/reports";
import { loadFeedReceipts } from "../../db/queries/signals";
import type { OrgStoragePlace } from "../../db/schema";
import type { NOT_SERVING } from "../../durable-objects/org-storage";
import { onOrgStorage, orgStore, readWhereStored } from "../../durable-objects/org-storage-routing";
import { isoDay } from "../../engines/dates";
import { buildAlertPage } from "../../engines/reports/alerts";
import { alertReportBody, type BriefingBody } from "../../engines/reports/bodies";
import { briefingDealsSince, type Role } from "../../engines/reports/briefings";
import { buildMarketPulse, type MarketPulse, PULSE_HISTORY_READINGS } from "../../engines/reports/pulse";
import { decodeCursor, encodeCursor } from "../../http/cursor";
import { dataAsOfOf } from "../../http/data-as-of";
import { type AlertReport, alertReportOf, organizationAgedTotals } from "../../jobs/alert-totals";
import { composeBriefing } from "../../jobs/build-morning-briefings";
import type { Background } from "../../lib/background";
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

/** The alert report's read of an organization's units when they are not (only) in D1: a page, and the totals of its stock. */
export interface UnitsElsewhere {
  alertReport(page: { limit: number; after: AlertPageAfter | undefined; storeId: string | undefined }, now: Date): Promise<AlertReport>;
}

/**
 * The units of an organization whose flag (read with the credential) is not `d1`: one call to its
 * storage object, which reads the page and totals its units in stock, or the same on D1 during a
 * move and after an undo (docs/scaling.md#how-a-request-finds-its-organizations-storage).
 * Undefined for an organization in D1, whose reports read D1 as before (one batch, the stored totals).
 */
export function unitsElsewhere(
  env: Pick<Env, "DB" | "ORG_STORE">,
  db: Database,
  orgId: string,
  storage: OrgStoragePlace,
): UnitsElsewhere | undefined {
  const read = readWhereStored(env, orgId, storage);
  if (!read) return undefined;
  return {
    alertReport: (page, now) =>
      read(
        () => alertReportOf(db, orgId, page, now),
        () => orgStore(env, orgId).alertReport(orgId, page, now) as Promise<AlertReport | typeof NOT_SERVING>,
      ),
  };
}

/**
 * One page of the report: the next units in stock after the cursor (oldest in stock first, at most
 * ALERT_UNITS_PER_PAGE), examined until `limit` alerts are found, shown largest exposure first;
 * the totals are the whole organization's (or the one store's), from the per-store rollup. A store
 * that is not the organization's: 404, before the cursor is judged. An organization whose units are
 * elsewhere (its object) has its totals computed from them on each page, not stored: D1's rollup
 * follows D1's units only.
 */
export async function inventoryAlerts(
  db: Database,
  orgId: string,
  params: { store_id?: string; limit?: number; cursor?: string },
  now: Date,
  background: Background,
  elsewhere?: UnitsElsewhere,
) {
  const storeId = params.store_id;
  if (storeId !== undefined && !(await findOrgStore(db, orgId, storeId))) {
    throw new DomainError("not_found", "This organization has no store with that id.");
  }
  const scope = { feed: "inventory-alerts" as const, org: orgId, store: storeId ?? null, since: null };
  const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor, scope);
  const limit = params.limit ?? ALERTS_PAGE_MAX;
  return alertReports.get(`${orgId}:${storeId ?? ""}:${limit}:${params.cursor ?? ""}`, now.getTime(), async (): Promise<AlertReportPage> => {
    const position = after && { stockedOn: after[0], stockNumber: after[1] };
    // The feed's age is read with the page, not after it: one wave of replica reads. A moved
    // organization's settings come with its units (one call): they are kept in its object.
    // A moved organization's feeds' receipts too (the store feeds group).
    const page = { limit: ALERT_UNITS_PER_PAGE + 1, after: position, storeId };
    const storeIds = storeId === undefined ? undefined : [storeId];
    const { units, totals, settings, feeds } = await (elsewhere
      ? elsewhere.alertReport(page, now)
      : Promise.all([
          alertUnitPage(db, orgId, page.limit, position, storeId),
          organizationAgedTotals(db, orgId, now, storeId, background),
          readStoreSettings(db, orgId, storeId),
          loadFeedReceipts(db, orgId, storeIds),
        ]).then(([units, totals, settings, feeds]) => ({ units, totals, settings, feeds })));
    const ages = dataAsOfOf(feeds ?? (await loadFeedReceipts(db, orgId, storeIds)), ["inventory"], now);
    const { alerts, examined } = buildAlertPage(units.slice(0, ALERT_UNITS_PER_PAGE), settings, now, limit);
    const last = units[examined - 1];
    const nextCursor = units.length > examined && last ? encodeCursor({ ...scope, after: [last.stockedOn, last.stockNumber] }) : null;
    return { ...alertReportBody({ alerts, ...totals }), has_more: nextCursor !== null, next_cursor: nextCursor, ...ages };
  });
}

export async function marketPulse(db: Database, lenderThresholdPts: number, now: Date): Promise<MarketPulse> {
  return pulses.get(String(lenderThresholdPts), now.getTime(), async () => {
    const { histories, feed } = await loadMarketData(db, PULSE_HISTORY_READINGS, PULSE_FEED_ENTRIES);
    return buildMarketPulse(histories, feed, lenderThresholdPts);
  });
}

/**
 * Today's stored briefing; the first request of a day that has none builds and stores it, where the
 * organization's briefings are (docs/scaling.md): in D1, or in its object in one call, which reads
 * the stored one and builds and stores a missing one there, with the store's feeds, the pulse and
 * its directory row read from D1 first (the object's own settings win over the row's: the settings
 * group). Storing is a write: during a move it waits for the flip.
 */
export async function morningBriefing(
  env: Pick<Env, "DB" | "ORG_STORE">,
  db: Database,
  request: { orgId: string; role: Role; storeId: string | undefined; lenderThresholdPts: number; storage: OrgStoragePlace },
  now: Date,
): Promise<BriefingBody> {
  const { orgId, role } = request;
  const day = isoDay(now);
  const cacheKey = `${orgId}:${request.storeId ?? ""}:${role}:${day}`;
  return briefings.get(cacheKey, now.getTime(), async () => {
    const store = await findOrgStore(db, orgId, request.storeId);
    if (!store) {
      throw new DomainError("not_found", request.storeId ? "No such store in this organization." : "The organization has no primary store.");
    }
    const storeId = store.id;
    // Read together: none needs another's answer (each wave is a round trip on a first call).
    const pulse = () => marketPulse(db, request.lenderThresholdPts, now);
    return onOrgStorage(env, orgId, request.storage, "write", {
      inD1: async () => {
        const stored = await findBriefing(db, orgId, storeId, role, day);
        if (stored) return stored as BriefingBody;
        const [data, market, feeds] = await Promise.all([
          loadBriefingData(db, orgId, storeId, briefingDealsSince(now)),
          pulse(),
          loadFeedReceipts(db, orgId, [storeId]),
        ]);
        if (!data) throw new DomainError("not_found", "No such store in this organization.");
        const body = composeBriefing(role, data, market, feeds, now);
        // A concurrent request may have stored one first; the stored one is the day's briefing. Stored
        // and read back in one batch: one round trip to the primary, fenced (a flag cached before a move goes to the object).
        const [, , [winner]] = await db.batch([
          unlessStorageInD1(db, orgId),
          insertBriefing(db, { orgId, storeId, role, day, generatedAt: body.generated_at, body }),
          briefingQuery(db, orgId, storeId, role, day),
        ]);
        return (winner?.body as BriefingBody | undefined) ?? body;
      },
      inObject: async () => {
        // The store's feeds' receipts are the object's own (the store feeds group).
        const [settings, market] = await Promise.all([readStoreSettings(db, orgId, storeId), pulse()]);
        const found = settings.get(storeId);
        if (!found) throw new DomainError("not_found", "No such store in this organization.");
        const call = { storeId, role, day, dealsSince: briefingDealsSince(now) };
        return orgStore(env, orgId).morningBriefing(orgId, call, { store: found, pulse: market }, now) as Promise<BriefingBody | typeof NOT_SERVING>;
      },
    });
  });
}
