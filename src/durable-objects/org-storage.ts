import { DurableObject } from "cloudflare:workers";
import type {
  DealToLoad,
  DecisionToLoad,
  EventToRecord,
  LenderPanelChanged,
  MarketValueToLoad,
  NewStoreSettings,
  OrgStoreDb,
  StipToLoad,
  StoredPanelRow,
  StoredThresholds,
  StoreSettingsChanged,
  ThresholdsChanged,
  UnitToLoad,
} from "../db/org-store";
import type { ComparableQuery, Comparables } from "../db/queries/appraisal";
import type { ComplianceCheckRow, HistoryOutcome, NewComplianceCheck } from "../db/queries/compliance";
import type { StoreLenderHistory } from "../db/queries/deal-desk";
import type { RecordedEvent } from "../db/queries/events";
import type { FeedQuery, InventoryAfter, SalesSummaryAfter, SalesSummaryRow, UnitRow } from "../db/queries/feeds";
import type { AppliedDeals, PushedDeal, SnapshotPlan, SnapshotUnit } from "../db/queries/ingest";
import type { AlertPageAfter } from "../db/queries/reports";
import type {
  AuditCursor,
  ComplianceChange,
  ComplianceSettingsValues,
  SettingChange,
  SettingsAuditRow,
  StoreSettingsRow,
} from "../db/queries/settings";
import type { FeedReceipts } from "../db/queries/signals";
import type { SnapshotSafety } from "../engines/ingest";
import type { BriefingBody } from "../engines/reports/bodies";
import type { Role } from "../engines/reports/briefings";
import type { AlertReport } from "../jobs/alert-totals";
import type { BriefingInputs } from "../jobs/build-morning-briefings";
import type { WebhookAnswer, WebhookArgs, WebhookOp } from "../jobs/webhook-requests";
import { describeError, logEvent } from "../lib/log";

export class OrgStorageMismatchError extends Error {
  constructor() {
    super("This storage object holds another organization's data.");
    this.name = "OrgStorageMismatchError";
  }
}

export class OrgStorageClosedError extends Error {
  constructor() {
    super("This storage object is not open for its organization.");
    this.name = "OrgStorageClosedError";
  }
}

export class SandboxPurgeRefusedError extends Error {
  constructor() {
    super("Only a sandbox organization's storage object can be purged.");
    this.name = "SandboxPurgeRefusedError";
  }
}

type StoreName = { id: string; name: string };
/** A feed's page with the receipts of its stores (`data_as_of`). */
type Page<Row> = { rows: Row[]; receipts: FeedReceipts };

/** The time (epoch ms) of the nightly run the alarm is set for, in the object's key-value storage. */
const NIGHTLY_AT = "nightly_at";
/** When a failed nightly run is tried again (its run time stays NIGHTLY_AT). */
const NIGHTLY_RETRY_AT = "nightly_retry_at";
/** When the object relays the events of its outbox no request relayed; set while any waits. */
const RELAY_AT = "relay_at";
/** A request relays its events at once; the alarm, this long after, only what it left (a D1 failure, a lost isolate). */
const RELAY_DELAY_MS = 60_000;
/** Events per D1 batch of the alarm's relay. */
const RELAY_PAGE = 500;
const NIGHTLY_RETRY_MS = 5 * 60_000;
const NIGHTLY_RETRY_WINDOW_MS = 60 * 60_000;
/** When the feeds' stale check is next due (the store feeds group); the alarm checks them on every firing. */
const FEED_CHECK_AT = "feed_check_at";
const FEED_CHECK_LAG_MS = 1_000;
/** When the object re-sends the webhook redeliveries and samples whose queue send failed; set while any waits (the webhooks group). */
const RESEND_AT = "resend_at";
type Applied =
  | Extract<SnapshotPlan, { refusal: object }>
  | { refusal: null; created: number; updated: number; removed: number; events: RecordedEvent[] };

/**
 * One organization's own storage (docs/scaling.md): a SQLite-backed object found by
 * `idFromName(orgId)`, holding every per-organization table, read and written by the query
 * modules D1's code shares (src/db/org-store.ts).
 *
 * - Its schema is migrated when it starts, before any call (migrations-org/, drizzle-kit's).
 * - The first call's organization owns it; a call for any other throws `OrgStorageMismatchError`,
 *   so a routing mistake fails loudly instead of answering with another organization's rows.
 * - It serves requests only once open (`active`): the organization's creation seeds it; a request
 *   that reaches it before is refused (`OrgStorageClosedError`).
 * - One call per request: each method does all of its request's reads and writes.
 */
export class OrganizationStore extends DurableObject<Env> {
  private db!: OrgStoreDb;
  private queries!: typeof import("../db/org-store");

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Loaded on start, not at the top: the Worker exports this class, and every isolate would pay
    // drizzle's SQLite driver and the query modules at start-up for an object few requests reach.
    ctx.blockConcurrencyWhile(async () => {
      this.queries = await import("../db/org-store");
      this.db = await this.queries.openOrgStore(ctx.storage);
    });
  }

  /**
   * One page of the inventory feed (`listInventory`), with the feeds' deliveries of the page's store
   * (or every store) for its `data_as_of`, kept here (the store feeds group).
   */
  async inventoryPage(orgId: string, query: FeedQuery, after?: InventoryAfter): Promise<Page<UnitRow>> {
    this.serve(orgId);
    return this.withReceipts(orgId, query, this.queries.listInventory(this.db, orgId, query, after));
  }

  /** A feed's page with the receipts of its stores. */
  private async withReceipts<Row>(orgId: string, query: FeedQuery, page: Promise<Row[]>): Promise<Page<Row>> {
    const storeIds = query.storeId === undefined ? undefined : [query.storeId];
    const [rows, receipts] = await Promise.all([page, this.queries.readFeedReceipts(this.db, orgId, storeIds)]);
    return { rows, receipts };
  }

  /**
   * One page of the inventory alerts' units, with their market values (`alertUnitPage`, D1's own
   * query), the stores' settings they are judged by and the totals of the units in stock, in one
   * call (`alertReportOf`): computed here, not stored, so nothing but the page, the settings and
   * two figures goes back.
   */
  async alertReport(
    orgId: string,
    page: { limit: number; after: AlertPageAfter | undefined; storeId: string | undefined },
    now: Date,
  ): Promise<AlertReport> {
    this.serve(orgId);
    const { alertReportOf } = await import("../jobs/alert-totals");
    return await alertReportOf(this.db, orgId, page, now);
  }

  /**
   * A store's inventory snapshot, checked, compared and written here with its delivery (the store
   * feeds group) and the `store.feed_resumed` it raises in the outbox, in one transaction: refused,
   * or its counts and the recorded events, which the caller relays (then `markRelayed`), or the alarm does.
   */
  async applySnapshot(
    orgId: string,
    stores: StoreName[],
    storeId: string,
    units: SnapshotUnit[],
    safety: SnapshotSafety,
    receivedAt: string,
  ): Promise<Applied> {
    this.serve(orgId);
    const applied = await this.queries.applySnapshot(this.db, orgId, stores, storeId, units, safety, new Date(receivedAt));
    if (applied.refusal) return applied;
    await this.relayLater(applied.events);
    await this.armFeedCheck(orgId);
    return applied;
  }

  // --- the deals group (deals, deal_stips, sales_monthly; docs/scaling.md) ---------------------

  /**
   * A push of deals, read, compared and written here with the directory's store names, its stip
   * alerts recorded in the object's outbox in the same transaction: its counts and the recorded
   * alerts, which the caller relays to D1 (then `markRelayed`), or the alarm does.
   */
  async applyDeals(
    orgId: string,
    stores: StoreName[],
    deals: PushedDeal[],
    today: string,
    occurredAt: string,
  ): Promise<AppliedDeals & { events: RecordedEvent[] }> {
    this.serve(orgId);
    const applied = await this.queries.applyDeals(this.db, orgId, stores, deals, today, occurredAt);
    await this.relayLater(applied.events);
    await this.armFeedCheck(orgId);
    return applied;
  }

  /** One page of the sales summary (`salesSummary`, on the rollup the object's triggers keep), with its receipts as the inventory feed's. */
  async salesSummaryPage(orgId: string, query: FeedQuery, after?: SalesSummaryAfter): Promise<Page<SalesSummaryRow>> {
    this.serve(orgId);
    return this.withReceipts(orgId, query, this.queries.salesSummary(this.db, orgId, query, after));
  }

  /** The appraisal's comparables: the recent sales, the units in stock, and the units the sales' VINs name (`comparablesOf`, D1's own reads). */
  async comparables(orgId: string, query: ComparableQuery): Promise<Comparables> {
    this.serve(orgId);
    // With the stores' settings, kept here: the appraisal prices with its store's.
    // And every store's feed receipts: the comparables are every store's.
    const [comparables, settings, feeds] = await Promise.all([
      this.queries.comparablesOf(this.db, orgId, query),
      this.queries.listStoreSettings(this.db, orgId),
      this.queries.readFeedReceipts(this.db, orgId),
    ]);
    return { ...comparables, settings, feeds };
  }

  // --- the compliance checks group (compliance_checks; docs/scaling.md) ------------------------

  /**
   * A screening's audit row, the organization's history read and the check written in one statement
   * here, with a hold's event in the outbox (`recordCheck`): the index of the outcome the history
   * chose, and the events for the request to relay.
   */
  async recordCheck(
    orgId: string,
    check: NewComplianceCheck,
    outcomes: HistoryOutcome[],
    raised: EventToRecord[],
    occurredAt: string,
    // The thresholds the screening used, and D1's defaults.
    thresholds: { used: ComplianceSettingsValues; defaults: ComplianceSettingsValues },
  ): Promise<{ outcome: number; events: RecordedEvent[] } | { thresholds: ComplianceSettingsValues }> {
    this.serve(orgId);
    // The thresholds in force are this object's: a screening computed with others is not recorded, and is run again with these.
    // Read and written with no await between, so no change comes between them.
    const inForce = this.queries.readOwnThresholds(this.db, orgId) ?? thresholds.defaults;
    if (!this.queries.sameComplianceValues(inForce, thresholds.used)) return { thresholds: this.queries.complianceValuesOf(inForce) };
    const recorded = this.queries.recordCheck(this.db, orgId, check, outcomes, raised, occurredAt);
    await this.relayLater(recorded.events);
    return recorded;
  }

  /** One recorded check of the organization's audit trail, or null (`getComplianceCheck`, D1's own query). */
  async complianceCheck(orgId: string, checkId: string): Promise<ComplianceCheckRow | null> {
    this.serve(orgId);
    return await this.queries.getComplianceCheck(this.db, orgId, checkId);
  }

  // --- the lender decisions group (lender_decisions, lender_outcome_episodes; docs/scaling.md) --

  /** A store's decisions counted per program and score band, and its open tightenings (`storeLenderHistory`, D1's own reads): the deal desk's. */
  async lenderHistory(orgId: string, storeId: string): Promise<StoreLenderHistory> {
    this.serve(orgId);
    // With the store's settings and its feeds' receipts, kept here: the desk computes with them.
    const [history, settings, feeds] = await Promise.all([
      this.queries.storeLenderHistory(this.db, orgId, storeId),
      this.queries.findStoreSettings(this.db, orgId, storeId),
      this.queries.readFeedReceipts(this.db, orgId, [storeId]),
    ]);
    return { ...history, ...(settings && { settings }), feeds };
  }

  // --- the settings group (the settings columns of `stores`, settings_audit; docs/scaling.md) --

  /** The organization's stores with their settings, by id (`listStoreSettings`, D1's own query). */
  async storeSettingsList(orgId: string): Promise<StoreSettingsRow[]> {
    this.serve(orgId);
    return await this.queries.listStoreSettings(this.db, orgId);
  }

  /** One store's settings, or null (`findStoreSettings`, D1's own query). */
  async storeSettings(orgId: string, storeId: string): Promise<StoreSettingsRow | null> {
    this.serve(orgId);
    return await this.queries.findStoreSettings(this.db, orgId, storeId);
  }

  /** A store's settings change, read, planned and written here with its audit rows in one transaction (`changeStoreSettings`); a stale threshold changed moves the feeds' check. */
  async changeStoreSettings(
    orgId: string,
    storeId: string,
    fields: SettingChange[],
    actor: string,
    changedAt: string,
    expected?: StoreSettingsRow,
  ): Promise<StoreSettingsChanged> {
    this.serve(orgId);
    const changed = this.queries.changeStoreSettings(this.db, orgId, storeId, fields, actor, changedAt, expected);
    await this.armFeedCheck(orgId);
    return changed;
  }

  /** One page of the settings audit, newest first (`listSettingsAudit`, D1's own query). */
  async settingsAudit(orgId: string, page: { limit: number; after?: AuditCursor }): Promise<SettingsAuditRow[]> {
    this.serve(orgId);
    return await this.queries.listSettingsAudit(this.db, orgId, page);
  }

  /**
   * A store the directory opened, with the settings it was created with (the others at their
   * defaults) and its lender panel: its settings as stored, for the operator's answer.
   */
  addStore(orgId: string, store: NewStoreSettings, panel: string[] = []): StoreSettingsRow {
    this.serve(orgId);
    const stored = this.queries.addStore(this.db, { ...store, orgId });
    this.queries.addStorePanel(this.db, orgId, store.id, panel);
    return stored;
  }

  // --- the settings group's lender panels and screening thresholds (store_lender_panel, compliance_settings; docs/scaling.md) --

  /** A store's panel (program ids, sorted), or null when the organization has no such store. */
  async lenderPanel(orgId: string, storeId: string): Promise<string[] | null> {
    this.serve(orgId);
    const [store, panel] = await Promise.all([
      this.queries.findStoreSettings(this.db, orgId, storeId),
      this.queries.loadStorePanel(this.db, orgId, storeId),
    ]);
    return store && panel;
  }

  /** A store's panel replaced here with its audit row in one transaction (`changeLenderPanel`). */
  changeLenderPanel(orgId: string, storeId: string, programIds: string[], actor: string, changedAt: string): LenderPanelChanged {
    this.serve(orgId);
    return this.queries.changeLenderPanel(this.db, orgId, storeId, programIds, actor, changedAt);
  }

  /** The organization's own screening thresholds, or null: the defaults (D1's '*' row) are in force. */
  async complianceThresholds(orgId: string): Promise<StoredThresholds | null> {
    this.serve(orgId);
    return this.queries.readOwnThresholds(this.db, orgId);
  }

  /** The thresholds changed here with their audit rows in one transaction (`changeThresholds`); `defaults` are D1's, in force while the organization has no row. */
  changeComplianceThresholds(
    orgId: string,
    defaults: ComplianceSettingsValues,
    fields: ComplianceChange[],
    actor: string,
    changedAt: string,
  ): ThresholdsChanged {
    this.serve(orgId);
    return this.queries.changeThresholds(this.db, orgId, defaults, fields, actor, changedAt);
  }

  // --- the webhooks group (webhook_endpoints, webhook_deliveries, webhook_attempts; docs/scaling.md) --

  /**
   * One request's work on the webhooks group (src/jobs/webhook-requests.ts, called through src/jobs/webhook-storage.ts):
   * a route's reads and writes, a fan-out's deliveries, a delivery's claim or its attempt's record.
   * A redelivery or a sample is queued from here, so its request stays one call.
   */
  async webhooks<Op extends WebhookOp>(orgId: string, op: Op, args: WebhookArgs<Op>): Promise<WebhookAnswer<Op>> {
    this.serve(orgId);
    const { runWebhookRequest } = await import("../jobs/webhook-requests");
    const answer = await runWebhookRequest({ env: this.env, store: this.queries.objectWebhookStore(this.db), orgId }, op, args);
    // Its queue send may have failed: the alarm re-sends it.
    if (op === "redeliver" || op === "sample") await this.armResend();
    return answer;
  }

  // --- the webhooks group's jobs: its redeliveries and samples whose queue send failed (docs/scaling.md) --

  /**
   * The re-send's timer (RESEND_AT) set for the oldest redelivery or sample the queue never
   * accepted, once past the sweeper's grace (`nextResend`), or cleared.
   */
  private async armResend(): Promise<void> {
    const { nextResend } = await import("../jobs/sweep-outbox");
    await this.setResendTimer(await nextResend(this.queries.objectWebhookStore(this.db), new Date()));
  }

  /** The alarm's re-send of what the queue never accepted, each once (`resendUnsent`), then the timer for what is left. */
  private async resend(): Promise<void> {
    const { resendUnsent } = await import("../jobs/sweep-outbox");
    await this.setResendTimer(await resendUnsent(this.env, this.queries.objectWebhookStore(this.db), new Date()));
  }

  private async setResendTimer(at: number | undefined): Promise<void> {
    if (at === undefined) await this.ctx.storage.delete(RESEND_AT);
    else await this.ctx.storage.put(RESEND_AT, at);
    await this.arm();
  }

  // --- the briefings group (morning_briefings, aged_inventory_alerts; docs/scaling.md) ----------

  /**
   * A request's briefing, its one call: today's stored one, or one built here from the store's rows,
   * settings and feeds' receipts with the pulse the Worker read (`inputs`), and stored; of two built
   * at once, the first stored stands. Null for a store this object holds no settings of.
   */
  async morningBriefing(
    orgId: string,
    request: { storeId: string; role: Role; day: string; dealsSince: string },
    inputs: BriefingInputs,
    now: Date,
  ): Promise<BriefingBody | null> {
    this.serve(orgId);
    const { storeId, role, day } = request;
    const stored = await this.queries.findBriefing(this.db, orgId, storeId, role, day);
    if (stored) return stored as BriefingBody;
    const [{ composeBriefing }, rows, feeds] = await Promise.all([
      import("../jobs/build-morning-briefings"),
      this.queries.briefingRows(this.db, orgId, storeId, request.dealsSince),
      this.queries.readFeedReceipts(this.db, orgId, [storeId]),
    ]);
    const data = this.queries.briefingData(rows);
    if (!data) return null;
    const body = composeBriefing(role, data, inputs.pulse, feeds, now);
    return this.queries.keepBriefing(this.db, { orgId, storeId, role, day, generatedAt: body.generated_at, body }) as BriefingBody;
  }

  // --- the object's outbox (docs/scaling.md#an-object-write-and-its-events) ------------------

  /** These events are in D1's outbox (the caller relayed them): marked, so the alarm leaves them. */
  async markRelayed(orgId: string, ids: string[]): Promise<void> {
    this.claim(orgId);
    if (!this.queries.markRelayed(this.db, ids, new Date())) await this.ctx.storage.delete(RELAY_AT);
    await this.arm();
  }

  /** Recorded events: the alarm relays them RELAY_DELAY_MS from the first one waiting, unless a request's relay marks them first. */
  private async relayLater(events: readonly RecordedEvent[]): Promise<void> {
    if (events.length === 0 || (await this.ctx.storage.get<number>(RELAY_AT)) !== undefined) return;
    await this.ctx.storage.put(RELAY_AT, Date.now() + RELAY_DELAY_MS);
    await this.arm();
  }

  /** Every waiting event to D1's outbox and the queue, a page per D1 batch (src/jobs/relay-org-events.ts), each page marked once D1 holds it. */
  private async relay(): Promise<void> {
    const { relayOrgEvents } = await import("../jobs/relay-org-events");
    for (;;) {
      const events = this.queries.unrelayedEvents(this.db, RELAY_PAGE);
      if (events.length === 0) break;
      await relayOrgEvents(this.env, events, new Date());
      this.queries.markRelayed(
        this.db,
        events.map((e) => e.id),
        new Date(),
      );
    }
    await this.ctx.storage.delete(RELAY_AT);
  }

  // --- jobs where the data is (src/jobs/org-nightly.ts) ---------------------------------------

  /**
   * The object's one alarm serves four timers, each in the object's key-value storage: the outbox's
   * relay (RELAY_AT), the webhook redeliveries' re-send (RESEND_AT), the feeds' stale check
   * (FEED_CHECK_AT) and the nightly run (NIGHTLY_AT, or its retry). It is set for the earliest, and each firing runs what is due, so none waits for another.
   *
   * The relay runs whenever events wait; if D1 refuses, it is tried again RELAY_DELAY_MS later.
   * The organization's nightly work (aged alerts, lender outcomes, morning briefings, expired compliance checks) runs as the crons run it for
   * an organization in D1, then the alarm is set for the next run. A failure is tried again every
   * NIGHTLY_RETRY_MS for up to NIGHTLY_RETRY_WINDOW_MS (each run is idempotent); a run missed past
   * that is skipped, and the aged alerts' look-back finds its crossings on the next night.
   */
  async alarm(): Promise<void> {
    const owner = this.queries.readOwner(this.db);
    // Its timers are set once it is open (`seed`); a purged sandbox's has none.
    if (!owner?.active) return;
    const storage = this.ctx.storage;
    const relayAt = await storage.get<number>(RELAY_AT);
    const feedCheckAt = await storage.get<number>(FEED_CHECK_AT);
    // The feeds first, on every firing (one indexed read when none is due): their stale events go out with this relay.
    const stale = await this.queries.markStaleFeeds(this.db, owner.orgId, new Date());
    if (relayAt !== undefined || stale.length > 0) await this.relayOrRetry(owner.orgId);
    const resendAt = await storage.get<number>(RESEND_AT);
    if (resendAt !== undefined) await this.resend();
    const at = await storage.get<number>(NIGHTLY_AT);
    const wake = (await storage.get<number>(NIGHTLY_RETRY_AT)) ?? at;
    // The nightly run is due when this firing was for it (not the relay's, the re-send's or the feeds', earlier) or its time has come.
    const earlier = Math.min(...[relayAt, resendAt, feedCheckAt].map((t) => t ?? Number.POSITIVE_INFINITY));
    if (at !== undefined && wake !== undefined && (wake <= earlier || wake <= Date.now())) {
      await this.runNightly(owner.orgId, at);
      // Its jobs record their events in the outbox with their writes (the lender outcomes'): relayed now.
      await this.relayOrRetry(owner.orgId);
    }
    await this.armFeedCheck(owner.orgId);
  }

  /** Relays what waits in the outbox; if D1 refuses, the relay's timer tries again RELAY_DELAY_MS later. */
  private async relayOrRetry(orgId: string): Promise<void> {
    try {
      await this.relay();
    } catch (error) {
      logEvent("error", { event: "org_outbox_relay_failed", org_id: orgId, ...describeError(error) });
      await this.ctx.storage.put(RELAY_AT, Date.now() + RELAY_DELAY_MS);
    }
  }

  /** The nightly jobs of `at`, then the timer for the next run (or a retry). */
  private async runNightly(orgId: string, at: number): Promise<void> {
    const nightly = await import("../jobs/org-nightly");
    try {
      await nightly.runNightly(this.env, orgId, at, {
        inStock: async () => await this.queries.unitsInStock(this.db, orgId),
        storeSettings: () => this.queries.readStoreSettings(this.db, orgId),
        expiredChecks: (now) => this.queries.deleteExpiredChecks(this.db, now),
        expiredDeliveries: (now) => this.queries.deleteExpiredDeliveries(this.db, now),
        outcomes: this.queries.outcomeStore(this.db, orgId),
        attemptBodies: (keptFrom) => this.queries.purgeAttemptBodies(this.db, keptFrom),
        briefings: this.queries.briefingStore(this.db, orgId),
        agedAlerts: this.queries.agedAlertStore(this.db, orgId),
        expiredBriefings: (now) => this.queries.deleteExpiredBriefings(this.db, now),
      });
    } catch (error) {
      logEvent("error", { event: "org_nightly_failed", org_id: orgId, run_at: new Date(at).toISOString(), ...describeError(error) });
      if (Date.now() < at + NIGHTLY_RETRY_WINDOW_MS) return this.ctx.storage.put(NIGHTLY_RETRY_AT, Date.now() + NIGHTLY_RETRY_MS);
    }
    await this.ctx.storage.delete(NIGHTLY_RETRY_AT);
    await this.armNightly(at);
  }

  /** Sets the nightly timer for the first run after `after` (and after now). */
  private async armNightly(after?: number): Promise<void> {
    const storage = this.ctx.storage;
    const { nextNightlyRun } = await import("../jobs/org-nightly");
    await storage.put(NIGHTLY_AT, nextNightlyRun(Math.max(after ?? 0, Date.now())));
    await this.arm();
  }

  /** The alarm at the earliest of the timers (the nightly run, the relay, the re-send, the feeds' check), or none. */
  private async arm(): Promise<void> {
    const storage = this.ctx.storage;
    const timers = await storage.get<number>([NIGHTLY_AT, NIGHTLY_RETRY_AT, RELAY_AT, RESEND_AT, FEED_CHECK_AT]);
    const nightly = timers.get(NIGHTLY_RETRY_AT) ?? timers.get(NIGHTLY_AT);
    const next = Math.min(
      ...[nightly, timers.get(RELAY_AT), timers.get(RESEND_AT), timers.get(FEED_CHECK_AT)].map((t) => t ?? Number.POSITIVE_INFINITY),
    );
    if (next === Number.POSITIVE_INFINITY) await storage.deleteAlarm();
    else if ((await storage.getAlarm()) !== next) await storage.setAlarm(next);
  }

  // --- the store feeds group (store_feeds; docs/scaling.md) -------------------------------------

  /**
   * The feeds' check set for the first time a feed with no open episode goes past its store's
   * threshold (its last delivery plus the threshold, a second after, as the check is strictly past
   * it), or cleared while none can or the object does not serve. Set again after each delivery,
   * threshold change and check.
   */
  private async armFeedCheck(orgId: string): Promise<void> {
    const due = this.claim(orgId).active ? await this.queries.nextFeedStaleAt(this.db, orgId) : null;
    if (due === null) await this.ctx.storage.delete(FEED_CHECK_AT);
    else await this.ctx.storage.put(FEED_CHECK_AT, Date.parse(due) + FEED_CHECK_LAG_MS);
    await this.arm();
  }

  // --- an organization born here (src/routes/operator, src/routes/sandboxes) and a sandbox's purge ---

  /** Whether the object serves its organization (a seed opened it): the local demo's check before it seeds one (src/routes/demo-data). */
  isOpen(orgId: string): boolean {
    return this.claim(orgId).active;
  }

  /**
   * Opens the object for a new organization (its creation's one call): its first rows and the
   * opening in one transaction (`seedRows`), then its timers, the nightly run's included: a
   * sandbox's or a demo organization's stores with their settings and panels, inventory, deals and
   * lender decisions; none for an organization created empty, whose stores come later (`addStore`).
   * Refused once open, so a second seed never writes over an organization's data.
   */
  async seed(
    orgId: string,
    stores: StoreSettingsRow[] = [],
    units: UnitToLoad[] = [],
    values: MarketValueToLoad[] = [],
    deals: DealToLoad[] = [],
    stips: StipToLoad[] = [],
    decisions: DecisionToLoad[] = [],
    panels: StoredPanelRow[] = [],
  ): Promise<void> {
    if (this.claim(orgId).active) throw new Error("This storage object is open already: an organization is seeded once.");
    this.queries.seedRows(this.db, orgId, { stores, units, values, deals, stips, decisions, panels });
    await this.armFeedCheck(orgId);
    await this.armResend();
    await this.armNightly();
  }

  /**
   * Deletes all of the object's storage and its alarm: an expired sandbox's purge, run before D1's
   * rows go so that a purge cut short is finished by the next run. Refused for an object another
   * organization owns, and for an organization D1 does not hold as a sandbox, so a live
   * organization's data is never deleted through here. An object with no owner holds nothing and
   * is left as it is, so a second purge does nothing. The schema is laid again at once, empty and
   * unowned, as a new object's is when it starts, so this instance keeps answering.
   */
  async purgeSandbox(orgId: string): Promise<void> {
    const owner = this.queries.readOwner(this.db);
    // Unowned: never written (a seed claims it first) or purged already.
    if (owner === undefined) return;
    if (owner.orgId !== orgId) throw new OrgStorageMismatchError();
    // Loaded here, not at the top: D1's schema and client would otherwise be built at every isolate's start-up.
    const [{ getDb }, { isSandbox }] = await Promise.all([import("../db/client"), import("../db/queries/sandboxes")]);
    if (!(await isSandbox(getDb(this.env.DB), orgId))) throw new SandboxPurgeRefusedError();
    await this.ctx.blockConcurrencyWhile(() => this.deleteStorage());
  }

  /**
   * Every row and timer gone; the schema laid again at once, empty and unowned, as a new object's
   * is when it starts, so this instance keeps answering. Run inside blockConcurrencyWhile.
   */
  private async deleteStorage(): Promise<void> {
    // The alarm goes with it: deleteAll deletes it too from compatibility date 2026-02-24 (wrangler.toml's is later).
    await this.ctx.storage.deleteAll();
    this.db = await this.queries.openOrgStore(this.ctx.storage);
  }

  /** Refuses a request before the object is open for its organization (an organization is born with its object seeded). */
  private serve(orgId: string): void {
    if (!this.claim(orgId).active) throw new OrgStorageClosedError();
  }

  /** The first caller's organization owns the object; any other is refused. */
  private claim(orgId: string): { orgId: string; active: boolean } {
    const owner = this.queries.readOwner(this.db);
    if (owner === undefined) {
      this.queries.claimOwner(this.db, orgId);
      return { orgId, active: false };
    }
    if (owner.orgId !== orgId) throw new OrgStorageMismatchError();
    return owner;
  }
}
