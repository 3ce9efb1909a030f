import { DurableObject } from "cloudflare:workers";
import type { DealToLoad, DecisionToLoad, MarketValueToLoad, OrgStoreDb, StipToLoad, UnitToLoad } from "../db/org-store";
import type { ComparableQuery, Comparables } from "../db/queries/appraisal";
import type { StoreLenderHistory } from "../db/queries/deal-desk";
import type { FeedQuery, InventoryAfter, SalesSummaryAfter, SalesSummaryRow, UnitRow } from "../db/queries/feeds";
import type { AppliedDeals, PushedDeal, SnapshotPlan, SnapshotUnit } from "../db/queries/ingest";
import type {
  StoredDeal,
  StoredDecision,
  StoredEpisode,
  StoredMarketValue,
  StoredSalesMonth,
  StoredStip,
  StoredUnit,
  TableDigest,
} from "../db/queries/org-storage";
import type { AlertPageAfter, AlertUnitRow, BriefingRows } from "../db/queries/reports";
import type { SnapshotSafety } from "../engines/ingest";
import { describeError, logEvent } from "../lib/log";

export class OrgStorageMismatchError extends Error {
  constructor() {
    super("This storage object holds another organization's data.");
    this.name = "OrgStorageMismatchError";
  }
}

export class SandboxPurgeRefusedError extends Error {
  constructor() {
    super("Only a sandbox organization's storage object can be purged.");
    this.name = "SandboxPurgeRefusedError";
  }
}

/** The answer of a call the object does not serve yet (being filled by a move) or any more (moved back to D1): ask D1 where the data is. */
export const NOT_SERVING = { notServing: true } as const;
type Served<T> = T | typeof NOT_SERVING;

type StoreName = { id: string; name: string };

/** The time (epoch ms) of the nightly run the alarm is set for, in the object's key-value storage. */
const NIGHTLY_AT = "nightly_at";
const NIGHTLY_RETRY_MS = 5 * 60_000;
const NIGHTLY_RETRY_WINDOW_MS = 60 * 60_000;
type Applied = Extract<SnapshotPlan, { refusal: object }> | { refusal: null; created: number; updated: number; removed: number };

/**
 * One organization's own storage (docs/scaling.md): a SQLite-backed object found by
 * `idFromName(orgId)`, holding the tables moved out of D1 for an organization whose
 * `organizations.storage` is `object`, read and written by the same query modules as D1.
 *
 * - Its schema is migrated when it starts, before any call (migrations-org/, drizzle-kit's).
 * - The first call's organization owns it; a call for any other throws `OrgStorageMismatchError`,
 *   so a routing mistake fails loudly instead of answering with another organization's rows.
 * - It serves requests only while `active`: a move fills it inactive, then turns it on; an undo
 *   turns it off first. A request that reaches it otherwise gets `NOT_SERVING`, reads the flag
 *   again and goes where the data is.
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

  /** One page of the inventory feed (`listInventory`, D1's own query). */
  inventoryPage(orgId: string, query: FeedQuery, after?: InventoryAfter): Promise<Served<UnitRow[]>> | Served<UnitRow[]> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return this.queries.listInventory(this.db, orgId, query, after);
  }

  /** One page of the inventory alerts' units, with their market values (`alertUnitPage`, D1's own query). */
  async alertUnitPage(orgId: string, limit: number, after?: AlertPageAfter, storeId?: string): Promise<Served<AlertUnitRow[]>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.alertUnitPage(this.db, orgId, limit, after, storeId);
  }

  /** The units in stock of every store, or of one, with their market values (`unitsInStock`, D1's own query): the briefings' and the alert totals'. */
  async unitsInStock(orgId: string, storeId?: string): Promise<Served<AlertUnitRow[]>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.unitsInStock(this.db, orgId, storeId);
  }

  /** A store's inventory snapshot, checked, compared and written here: refused, or its counts. */
  applySnapshot(
    orgId: string,
    stores: StoreName[],
    storeId: string,
    units: SnapshotUnit[],
    safety: SnapshotSafety,
  ): Promise<Served<Applied>> | Served<Applied> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return this.queries.applySnapshot(this.db, orgId, stores, storeId, units, safety);
  }

  // --- the deals group (deals, deal_stips, sales_monthly; docs/scaling.md) ---------------------

  /** A push of deals, read, compared and written here with the directory's store names: its counts and the stip alerts for D1's outbox. */
  async applyDeals(orgId: string, stores: StoreName[], deals: PushedDeal[], today: string): Promise<Served<AppliedDeals>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.applyDeals(this.db, orgId, stores, deals, today);
  }

  /** One page of the sales summary (`salesSummary`, D1's own query on the rollup the object's triggers keep). */
  async salesSummaryPage(orgId: string, query: FeedQuery, after?: SalesSummaryAfter): Promise<Served<SalesSummaryRow[]>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.salesSummary(this.db, orgId, query, after);
  }

  /** The appraisal's comparables: the recent sales, the units in stock, and the units the sales' VINs name (`comparablesOf`, D1's own reads). */
  async comparables(orgId: string, query: ComparableQuery): Promise<Served<Comparables>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.comparablesOf(this.db, orgId, query);
  }

  /** A store's briefing rows: its recent and pipeline deals, open stips and units in stock (`briefingRows`, D1's own reads). */
  async briefingRows(orgId: string, storeId: string, dealsSince: string): Promise<Served<BriefingRows>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.briefingRows(this.db, orgId, storeId, dealsSince);
  }

  /** One page of a move's copy of the deals and their stips, and with the last, D1's sales rollup (after `load`'s first page emptied the group). */
  loadDeals(orgId: string, deals: StoredDeal[], stips: StoredStip[], salesMonths?: StoredSalesMonth[]): void {
    this.idle(orgId);
    this.queries.loadDeals(this.db, { deals, stips, salesMonths });
  }

  /** One page of the deals by id with their stips, for an undo's copy back to D1. */
  dealPage(orgId: string, afterId: string | undefined, limit: number): Promise<{ deals: StoredDeal[]; stips: StoredStip[] }> {
    this.idle(orgId);
    return this.queries.readDealPage(this.db, orgId, afterId, limit);
  }

  // --- the lender decisions group (lender_decisions, lender_outcome_episodes; docs/scaling.md) --

  /** A store's decisions counted per program and score band, and its open tightenings (`storeLenderHistory`, D1's own reads): the deal desk's. */
  async lenderHistory(orgId: string, storeId: string): Promise<Served<StoreLenderHistory>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.storeLenderHistory(this.db, orgId, storeId);
  }

  /** One page of a move's copy of the decisions, and with the last the episodes; the first empties the group. */
  loadLenderDecisions(orgId: string, decisions: StoredDecision[], episodes: StoredEpisode[] | undefined, first: boolean): void {
    this.idle(orgId);
    this.queries.loadLenderDecisions(this.db, { decisions, episodes }, first);
  }

  /** One page of the decisions by id, and with the last (shorter than `limit`) every episode, for an undo's copy back to D1. */
  async decisionPage(
    orgId: string,
    afterId: string | undefined,
    limit: number,
  ): Promise<{ decisions: StoredDecision[]; episodes?: StoredEpisode[] }> {
    this.idle(orgId);
    const decisions = await this.queries.readDecisionPage(this.db, orgId, afterId, limit);
    return decisions.length < limit ? { decisions, episodes: await this.queries.readEpisodes(this.db, orgId) } : { decisions };
  }

  lenderDigest(orgId: string): Promise<Record<string, TableDigest>> {
    this.claim(orgId);
    return this.queries.lenderDigest(this.db, orgId);
  }

  // --- a move (src/db/org-storage-move.ts): never while serving, except the switch itself --------

  /** One page of a copy from D1 (units and their market values); the first empties what an earlier, failed move left. */
  load(orgId: string, stores: StoreName[], units: StoredUnit[], values: StoredMarketValue[], first: boolean): void {
    this.idle(orgId);
    this.queries.loadPage(this.db, orgId, stores, units, values, first);
  }

  /** One page of the units by id, for an undo's copy back to D1. */
  unitPage(orgId: string, afterId: string | undefined, limit: number): Promise<StoredUnit[]> {
    this.idle(orgId);
    return this.queries.readUnitPage(this.db, orgId, afterId, limit);
  }

  digest(orgId: string): Promise<Record<string, TableDigest>> {
    this.claim(orgId);
    return this.queries.groupDigest(this.db, orgId);
  }

  /** Starts or stops serving requests: the object's side of the flag. Its nightly alarm starts and stops with it. */
  setActive(orgId: string, active: boolean): Promise<void> {
    this.claim(orgId);
    this.queries.setActive(this.db, active);
    return this.armNightly(active);
  }

  // --- jobs where the data is (src/jobs/org-nightly.ts) ---------------------------------------

  /**
   * The organization's nightly work due now (aged alerts, lender outcomes, morning briefings), as the crons run it
   * for an organization in D1; then the alarm for the next run. A failure is tried again every
   * NIGHTLY_RETRY_MS for up to NIGHTLY_RETRY_WINDOW_MS (each run is idempotent); a run missed past
   * that is skipped, and the aged alerts' look-back finds its crossings on the next night.
   */
  async alarm(): Promise<void> {
    const owner = this.queries.readOwner(this.db);
    // An undo deletes the alarm; one already under way finds the object off.
    if (!owner?.active) return;
    const nightly = await import("../jobs/org-nightly");
    const at = await this.ctx.storage.get<number>(NIGHTLY_AT);
    if (at !== undefined) {
      try {
        await nightly.runNightly(this.env, owner.orgId, at, {
          inStock: async () => await this.queries.unitsInStock(this.db, owner.orgId),
          briefingRows: (storeId, dealsSince) => this.queries.briefingRows(this.db, owner.orgId, storeId, dealsSince),
          outcomes: this.queries.outcomeStore(this.db, owner.orgId),
        });
      } catch (error) {
        logEvent("error", { event: "org_nightly_failed", org_id: owner.orgId, run_at: new Date(at).toISOString(), ...describeError(error) });
        if (Date.now() < at + NIGHTLY_RETRY_WINDOW_MS) return this.ctx.storage.setAlarm(Date.now() + NIGHTLY_RETRY_MS);
      }
    }
    await this.armNightly(true, at);
  }

  /** Sets the alarm for the first nightly run after `after` (and after now), or clears it. */
  private async armNightly(on: boolean, after?: number): Promise<void> {
    if (!on) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.delete(NIGHTLY_AT);
      return;
    }
    // Switched on again while armed (a move run twice): the alarm already set stands.
    if (after === undefined && (await this.ctx.storage.getAlarm()) !== null) return;
    const { nextNightlyRun } = await import("../jobs/org-nightly");
    const at = nextNightlyRun(Math.max(after ?? 0, Date.now()));
    await this.ctx.storage.put(NIGHTLY_AT, at);
    await this.ctx.storage.setAlarm(at);
  }

  // --- a sandbox (src/routes/sandboxes, src/jobs/purge-expired-sandboxes.ts) --------------------

  /** A new sandbox's seeded inventory, deals and lender decisions, written as a move's first page is (`loadPage`), then served, its nightly alarm set (the crons skip it). */
  seedSandbox(
    orgId: string,
    stores: StoreName[],
    units: UnitToLoad[],
    values: MarketValueToLoad[],
    deals: DealToLoad[] = [],
    stips: StipToLoad[] = [],
    decisions: DecisionToLoad[] = [],
  ): Promise<void> {
    this.idle(orgId);
    this.queries.loadPage(this.db, orgId, stores, units, values, true);
    this.queries.loadDeals(this.db, { deals, stips });
    this.queries.loadLenderDecisions(this.db, { decisions }, true);
    return this.setActive(orgId, true);
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
    await this.ctx.blockConcurrencyWhile(async () => {
      // The alarm goes with it: deleteAll deletes it too from compatibility date 2026-02-24 (wrangler.toml's is later).
      await this.ctx.storage.deleteAll();
      this.db = await this.queries.openOrgStore(this.ctx.storage);
    });
  }

  private serves(orgId: string): boolean {
    return this.claim(orgId).active;
  }

  /** A move's copy runs only while no request is served here. */
  private idle(orgId: string): void {
    if (this.claim(orgId).active) throw new Error("This storage object is serving requests: turn it off (setActive) before copying.");
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
