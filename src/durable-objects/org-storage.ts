import { DurableObject } from "cloudflare:workers";
import type { OrgStoreDb } from "../db/org-store";
import type { ComparableQuery, ComparableUnits } from "../db/queries/appraisal";
import type { FeedQuery, InventoryAfter, UnitRow } from "../db/queries/feeds";
import type { SnapshotPlan, SnapshotUnit } from "../db/queries/ingest";
import type { StoredMarketValue, StoredUnit, TableDigest } from "../db/queries/org-storage";
import type { AlertPageAfter, AlertUnitRow } from "../db/queries/reports";
import type { SnapshotSafety } from "../engines/ingest";

export class OrgStorageMismatchError extends Error {
  constructor() {
    super("This storage object holds another organization's data.");
    this.name = "OrgStorageMismatchError";
  }
}

/** The answer of a call the object does not serve yet (being filled by a move) or any more (moved back to D1): ask D1 where the data is. */
export const NOT_SERVING = { notServing: true } as const;
type Served<T> = T | typeof NOT_SERVING;

type StoreName = { id: string; name: string };
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

  /** The appraisal's in-stock comparables and the units its sold deals' VINs name (`comparableUnits`, D1's own query). */
  async comparableUnits(orgId: string, query: ComparableQuery, soldVins: string[]): Promise<Served<ComparableUnits>> {
    if (!this.serves(orgId)) return NOT_SERVING;
    return await this.queries.comparableUnits(this.db, orgId, query, soldVins);
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

  /** Starts or stops serving requests: the object's side of the flag. */
  setActive(orgId: string, active: boolean): void {
    this.claim(orgId);
    this.queries.setActive(this.db, active);
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
