import type { Database } from "../../db/client";
import {
  type AlertPageAfter,
  type AlertUnitRow,
  alertUnitPage,
  type BriefingRows,
  type BriefingRowsReader,
  briefingQuery,
  briefingRows,
  findBriefing,
  findOrgStore,
  insertBriefing,
  loadBriefingData,
  loadMarketData,
  readStoreSettings,
  type StockAndSettings,
  unitsInStock,
} from "../../db/queries/reports";
import { loadFeedReceipts } from "../../db/queries/signals";
import type { OrgStoragePlace } from "../../db/schema";
import type { NOT_SERVING } from "../../durable-objects/org-storage";
import { orgStore, readWhereStored } from "../../durable-objects/org-storage-routing";
import { buildAlertPage } from "../../engines/reports/alerts";
import { alertReportBody, type BriefingBody, briefingBody } from "../../engines/reports/bodies";
import { briefingDealsSince, buildBriefing, type Role } from "../../engines/reports/briefings";
import { buildMarketPulse, type MarketPulse, PULSE_HISTORY_READINGS } from "../../engines/reports/pulse";
import { briefingSignals } from "../../engines/reports/signals";
import { decodeCursor, encodeCursor } from "../../http/cursor";
import { dataAsOfAnswer } from "../../http/data-as-of";
import { liveAgedTotals, organizationAgedTotals } from "../../jobs/alert-totals";
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

type AlertReportPage = ReturnType<typeof alertReportBody> & { has_more: boolean; next_cursor: string | null } & Awaited<
    ReturnType<typeof dataAsOfAnswer>
  >;

/** The reports' reads of an organization's units and deals when they are not (only) in D1. */
export interface UnitsElsewhere {
  alertPage(limit: number, after: AlertPageAfter | undefined, storeId: string | undefined): Promise<AlertUnitRow[]>;
  /** The units in stock with the stores' settings they are judged by (kept with them in a moved organization's object). */
  stockAndSettings(storeId?: string): Promise<StockAndSettings>;
  briefingRows: BriefingRowsReader;
}

/**
 * The units of an organization whose flag (read with the credential) is not `d1`: the same query
 * modules on its storage object (one call per read), or on D1 during a move and after an undo
 * (docs/scaling.md#how-a-request-finds-its-organizations-storage). Undefined for an organization in
 * D1, whose reports read D1 as before (one batch, the stored totals).
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
    alertPage: (limit, after, storeId) =>
      read(
        () => alertUnitPage(db, orgId, limit, after, storeId),
        () => orgStore(env, orgId).alertUnitPage(orgId, limit, after, storeId) as Promise<AlertUnitRow[] | typeof NOT_SERVING>,
      ),
    stockAndSettings: (storeId) =>
      read(
        async () => {
          const [units, settings] = await Promise.all([unitsInStock(db, orgId, storeId), readStoreSettings(db, orgId, storeId)]);
          return { units, settings };
        },
        () => orgStore(env, orgId).stockAndSettings(orgId, storeId) as Promise<StockAndSettings | typeof NOT_SERVING>,
      ),
    briefingRows: (storeId, dealsSince) =>
      read(
        () => briefingRows(db, orgId, storeId, dealsSince),
        () => orgStore(env, orgId).briefingRows(orgId, storeId, dealsSince) as Promise<BriefingRows | typeof NOT_SERVING>,
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
    // A moved organization's settings come with its units in stock (one call); D1's otherwise.
    const stock = elsewhere?.stockAndSettings(storeId);
    // The feed's age is read with the page, not after it: one wave of replica reads.
    const [units, settings, totals, ages] = await Promise.all([
      elsewhere
        ? elsewhere.alertPage(ALERT_UNITS_PER_PAGE + 1, position, storeId)
        : alertUnitPage(db, orgId, ALERT_UNITS_PER_PAGE + 1, position, storeId),
      stock ? stock.then((s) => s.settings) : readStoreSettings(db, orgId, storeId),
      stock ? stock.then((s) => liveAgedTotals(s.units, s.settings, now)) : organizationAgedTotals(db, orgId, now, storeId, background),
      dataAsOfAnswer(db, orgId, storeId === undefined ? undefined : [storeId], ["inventory"], now),
    ]);
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

/** Today's stored briefing; the first request of a day that has none builds and stores it (from units `elsewhere` if they are there). */
export async function morningBriefing(
  db: Database,
  request: { orgId: string; role: Role; storeId: string | undefined; lenderThresholdPts: number },
  now: Date,
  elsewhere?: UnitsElsewhere,
): Promise<BriefingBody> {
  const day = now.toISOString().slice(0, 10);
  const cacheKey = `${request.orgId}:${request.storeId ?? ""}:${request.role}:${day}`;
  return briefings.get(cacheKey, now.getTime(), async () => {
    const store = await findOrgStore(db, request.orgId, request.storeId);
    if (!store) {
      throw new DomainError("not_found", request.storeId ? "No such store in this organization." : "The organization has no primary store.");
    }
    const stored = await findBriefing(db, request.orgId, store.id, request.role, day);
    if (stored) return stored as BriefingBody;
    // Read together: none needs another's answer (each wave is a round trip on a first call).
    const [data, pulse, feeds] = await Promise.all([
      loadBriefingData(db, request.orgId, store.id, briefingDealsSince(now), elsewhere?.briefingRows),
      marketPulse(db, request.lenderThresholdPts, now),
      loadFeedReceipts(db, request.orgId, [store.id]),
    ]);
    if (!data) throw new DomainError("not_found", "No such store in this organization.");
    const body = briefingBody(
      buildBriefing({ role: request.role, ...data, pulse, ...briefingSignals({ feeds, tightenings: data.tightenings }, now) }, now),
    );
    // A concurrent request may have stored one first; the stored one is the day's briefing. Stored
    // and read back in one batch: one round trip to the primary.
    const [, [winner]] = await db.batch([
      insertBriefing(db, { orgId: request.orgId, storeId: store.id, role: request.role, day, generatedAt: body.generated_at, body }),
      briefingQuery(db, request.orgId, store.id, request.role, day),
    ]);
    return (winner?.body as BriefingBody | undefined) ?? body;
  });
}
