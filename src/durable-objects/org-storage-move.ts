/**
 * Moving an organization's data between D1 and its storage object (docs/scaling.md#how-an-organization-moves-d1--its-object),
 * for the tables moved so far (the inventory group, the deals group, the compliance checks, the lender decisions group, the settings group with its lender panels and screening thresholds, the webhooks group, the briefings group, the store feeds). A move: the flag to `moving` (D1's fence then
 * refuses the group's writes, which wait), a copy in pages by id, the digests of both sides
 * compared, the object turned on, the flag to `object`. An undo is the same the other way; D1's
 * copy is kept by a move, so an undo writes back only what changed since.
 */
import { type Database, getDb } from "../db/client";
import {
  type AgedAlertKey,
  type BriefingKey,
  type BriefingsTable,
  briefingsDigest,
  type FeedsTable,
  feedsDigest,
  forgetBriefings,
  type GroupTable,
  groupDigest,
  type LenderTable,
  lenderDigest,
  type PanelsTable,
  panelsDigest,
  readAgedAlertMarkerPage,
  readAuditPage,
  readBriefingPage,
  readCheckPage,
  readD1CopyPurgedAt,
  readDealPage,
  readDecisionPage,
  readDeliveryPage,
  readEndpoints,
  readEpisodes,
  readLenderPanels,
  readMarketValuePage,
  readOrgStorage,
  readSalesMonths,
  readStoreFeeds,
  readStoreNames,
  readUnitPage,
  restoreBriefings,
  restoreChecks,
  restoreDeals,
  restoreDeliveries,
  restoreEndpoints,
  restoreLenderDecisions,
  restoreLenderPanels,
  restoreSettings,
  restoreStoreFeeds,
  restoreUnits,
  type SettingsTable,
  type StoredBriefing,
  type StoredDecision,
  type StoredEndpoint,
  type StoredEpisode,
  type StoredPanelRow,
  type StoredThresholds,
  settingsDigest,
  switchOrgStorage,
  type TableDigest,
  type WebhookPage,
  type WebhooksTable,
  webhooksDigest,
} from "../db/queries/org-storage";
import {
  CAUGHT_UP_TABLE_NAMES,
  endMove,
  forgetChanges,
  leaseMove,
  type MoveRow,
  pendingChanges,
  readChangeRound,
  readMove,
  releaseMove,
  rowCounts,
  saveMove,
  startMove,
  switchWithLease,
} from "../db/queries/org-storage-copy";
import { listStoreSettings } from "../db/queries/settings";
import type { OrgStoragePlace } from "../db/schema";
import { DomainError } from "../lib/domain-error";
import { orgStore } from "./org-storage-routing";

/** Units per RPC call or D1 batch: far under RPC's and D1's limits, a few hundred KB a page. */
const PAGE = 500;

export interface MoveReport {
  org_id: string;
  storage: "d1" | "object";
  /** False while a move is under way (its copy or catch-up stopped for the request's time): run it again to go on. */
  done: boolean;
  /** Where a move under way stands: the group its copy is at, or `catch_up`. */
  step?: string;
  /**
   * The catch-up's rounds, how many changes the last ones (during the write pause) wrote, and
   * whether the digests were compared before the pause (the pause then checks row counts only).
   */
  catch_up?: { rounds: number; last_round_changes: number; verified_before_pause: boolean };
  /** Per table: rows and SHA-256 on both sides, equal (a move that finds them different stops before the flip). */
  tables: Record<string, TableDigest>;
  /** How long the organization's writes waited: from the flag leaving its place to its flip. */
  write_pause_ms: number;
}

/** A copy whose digests differ from its source's: the flag is put back where the data was. */
const verificationFailed = (d1: Record<string, TableDigest>, object: Record<string, TableDigest>) =>
  new DomainError("conflict", "The copy differs from its source; the organization's data stays where it was. Run the move again.", {
    facts: { d1, object },
  });

function sameDigests(
  a: Record<string, TableDigest>,
  b: Record<string, TableDigest>,
  tables: readonly (GroupTable | LenderTable | SettingsTable | WebhooksTable | BriefingsTable | PanelsTable | FeedsTable)[],
): boolean {
  return tables.every((t) => a[t]?.rows === b[t]?.rows && a[t]?.sha256 === b[t]?.sha256);
}

/** Starts a move from `from` through `via`, or resumes one a failure left at `via`; undefined: already at `to`. */
async function begin(env: Pick<Env, "DB">, orgId: string, from: OrgStoragePlace, via: OrgStoragePlace, to: OrgStoragePlace) {
  const db = getDb(env.DB);
  const place = await readOrgStorage(db, orgId);
  if (place === undefined) throw new DomainError("not_found", "No organization with that id.");
  if (place === to) return undefined;
  if (place !== via && !(await switchOrgStorage(db, orgId, from, via)))
    throw new DomainError("conflict", `The organization's storage is ${place}: a move from ${from} cannot start.`);
  return db;
}

type Store = ReturnType<typeof orgStore>;

/**
 * Where a step of the copy stands: the cursor it left (kept in D1 with the move), and `page`, which
 * a step that copies in pages calls after each: it keeps the cursor and answers whether to go on
 * (false once the request's time is up: the step stops there, and the move run again goes on).
 */
interface Resume {
  after: string | null;
  page(after: string): Promise<boolean>;
}

/**
 * The copy's steps, in order: each copies a group from D1 into the object (the first empties what
 * an earlier, cancelled or failed move left). A step that stops (its time is up, or a failure) is
 * run again from its cursor, or from its start if it keeps none. A group that moves adds its step.
 */
const COPY_STEPS: readonly (readonly [string, (db: Database, store: Store, orgId: string, resume: Resume) => Promise<void>])[] = [
  ["inventory", copyInventory],
  ["deals", copyDeals],
  ["compliance_checks", copyChecks],
  ["lender_decisions", copyLenderDecisions],
  ["settings", copySettings],
  ["webhooks", copyWebhooks],
  ["briefings", copyBriefings],
  ["lender_panels", copyLenderPanels],
  ["store_feeds", copyStoreFeeds],
];
const CATCH_UP = "catch_up";

/** Log entries per catch-up round (one D1 read of them, one object call). */
const ROUND = 500;
/** A round this small ends the catch-up: the write pause's last round is about as small. */
const SMALL_ROUND = 100;
/** Rounds after which the pause begins even if writes keep the rounds large (the last round then holds what one round let pile up). */
const MAX_ROUNDS = 20;
/** How long one request of a move works before answering with its progress (the operator command calls again). */
const MOVE_STEP_MS = 20_000;
/**
 * How long a request holds the move's lease from its last step: the production work budget, so a
 * request that is lost (its client gone, its isolate stopped) keeps another from the move no longer.
 */
const LEASE_MS = MOVE_STEP_MS;

/** The request no longer holds the move's lease: a cancel deleted the move, or the lease ended and another request took it. */
class LeaseLost extends Error {}

/** The request's hold on the move: the lease it holds now, renewed with each step it keeps. */
interface Lease {
  held: number;
  /** Keeps the step's progress and renews the lease; throws LeaseLost once the lease is not this request's. */
  save(progress?: Parameters<typeof saveMove>[4]): Promise<void>;
}

/**
 * D1 → the organization's object, in steps, while the organization's writes go on
 * (docs/scaling.md#how-an-organization-moves-d1--its-object):
 *
 * 1. The move starts: D1's triggers record every change of the organization's rows from now on.
 * 2. The copy, group by group, page by page, its progress kept in D1: a request stops after
 *    `budgetMs` and answers `done: false`; the move run again goes on where it stopped.
 * 3. The catch-up: the changed rows re-read from D1 and written into the object, in rounds, until
 *    a round is small.
 * 4. The pause: the flag goes to `moving` (D1's fence refuses the groups' writes, which wait), the
 *    last rounds empty the log, the digests of both sides are compared, the object is switched
 *    on, the flag goes to `object`. `write_pause_ms` is this last part only.
 */
export async function moveToObject(env: Pick<Env, "DB" | "ORG_STORE">, orgId: string, budgetMs = MOVE_STEP_MS): Promise<MoveReport> {
  const deadline = Date.now() + budgetMs;
  const db = getDb(env.DB);
  const store = orgStore(env, orgId);
  const place = await readOrgStorage(db, orgId);
  if (place === undefined) throw new DomainError("not_found", "No organization with that id.");
  if (place === "object") return inObject(db, store, orgId);
  if (place === "returning") throw new DomainError("conflict", "The organization's storage is returning: a move from d1 cannot start.");
  const existing = await readMove(db, orgId);
  // Left at `moving` by a move of the code before the catch-up (it copied during its pause): D1 serves again, and this move starts over.
  if (place === "moving" && existing === undefined) await switchOrgStorage(db, orgId, "moving", "d1");
  if (existing === undefined) await startMove(db, orgId, COPY_STEPS[0]?.[0] as string, new Date().toISOString());
  // One request at a time works the move; another called meanwhile answers where it stands.
  const now = Date.now();
  const move = await leaseMove(db, orgId, now, now + LEASE_MS);
  if (move === undefined) return standing(db, store, orgId);
  const lease: Lease = {
    held: move.workedUntil as number,
    async save(progress) {
      const until = Date.now() + LEASE_MS;
      if (!(await saveMove(db, orgId, this.held, until, progress))) throw new LeaseLost();
      this.held = until;
    },
  };
  try {
    return await work(db, store, orgId, move, lease, deadline);
  } catch (error) {
    if (error instanceof LeaseLost) return standing(db, store, orgId);
    throw error;
  } finally {
    // A release that fails leaves the lease to end by itself, within LEASE_MS.
    await releaseMove(db, orgId, lease.held).catch(() => undefined);
  }
}

/** A moved organization's answer: its object's digests (a move run again after its flip). */
async function inObject(db: Database, store: Store, orgId: string): Promise<MoveReport> {
  // A move whose flip was made but not its end (a failure between the two): its capture stops now.
  await endMove(db, orgId);
  const tables = {
    ...(await store.digest(orgId)),
    ...(await store.lenderDigest(orgId)),
    ...(await store.settingsDigest(orgId)),
    ...(await store.webhooksDigest(orgId)),
    ...(await store.briefingsDigest(orgId)),
    ...(await store.panelsDigest(orgId)),
    ...(await store.feedsDigest(orgId)),
  };
  return { org_id: orgId, storage: "object", done: true, tables, write_pause_ms: 0 };
}

/**
 * The answer of a request that does not hold the move: its progress while another request works on
 * it, the digests once that one has flipped, or 409 if a cancel ended it (cancel wins: a move it
 * ended is not started again by a request that was working on it).
 */
async function standing(db: Database, store: Store, orgId: string): Promise<MoveReport> {
  const move = await readMove(db, orgId);
  if (move !== undefined) return progress(orgId, move.step, move.rounds);
  if ((await readOrgStorage(db, orgId)) === "object") return inObject(db, store, orgId);
  throw new DomainError(
    "conflict",
    "The move was cancelled while it was under way: the organization's data stays in D1. Run the move again to start over.",
  );
}

/** The move's steps from where it stands, by the request holding its lease. */
async function work(db: Database, store: Store, orgId: string, leased: MoveRow, lease: Lease, deadline: number): Promise<MoveReport> {
  let move = leased;
  // The copy, from the step (and cursor) where the move stands.
  for (let i = COPY_STEPS.findIndex(([name]) => name === move?.step); i >= 0 && i < COPY_STEPS.length; i++) {
    const [name, copy] = COPY_STEPS[i] as (typeof COPY_STEPS)[number];
    let stopped = false;
    const resume: Resume = {
      after: move.step === name ? move.after : null,
      page: async (after) => {
        await lease.save({ step: name, after });
        stopped = Date.now() > deadline;
        return !stopped;
      },
    };
    await copy(db, store, orgId, resume);
    if (stopped) return progress(orgId, name, move.rounds);
    const next = COPY_STEPS[i + 1]?.[0] ?? CATCH_UP;
    await lease.save({ step: next, after: null });
    move = { ...move, step: next, after: null };
    if (Date.now() > deadline) return progress(orgId, next, move.rounds);
  }
  // The catch-up while writes go on, round after round, until a round is small; then the digests, while writes still go on.
  let rounds = move.rounds;
  let verified: Verified | undefined;
  if (move.pausedAt === null) {
    for (;;) {
      const round = await catchUpRound(db, store, orgId);
      await lease.save({ rounds: ++rounds });
      if (round < SMALL_ROUND || rounds >= MAX_ROUNDS) break;
      if (Date.now() > deadline) return progress(orgId, CATCH_UP, rounds);
    }
    verified = await verifyBeforePause(db, store, orgId);
    // The pause: from here D1's fence refuses the groups' writes, which wait for the flip.
    const pausedAt = new Date().toISOString();
    await lease.save({ pausedAt });
    // Only while this request holds the move: a cancel since has deleted it, and the writes never pause.
    if (!(await switchWithLease(db, orgId, lease.held, "d1", "moving"))) throw new LeaseLost();
    move = { ...move, pausedAt };
  }
  try {
    return await finishInPause(db, store, orgId, lease, Date.parse(move.pausedAt as string), rounds, verified);
  } catch (error) {
    // A failure in the pause gives the writes back to D1 (unless the flip was made, or the move is not this request's any more): the move, its log kept, pauses again when run again.
    if (!(error instanceof DomainError || error instanceof LeaseLost) && (await switchOrgStorage(db, orgId, "moving", "d1"))) {
      await store.setActive(orgId, false);
      await saveMove(db, orgId, lease.held, lease.held, { pausedAt: null });
    }
    throw error;
  }
}

/** Both sides' digests of every moved table (rows and SHA-256), and whether they agree. */
type Verified = Awaited<ReturnType<typeof digestsOfBothSides>>;

async function digestsOfBothSides(db: Database, store: Store, orgId: string) {
  const [inD1, inObject] = await Promise.all([groupDigest(db, orgId), store.digest(orgId)]);
  const groups = await verifyGroups(db, store, orgId);
  return {
    same:
      sameDigests(inD1, inObject, ["inventory_units", "unit_market_values", "stores", "deals", "deal_stips", "sales_monthly", "compliance_checks"]) &&
      groups.same,
    inD1: { ...inD1, ...groups.inD1 },
    inObject: { ...inObject, ...groups.inObject },
  };
}

/** Tries at the digests before the pause, each after a round, before they are left to the pause. */
const VERIFY_TRIES = 5;

/**
 * The digests of both sides compared while writes go on: they read the whole organization, so
 * outside the pause they keep its length from growing with the organization's size. A comparison
 * counts only if the log was empty when it began and still is when it ends: D1 stood still, and
 * the object changes only by the catch-up. A difference then drops the move (409). If writes never
 * leave the log empty for that long, the digests are left to the pause (undefined).
 */
async function verifyBeforePause(db: Database, store: Store, orgId: string): Promise<Verified | undefined> {
  for (let i = 0; i < VERIFY_TRIES; i++) {
    await catchUpRound(db, store, orgId);
    if ((await pendingChanges(db, orgId)) > 0) continue;
    const verified = await digestsOfBothSides(db, store, orgId);
    if ((await pendingChanges(db, orgId)) > 0) continue;
    if (!verified.same) {
      await endMove(db, orgId);
      throw verificationFailed(verified.inD1, verified.inObject);
    }
    return verified;
  }
  return undefined;
}

/**
 * The write pause: the last rounds (what the log holds, nothing added to it any more), the check,
 * the switch and the flip. Verified before the pause, the check is each table's row count on both
 * sides (what the last rounds changed; their rows were written as the verified rounds' were);
 * otherwise (a move resumed in its pause, or writes that never let the digests run) the digests.
 */
async function finishInPause(
  db: Database,
  store: Store,
  orgId: string,
  lease: Lease,
  pausedAt: number,
  rounds: number,
  verified: Verified | undefined,
): Promise<MoveReport> {
  let lastRound = 0;
  for (let round = await catchUpRound(db, store, orgId); round > 0; round = await catchUpRound(db, store, orgId)) {
    lastRound += round;
    await lease.save();
  }
  const checked =
    verified !== undefined && (lastRound === 0 || sameCounts(await rowCounts(db, orgId), await store.rowCounts(orgId, CAUGHT_UP_TABLE_NAMES)))
      ? verified
      : await digestsOfBothSides(db, store, orgId);
  if (!checked.same) {
    // The move is dropped, its log with it: run again, it starts over from an emptied object.
    await switchOrgStorage(db, orgId, "moving", "d1");
    await endMove(db, orgId);
    throw verificationFailed(checked.inD1, checked.inObject);
  }
  const { inD1 } = checked;
  await store.setActive(orgId, true);
  // The flip starts the undo window: D1's copy is purged ORG_STORAGE_UNDO_WINDOW_DAYS later (src/jobs/purge-moved-copies.ts).
  if (!(await switchWithLease(db, orgId, lease.held, "moving", "object", { storageMovedAt: new Date().toISOString() }))) {
    // A cancel in the pause put the flag back to d1: the object, switched on above, must not serve beside D1.
    if ((await readOrgStorage(db, orgId)) === "d1") await store.setActive(orgId, false);
    throw new LeaseLost();
  }
  await endMove(db, orgId);
  return {
    org_id: orgId,
    storage: "object",
    done: true,
    tables: inD1,
    write_pause_ms: Date.now() - pausedAt,
    catch_up: { rounds, last_round_changes: lastRound, verified_before_pause: checked === verified },
  };
}

const sameCounts = (a: Record<string, number>, b: Record<string, number>) => CAUGHT_UP_TABLE_NAMES.every((table) => a[table] === b[table]);

/** A move's answer before its flip: where it stands, for the operator command to run it again. */
const progress = (orgId: string, step: string, rounds: number): MoveReport => ({
  org_id: orgId,
  storage: "d1",
  done: false,
  step,
  tables: {},
  write_pause_ms: 0,
  catch_up: { rounds, last_round_changes: 0, verified_before_pause: false },
});

/** One round of the catch-up: the oldest changes of the log re-read from D1, written into the object, then forgotten. How many log entries. */
async function catchUpRound(db: Database, store: Store, orgId: string): Promise<number> {
  const round = await readChangeRound(db, orgId, ROUND);
  if (round.entries === 0) return 0;
  await store.catchUp(orgId, round.tables);
  await forgetChanges(db, orgId, round.through);
  return round.entries;
}

/**
 * Cancels a move that has not flipped (an abandoned or failed one): the flag back to `d1` if its
 * pause had begun, capture stopped and its log emptied. The object's partial copy stays off; a
 * later move empties it first.
 */
export async function cancelMove(env: Pick<Env, "DB">, orgId: string): Promise<{ org_id: string; storage: "d1"; cancelled: boolean }> {
  const db = getDb(env.DB);
  const place = await readOrgStorage(db, orgId);
  if (place === undefined) throw new DomainError("not_found", "No organization with that id.");
  if (place === "object" || place === "returning")
    throw new DomainError("conflict", `The organization's storage is ${place}: the move has flipped; undo it with storage/undo.`);
  const move = await readMove(db, orgId);
  // One batch, whatever a request working on the move is doing: it loses its lease with the row, so it neither pauses nor flips after this.
  await endMove(db, orgId, true);
  return { org_id: orgId, storage: "d1", cancelled: move !== undefined || place === "moving" };
}

/** The units with their market values, page by page from the cursor; the first page empties the object's groups (what an earlier move left). */
async function copyInventory(db: Database, store: Store, orgId: string, resume: Resume): Promise<void> {
  const names = await readStoreNames(db, orgId);
  for (let after = resume.after ?? undefined; ; ) {
    const units = await readUnitPage(db, orgId, after, PAGE);
    const last = units.length < PAGE ? undefined : units.at(-1)?.id;
    // The values of this page's units: those whose unit id falls in the page's range (the last page's is open-ended).
    await store.load(orgId, names, units, await readMarketValuePage(db, orgId, after, last), after === undefined);
    if (last === undefined || !(await resume.page(last))) return;
    after = last;
  }
}

/** The deals with their stips, page by page from the cursor (the inventory step emptied them), and D1's sales rollup with the last page. */
async function copyDeals(db: Database, store: Store, orgId: string, resume: Resume): Promise<void> {
  for (let after = resume.after ?? undefined; ; ) {
    const page = await readDealPage(db, orgId, after, PAGE);
    const last = page.deals.length < PAGE ? undefined : page.deals.at(-1)?.id;
    await store.loadDeals(orgId, page.deals, page.stips, last === undefined ? await readSalesMonths(db, orgId) : undefined);
    if (last === undefined || !(await resume.page(last))) return;
    after = last;
  }
}

/** The organization's object → D1, while D1's copy is kept: every unit, deal and stip written back by id (unchanged ones rewrite nothing). */
export async function moveToD1(env: Pick<Env, "DB" | "ORG_STORE">, orgId: string): Promise<MoveReport> {
  const started = Date.now();
  const store = orgStore(env, orgId);
  await refuseUndoAfterPurge(getDb(env.DB), orgId);
  const move = await readMove(getDb(env.DB), orgId);
  if (move !== undefined)
    throw new DomainError("conflict", `A move into the object is under way (at ${move.step}): run it again to finish it, or cancel it.`, {
      facts: { step: move.step },
    });
  // The object stops serving first, so no request writes to it once the copy back has begun.
  const place = await readOrgStorage(getDb(env.DB), orgId);
  if (place === "object" || place === "returning") {
    await store.setActive(orgId, false);
    // Its outbox is not copied: the events no request relayed go to D1 now, before the flip (a D1 failure stops the undo here, to run again).
    await store.relayOutbox(orgId);
  }
  const db = await begin(env, orgId, "object", "returning", "d1");
  if (!db) {
    const inD1 = getDb(env.DB);
    // An undo run again after its flip: the object's storage may still be there.
    await store.deleteAfterUndo(orgId);
    const tables = {
      ...(await groupDigest(inD1, orgId)),
      ...(await lenderDigest(inD1, orgId)),
      ...(await settingsDigest(inD1, orgId)),
      ...(await webhooksDigest(inD1, orgId)),
      ...(await briefingsDigest(inD1, orgId)),
      ...(await panelsDigest(inD1, orgId)),
      ...(await feedsDigest(inD1, orgId)),
    };
    return { org_id: orgId, storage: "d1", done: true, tables, write_pause_ms: 0 };
  }
  await stayUnlessD1CopyKept(db, store, orgId);
  let after: string | undefined;
  for (;;) {
    const units = await store.unitPage(orgId, after, PAGE);
    const writes = restoreUnits(db, units);
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
    if (units.length < PAGE) break;
    after = units.at(-1)?.id;
  }
  // The deals and stips by id; D1's triggers rebuild the months of the deals that changed.
  for (let afterDeal: string | undefined; ; ) {
    const page = await store.dealPage(orgId, afterDeal, PAGE);
    const writes = restoreDeals(db, page);
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
    if (page.deals.length < PAGE) break;
    afterDeal = page.deals.at(-1)?.id;
  }
  await restoreChecksFrom(store, db, orgId);
  await returnLenderDecisions(db, store, orgId);
  await returnSettings(db, store, orgId);
  await returnWebhooks(db, store, orgId);
  await returnBriefings(db, store, orgId);
  await returnLenderPanels(db, store, orgId);
  await returnStoreFeeds(db, store, orgId);
  const [inD1, inObject] = await Promise.all([groupDigest(db, orgId), store.digest(orgId)]);
  const groups = await verifyGroups(db, store, orgId);
  // The stores' names are the directory's own in D1, and nothing writes market values in the object: the units and the deals group came back.
  if (!sameDigests(inD1, inObject, ["inventory_units", "deals", "deal_stips", "sales_monthly", "compliance_checks"]) || !groups.same) {
    await store.setActive(orgId, true);
    await switchOrgStorage(db, orgId, "returning", "object");
    throw verificationFailed({ ...inD1, ...groups.inD1 }, { ...inObject, ...groups.inObject });
  }
  await switchOrgStorage(db, orgId, "returning", "d1", { storageMovedAt: null });
  // The object's copy is left behind now: deleted, so nothing stale waits there for a later move.
  await store.deleteAfterUndo(orgId);
  return {
    org_id: orgId,
    storage: "d1",
    done: true,
    tables: { ...inD1, ...groups.inD1 },
    write_pause_ms: Date.now() - started,
  };
}

/** The groups that verify their own tables (rows and SHA-256 per table on both sides): whether all agree, and every digest. */
async function verifyGroups(db: Database, store: Store, orgId: string) {
  const groups = [
    await verifyLenderDecisions(db, store, orgId),
    await verifySettings(db, store, orgId),
    await verifyWebhooks(db, store, orgId),
    await verifyBriefings(db, store, orgId),
    await verifyLenderPanels(db, store, orgId),
    await verifyStoreFeeds(db, store, orgId),
  ];
  return {
    same: groups.every((group) => group.same),
    inD1: Object.assign({}, ...groups.map((group) => group.inD1)) as Record<string, TableDigest>,
    inObject: Object.assign({}, ...groups.map((group) => group.inObject)) as Record<string, TableDigest>,
  };
}

// --- the move's life cycle: an undo only while D1's copy is kept ----------------------------------

const copyPurged = (purgedAt: string) =>
  new DomainError(
    "conflict",
    `The D1 copy was purged on ${purgedAt.slice(0, 10)} (${purgedAt}), after the move's undo window: the organization's data is only in its object, and the move cannot be undone.`,
    { facts: { d1_copy_purged_at: purgedAt } },
  );

/** An undo is refused once the purge after the undo window has begun (src/jobs/purge-moved-copies.ts): D1's copy is gone or going. */
async function refuseUndoAfterPurge(db: Database, orgId: string): Promise<void> {
  const purgedAt = await readD1CopyPurgedAt(db, orgId);
  if (purgedAt !== null) throw copyPurged(purgedAt);
}

/**
 * The same, once the undo holds the flag (`returning`): a purge that claimed the copy between the
 * first check and the flip (it claims only while the flag says `object`) sends the organization
 * back to its object, which serves again.
 */
async function stayUnlessD1CopyKept(db: Database, store: Store, orgId: string): Promise<void> {
  const purgedAt = await readD1CopyPurgedAt(db, orgId);
  if (purgedAt === null) return;
  await store.setActive(orgId, true);
  await switchOrgStorage(db, orgId, "returning", "object");
  throw copyPurged(purgedAt);
}

// --- the lender decisions group (lender_decisions, lender_outcome_episodes) ----------------------

/** D1's decisions into the object in pages by id, the episodes with the last page; the first page empties what a failed move left. */
async function copyLenderDecisions(db: Database, store: Store, orgId: string): Promise<void> {
  for (let after: string | undefined, first = true; ; first = false) {
    const decisions = await readDecisionPage(db, orgId, after, PAGE);
    const last = decisions.length < PAGE;
    await store.loadLenderDecisions(orgId, decisions, last ? await readEpisodes(db, orgId) : undefined, first);
    if (last) break;
    after = decisions.at(-1)?.id;
  }
}

/** The object's decisions and episodes written back to D1 by id (an undo): the ones unchanged since the move rewrite nothing. */
async function returnLenderDecisions(db: Database, store: Store, orgId: string): Promise<void> {
  for (let after: string | undefined; ; ) {
    // An episode's figures are JSON (`Record<string, unknown>`), which RPC's types cannot prove serializable: they are.
    const page = (await store.decisionPage(orgId, after, PAGE)) as { decisions: StoredDecision[]; episodes?: StoredEpisode[] };
    const writes = restoreLenderDecisions(db, page);
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
    if (page.episodes !== undefined) break;
    after = page.decisions.at(-1)?.id;
  }
}

/** Both sides' digests of the group (rows and SHA-256 per table, as `groupDigest`), and whether they agree. */
async function verifyLenderDecisions(db: Database, store: Store, orgId: string) {
  const [inD1, inObject] = await Promise.all([lenderDigest(db, orgId), store.lenderDigest(orgId)]);
  return { inD1, inObject, same: sameDigests(inD1, inObject, ["lender_decisions", "lender_outcome_episodes"]) };
}

// --- the compliance checks group ------------------------------------------------------------------

/** D1's checks into the object by id, page by page; the first page empties what an earlier, failed move left. */
async function copyChecks(db: Database, store: Store, orgId: string): Promise<void> {
  for (let after: string | undefined, first = true; ; first = false) {
    const checks = await readCheckPage(db, orgId, after, PAGE);
    await store.loadChecks(orgId, checks, first);
    if (checks.length < PAGE) return;
    after = checks.at(-1)?.id;
  }
}

/** The object's checks back into D1 by id, page by page, with D1's checks the object's retention deleted since the move deleted too. */
async function restoreChecksFrom(store: Store, db: Database, orgId: string): Promise<void> {
  for (let after: string | undefined; ; ) {
    const checks = await store.checkPage(orgId, after, PAGE);
    const last = checks.length < PAGE ? undefined : checks.at(-1)?.id;
    const [gone, ...writes] = restoreChecks(db, orgId, checks, after, last);
    await db.batch([gone, ...writes]);
    if (last === undefined) return;
    after = last;
  }
}

// --- the settings group (the settings columns of `stores`, settings_audit) -----------------------

/** D1's stores' settings into the object with the first page, then the audit rows in pages by id (the first page empties what a failed move left). */
async function copySettings(db: Database, store: Store, orgId: string): Promise<void> {
  const settings = await listStoreSettings(db, orgId);
  for (let after: string | undefined, first = true; ; first = false) {
    const audit = await readAuditPage(db, orgId, after, PAGE);
    await store.loadSettings(orgId, first ? settings : undefined, audit);
    if (audit.length < PAGE) return;
    after = audit.at(-1)?.id;
  }
}

/** The object's settings written back into D1's directory rows and its audit rows by id (an undo): those D1 kept from the move rewrite nothing. */
async function returnSettings(db: Database, store: Store, orgId: string): Promise<void> {
  for (let after: string | undefined; ; ) {
    const page = await store.settingsPage(orgId, after, PAGE);
    const writes = restoreSettings(db, orgId, page.settings, page.audit);
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
    if (page.audit.length < PAGE) return;
    after = page.audit.at(-1)?.id;
  }
}

/** Both sides' digests of the settings group, and whether they agree. */
async function verifySettings(db: Database, store: Store, orgId: string) {
  const [inD1, inObject] = await Promise.all([settingsDigest(db, orgId), store.settingsDigest(orgId)]);
  return { inD1, inObject, same: sameDigests(inD1, inObject, ["store_settings", "settings_audit"]) };
}

// --- the webhooks group (webhook_endpoints, webhook_deliveries, webhook_attempts) ----------------

// An event's data and an endpoint's event list are JSON, which RPC's types cannot prove serializable: they are.
type WebhookPageWithEndpoints = WebhookPage & { endpoints?: StoredEndpoint[] };

/** D1's endpoints, then its deliveries in pages by id with their attempts and events; the first page empties what a failed move left. */
async function copyWebhooks(db: Database, store: Store, orgId: string): Promise<void> {
  const endpoints = await readEndpoints(db, orgId);
  for (let after: string | undefined, first = true; ; first = false) {
    const page = await readDeliveryPage(db, orgId, after, PAGE);
    await store.loadWebhooks(orgId, page, first ? endpoints : undefined);
    if (page.deliveries.length < PAGE) return;
    after = page.deliveries.at(-1)?.id;
  }
}

/** The object's endpoints (D1's others deleted), then its deliveries, events and attempts, written back to D1 by id (an undo). */
async function returnWebhooks(db: Database, store: Store, orgId: string): Promise<void> {
  for (let after: string | undefined; ; ) {
    const page = (await store.webhookPage(orgId, after, PAGE)) as WebhookPageWithEndpoints;
    const writes = [...(page.endpoints === undefined ? [] : restoreEndpoints(db, orgId, page.endpoints)), ...restoreDeliveries(db, page)];
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
    if (page.deliveries.length < PAGE) return;
    after = page.deliveries.at(-1)?.id;
  }
}

/** Both sides' digests of the group (rows and SHA-256 per table), and whether they agree. */
async function verifyWebhooks(db: Database, store: Store, orgId: string) {
  const [inD1, inObject]: Record<WebhooksTable, TableDigest>[] = await Promise.all([webhooksDigest(db, orgId), store.webhooksDigest(orgId)]);
  return { inD1, inObject, same: sameDigests(inD1, inObject, ["webhook_endpoints", "webhook_deliveries", "webhook_attempts"]) };
}

// --- the briefings group (morning_briefings, aged_inventory_alerts) -------------------------------

/** Briefings per RPC call or D1 batch: each carries its whole body, a few KB. */
const BRIEFING_PAGE = 100;

/** D1's briefings, then its aged-alert markers, into the object by key, page by page; the first page empties what a failed move left. */
async function copyBriefings(db: Database, store: Store, orgId: string): Promise<void> {
  let first = true;
  for (let after: BriefingKey | undefined; ; first = false) {
    const briefings = await readBriefingPage(db, orgId, after, BRIEFING_PAGE);
    await store.loadBriefings(orgId, briefings, [], first);
    if (briefings.length < BRIEFING_PAGE) break;
    after = briefings.at(-1);
  }
  for (let after: AgedAlertKey | undefined; ; ) {
    const markers = await readAgedAlertMarkerPage(db, orgId, after, PAGE);
    await store.loadBriefings(orgId, [], markers, false);
    if (markers.length < PAGE) return;
    after = markers.at(-1);
  }
}

/**
 * The object's briefings and markers written back to D1 (an undo): D1's copy emptied, then each page
 * inserted, so what the object's retention deleted since the move is gone from D1 too.
 */
async function returnBriefings(db: Database, store: Store, orgId: string): Promise<void> {
  await db.batch(forgetBriefings(db, orgId) as [ReturnType<typeof forgetBriefings>[number]]);
  for (let after: BriefingKey | undefined; ; ) {
    // A briefing's body is JSON (`unknown`), which RPC's types cannot prove serializable: it is.
    const briefings = (await store.briefingPage(orgId, after, BRIEFING_PAGE)) as StoredBriefing[];
    await writeAll(db, restoreBriefings(db, { briefings, markers: [] }));
    if (briefings.length < BRIEFING_PAGE) break;
    after = briefings.at(-1);
  }
  for (let after: AgedAlertKey | undefined; ; ) {
    const markers = await store.agedAlertMarkerPage(orgId, after, PAGE);
    await writeAll(db, restoreBriefings(db, { briefings: [], markers }));
    if (markers.length < PAGE) return;
    after = markers.at(-1);
  }
}

async function writeAll(db: Database, writes: ReturnType<typeof restoreBriefings>): Promise<void> {
  if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
}

/** Both sides' digests of the group (rows and SHA-256 per table, as `groupDigest`), and whether they agree. */
async function verifyBriefings(db: Database, store: Store, orgId: string) {
  const [inD1, inObject] = await Promise.all([briefingsDigest(db, orgId), store.briefingsDigest(orgId)]);
  return { inD1, inObject, same: sameDigests(inD1, inObject, ["morning_briefings", "aged_inventory_alerts"]) };
}

// --- the settings group's lender panels and screening thresholds (store_lender_panel, compliance_settings) --

/** D1's panels and the organization's own thresholds into the object, whole (a few dozen rows a store): one call. */
async function copyLenderPanels(db: Database, store: Store, orgId: string): Promise<void> {
  const { panels, thresholds } = await readLenderPanels(db, orgId);
  await store.loadLenderPanels(orgId, panels, thresholds);
}

/** The object's panels and thresholds written back to D1 (an undo): D1's copy replaced by them in one batch. */
async function returnLenderPanels(db: Database, store: Store, orgId: string): Promise<void> {
  const page = (await store.lenderPanelsPage(orgId)) as { panels: StoredPanelRow[]; thresholds: StoredThresholds | null };
  const [forget, ...writes] = restoreLenderPanels(db, orgId, page);
  await db.batch([forget, ...writes]);
}

/** Both sides' digests of the panels and thresholds, and whether they agree. */
async function verifyLenderPanels(db: Database, store: Store, orgId: string) {
  const [inD1, inObject]: Record<PanelsTable, TableDigest>[] = await Promise.all([panelsDigest(db, orgId), store.panelsDigest(orgId)]);
  return { inD1, inObject, same: sameDigests(inD1, inObject, ["store_lender_panel", "compliance_settings"]) };
}

// --- the store feeds group (store_feeds) ----------------------------------------------------------

/**
 * D1's feeds into the object, in one call (a few rows a store), in place of any a failed move left.
 * A delivery or a stale episode D1 records after it is in D1's change log, which the catch-up
 * applies; D1's stale check skips a paused (`moving`) organization: none lost, none applied twice.
 */
async function copyStoreFeeds(db: Database, store: Store, orgId: string): Promise<void> {
  await store.loadStoreFeeds(orgId, await readStoreFeeds(db, orgId));
}

/** The object's feeds written back to D1 in place of D1's (an undo): its deliveries and episodes since the move are the truth. */
async function returnStoreFeeds(db: Database, store: Store, orgId: string): Promise<void> {
  const [gone, ...writes] = restoreStoreFeeds(db, orgId, await store.storeFeedsPage(orgId));
  await db.batch([gone, ...writes]);
}

/** Both sides' digests of the group (rows and SHA-256), and whether they agree. */
async function verifyStoreFeeds(db: Database, store: Store, orgId: string) {
  const [inD1, inObject]: Record<FeedsTable, TableDigest>[] = await Promise.all([feedsDigest(db, orgId), store.feedsDigest(orgId)]);
  return { inD1, inObject, same: sameDigests(inD1, inObject, ["store_feeds"]) };
}
