import { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { GUARDED_WRITE_ATTEMPTS } from "../../db/guarded";
import type { LenderPanelChanged, StoreSettingsChanged, ThresholdsChanged } from "../../db/org-store";
import { readOrgStorage, unlessStorageInD1 } from "../../db/queries/org-storage";
import * as queries from "../../db/queries/settings";
import type { NOT_SERVING } from "../../durable-objects/org-storage";
import { onOrgStorage, orgStore } from "../../durable-objects/org-storage-routing";
import { compareText } from "../../engines/deal-math";
import type { OrgManager } from "../../http/app-env";
import { cursorText, invalidCursor, readCursor } from "../../http/cursor";
import { MAX_VALIDATION_DETAILS } from "../../http/errors";
import { entityTag, ifMatchAllows, preconditionFailed } from "../../http/etag";
import { STORE_SETTING_FIELDS, type StoreSettingField, storeSettingsOf } from "../../http/store-setting-fields";
import { DomainError } from "../../lib/domain-error";
import { settingsChanged } from "../../lib/settings-changes";
import type { ComplianceSettingsPatchSchema, LenderPanelPutSchema, StoreSettingsPatchSchema } from "./settings.routes";

/**
 * Store settings, lender panels and screening thresholds, read and changed with an audit row per
 * field changed in the same D1 batch (docs/settings.md). `actor` is who asked: `staff:<id>` and
 * `broker:<id>` from these routes, `operator:<id>` from an operator's. A moved organization's
 * settings of all three and their audit rows are its object's (docs/scaling.md#the-settings-group-and-where-it-is-read-issue-39): read and
 * changed there in one call, the change and its audit rows in one transaction.
 */

type StorageEnv = Pick<Env, "DB" | "ORG_STORE">;
type Store = ReturnType<typeof orgStore>;
/** The organization a manager acts for, and where its data is (read with the credential). */
type OrgAt = Pick<OrgManager, "orgId" | "storage">;

/**
 * Runs a settings request where the organization's store settings are. A flag that came with the
 * credential (`OrgAt`) saying the data has left D1 is used as it is: one that is stale (an undo) is
 * caught by the object's NOT_SERVING, and `onOrgStorage` reads it again at the primary. One saying
 * `d1` may be a broker token's, cached from before a move, and a staff screen reads its own writes
 * (docs/consistency.md), so it is read again here: a read asks D1 beside the flag, so an
 * organization in D1 waits for one round trip, not two, and a moved organization's D1 answer is dropped.
 */
async function whereSettings<T>(
  env: StorageEnv,
  db: Database,
  { orgId, storage: carried }: OrgAt,
  kind: "read" | "write",
  inD1: () => Promise<T>,
  inObject: (store: Store) => Promise<T | typeof NOT_SERVING>,
): Promise<T> {
  const run = { inD1, inObject: () => inObject(orgStore(env, orgId)) };
  if (carried !== "d1") return onOrgStorage(env, orgId, carried, kind, run);
  const early =
    kind === "read"
      ? inD1().then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        )
      : undefined;
  const storage = (await readOrgStorage(db, orgId)) ?? "d1";
  if (early !== undefined && storage === "d1") {
    const answer = await early;
    if ("error" in answer) throw answer.error;
    return answer.value;
  }
  return onOrgStorage(env, orgId, storage, kind, run);
}

const storeNotFound = () => new DomainError("not_found", "This organization has no store with that id.");

const STORE_FIELD_NAMES = Object.keys(STORE_SETTING_FIELDS) as StoreSettingField[];

function toStoreFields(row: queries.StoreSettingsRow) {
  return {
    store_id: row.id,
    name: row.name,
    ...storeSettingsOf(row),
  };
}

export async function listStores(env: StorageEnv, db: Database, org: OrgAt) {
  const { orgId } = org;
  const rows = await whereSettings(
    env,
    db,
    org,
    "read",
    () => queries.listStoreSettings(db, orgId),
    (store) => store.storeSettingsList(orgId) as Promise<queries.StoreSettingsRow[] | typeof NOT_SERVING>,
  );
  const stores = rows.map(toStoreFields);
  return { count: stores.length, stores };
}

const tooBusy = () => new DomainError("conflict", "These settings kept changing under this request; send it again.");

/**
 * Runs `attempt` (read, compute, conditional write) until its write lands: each write is checked
 * against what that attempt read, so its audit rows hold exactly the values replaced. With an
 * `If-Match` the client has named the version it saw, so a lost race is its 412, not a retry.
 */
async function untilWritten<T>(
  orgId: string,
  attempt: () => Promise<{ written: true; value: T } | { written: false }>,
  ifMatch: string | undefined,
  what: string,
) {
  for (let i = 0; i < GUARDED_WRITE_ATTEMPTS; i++) {
    const result = await attempt();
    if (result.written) {
      settingsChanged(orgId);
      return result.value;
    }
    if (ifMatch !== undefined) throw preconditionFailed(what);
  }
  throw tooBusy();
}

/** The store's fields and their entity tag (`ETag`, for `If-Match` on a PATCH). */
export async function getStoreWithTag(env: StorageEnv, db: Database, org: OrgAt, storeId: string) {
  const { orgId } = org;
  const row = await whereSettings(
    env,
    db,
    org,
    "read",
    () => queries.findStoreSettings(db, orgId, storeId),
    (store) => store.storeSettings(orgId, storeId) as Promise<queries.StoreSettingsRow | null | typeof NOT_SERVING>,
  );
  if (!row) throw storeNotFound();
  const body = toStoreFields(row);
  return { body, etag: await entityTag(body) };
}

const STORE_SETTINGS = "The store's settings";

/**
 * Applies the fields that change, each audited; a patch that changes nothing writes nothing.
 * Without `ifMatch` the last writer wins, and each audit row holds the value its change replaced.
 * In D1: read, then a guarded write, retried (untilWritten). In the organization's object: one call
 * reads, plans and writes in one transaction; with `ifMatch`, a read to check the tag first, then
 * the write only if the settings are still those read (else 412, as in D1).
 */
export async function updateStoreSettings(
  env: StorageEnv,
  db: Database,
  org: OrgAt,
  storeId: string,
  patch: z.infer<typeof StoreSettingsPatchSchema>,
  actor: string,
  now: Date,
  ifMatch?: string,
) {
  const { orgId } = org;
  const fields = STORE_FIELD_NAMES.flatMap((name): queries.SettingChange[] => {
    const value = patch[name];
    return value === undefined ? [] : [{ field: name, column: STORE_SETTING_FIELDS[name].column, value }];
  });
  const changedAt = now.toISOString();
  const checkTag = async (before: queries.StoreSettingsRow) => {
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, await entityTag(toStoreFields(before)))) throw preconditionFailed(STORE_SETTINGS);
  };
  const inD1 = () =>
    untilWritten(
      orgId,
      async () => {
        const before = await queries.findStoreSettings(db, orgId, storeId);
        if (!before) throw storeNotFound();
        await checkTag(before);
        const { changes, entries } = queries.planStoreSettingsChange(before, fields, actor, changedAt);
        const value = toStoreFields({ ...before, ...changes });
        if (entries.length === 0) return { written: true, value };
        const written = await queries.updateStoreSettings(db, orgId, storeId, before, changes, entries, unlessStorageInD1(db, orgId));
        return written ? { written: true, value } : { written: false };
      },
      ifMatch,
      STORE_SETTINGS,
    );
  const inObject = async (store: Store): Promise<ReturnType<typeof toStoreFields> | typeof NOT_SERVING> => {
    let expected: queries.StoreSettingsRow | undefined;
    if (ifMatch !== undefined) {
      const current = (await store.storeSettings(orgId, storeId)) as queries.StoreSettingsRow | null | typeof NOT_SERVING;
      if (current !== null && "notServing" in current) return current;
      if (!current) throw storeNotFound();
      await checkTag(current);
      expected = current;
    }
    const changed = (await store.changeStoreSettings(orgId, storeId, fields, actor, changedAt, expected)) as
      | StoreSettingsChanged
      | typeof NOT_SERVING;
    if (changed === null) throw storeNotFound();
    if ("notServing" in changed) return changed;
    // Only with `expected`: another change came between the read and this write, which the client's tag did not name.
    if (!changed.written) throw preconditionFailed(STORE_SETTINGS);
    if (Object.keys(changed.changes).length > 0) settingsChanged(orgId);
    return toStoreFields({ ...changed.before, ...changed.changes });
  };
  const body = await whereSettings(env, db, org, "write", inD1, inObject);
  return { body, etag: await entityTag(body) };
}

async function assertOwnStore(db: Database, orgId: string, storeId: string) {
  if (!(await queries.findStoreSettings(db, orgId, storeId))) throw storeNotFound();
}

const toPanel = (storeId: string, programs: { id: string; name: string; type: string }[]) => ({
  store_id: storeId,
  count: programs.length,
  programs,
});

/** The store's panel, by name: in D1 joined to the matrix; in a moved organization's object its ids, named from D1's matrix (global reference data). */
export async function getLenderPanel(env: StorageEnv, db: Database, org: OrgAt, storeId: string) {
  const { orgId } = org;
  const programs = await whereSettings(
    env,
    db,
    org,
    "read",
    async () => {
      await assertOwnStore(db, orgId, storeId);
      return queries.listLenderPanel(db, orgId, storeId);
    },
    async (store) => {
      const ids = (await store.lenderPanel(orgId, storeId)) as string[] | null | typeof NOT_SERVING;
      if (ids === null) throw storeNotFound();
      if ("notServing" in ids) return ids;
      const byId = new Map((await queries.listLenderProgramNames(db)).map((p) => [p.id, p]));
      return ids.flatMap((id) => byId.get(id) ?? []).sort((a, b) => compareText(a.name, b.name));
    },
  );
  return toPanel(storeId, programs);
}

/** Every entry resolved to a program (by id, else by name in any case); the unknown ones are one 422 naming each. */
function resolvePrograms(entries: readonly string[], programs: Awaited<ReturnType<typeof queries.listLenderProgramNames>>) {
  const byId = new Map(programs.map((p) => [p.id, p]));
  const byName = new Map(programs.map((p) => [p.name.toLowerCase(), p]));
  const unknown: { index: number; entry: string }[] = [];
  const found = new Map<string, (typeof programs)[number]>();
  entries.forEach((entry, index) => {
    const program = byId.get(entry) ?? byName.get(entry.toLowerCase());
    if (program) found.set(program.id, program);
    else unknown.push({ index, entry });
  });
  if (unknown.length > 0) {
    throw new DomainError("invalid", `Not in the lender matrix: ${unknown.map((u) => `"${u.entry}"`).join(", ")}.`, {
      problems: unknown.slice(0, MAX_VALIDATION_DETAILS).map((u) => ({
        path: `programs.${u.index}`,
        code: "unknown_lender_program",
        message: `"${u.entry}" is not a program id or name of the lender matrix.`,
      })),
    });
  }
  return [...found.values()];
}

/**
 * The panel becomes exactly `input.programs`, with one audit row (the sorted ids before and after)
 * when it differs: in D1 a guarded write, retried; in a moved organization's object one call that
 * reads, plans and writes in one transaction.
 */
export async function replaceLenderPanel(
  env: StorageEnv,
  db: Database,
  org: OrgAt,
  storeId: string,
  input: z.infer<typeof LenderPanelPutSchema>,
  actor: string,
  now: Date,
) {
  const { orgId } = org;
  const programs = await queries.listLenderProgramNames(db);
  const next = resolvePrograms(input.programs, programs).sort((a, b) => compareText(a.name, b.name));
  const afterIds = next.map((p) => p.id).sort();
  const value = toPanel(storeId, next);
  const changedAt = now.toISOString();
  const inD1 = async () => {
    await assertOwnStore(db, orgId, storeId);
    return untilWritten(
      orgId,
      async () => {
        const beforeIds = (await queries.listLenderPanel(db, orgId, storeId)).map((p) => p.id).sort();
        const entry = queries.planLenderPanelChange(storeId, beforeIds, afterIds, actor, changedAt);
        if (entry === null) return { written: true, value };
        const written = await queries.replaceLenderPanel(db, orgId, storeId, beforeIds, afterIds, [entry], unlessStorageInD1(db, orgId));
        return written ? { written: true, value } : { written: false };
      },
      undefined,
      "The lender panel",
    );
  };
  const inObject = async (store: Store): Promise<typeof value | typeof NOT_SERVING> => {
    const changed = (await store.changeLenderPanel(orgId, storeId, afterIds, actor, changedAt)) as LenderPanelChanged | typeof NOT_SERVING;
    if (changed === null) throw storeNotFound();
    if ("notServing" in changed) return changed;
    if (changed.changed) settingsChanged(orgId);
    return value;
  };
  return whereSettings(env, db, org, "write", inD1, inObject);
}

const COMPLIANCE_FIELDS = {
  hold_score: "holdScore",
  flag_score: "flagScore",
  max_list_age_days: "maxListAgeDays",
  minimum_age: "minimumAge",
  maximum_age: "maximumAge",
} as const satisfies Record<string, keyof queries.ComplianceSettingsValues>;
type ComplianceField = keyof typeof COMPLIANCE_FIELDS;
const COMPLIANCE_FIELD_NAMES = Object.keys(COMPLIANCE_FIELDS) as ComplianceField[];

const toComplianceFields = (values: queries.ComplianceSettingsValues) =>
  Object.fromEntries(COMPLIANCE_FIELD_NAMES.map((name) => [name, values[COMPLIANCE_FIELDS[name]]])) as Record<ComplianceField, number>;

/** The defaults ('*', D1's reference) and the organization's own row: D1's, or `own` as its object holds it. */
async function loadCompliance(db: Database, orgId: string, own?: queries.ComplianceSettingsRow | null) {
  const rows = await queries.loadComplianceSettingRows(db, orgId);
  if (!rows.defaults) throw new Error("compliance_settings has no default row ('*'); apply the migrations");
  const ownRow = own === undefined ? rows.own : own;
  return { own: ownRow, defaults: rows.defaults, effective: ownRow ?? rows.defaults };
}

function complianceBody(
  loaded: { own: queries.ComplianceSettingsValues | null; defaults: queries.ComplianceSettingsValues; effective: queries.ComplianceSettingsValues },
  updatedAt: string | null,
) {
  return {
    ...toComplianceFields(loaded.effective),
    is_default: loaded.own === null,
    defaults: toComplianceFields(loaded.defaults),
    updated_at: updatedAt,
  };
}

/** The thresholds in force: a moved organization's own row is its object's (one call), the defaults D1's. */
export async function getComplianceSettings(env: StorageEnv, db: Database, org: OrgAt) {
  const { orgId } = org;
  const loaded = await whereSettings(
    env,
    db,
    org,
    "read",
    () => loadCompliance(db, orgId),
    async (store) => {
      const own = (await store.complianceThresholds(orgId)) as queries.ComplianceSettingsRow | null | typeof NOT_SERVING;
      return own !== null && "notServing" in own ? own : loadCompliance(db, orgId, own);
    },
  );
  return complianceBody(loaded, loaded.own?.updatedAt ?? null);
}

const holdBelowFlag = (next: queries.ComplianceSettingsValues) =>
  new DomainError("invalid", "hold_score must be at least flag_score.", {
    problems: [{ path: "hold_score", code: "hold_below_flag", message: `hold_score ${next.holdScore} is below flag_score ${next.flagScore}.` }],
  });

/**
 * The organization's row is created from the values in force on its first change; hold must stay
 * at or above flag. In D1: read, then a guarded write, retried; in a moved organization's object,
 * one call reads, plans and writes in one transaction (the defaults, D1's, sent with it).
 */
export async function updateComplianceSettings(
  env: StorageEnv,
  db: Database,
  org: OrgAt,
  patch: z.infer<typeof ComplianceSettingsPatchSchema>,
  actor: string,
  now: Date,
) {
  const { orgId } = org;
  const fields = COMPLIANCE_FIELD_NAMES.flatMap((name): queries.ComplianceChange[] => {
    const value = patch[name];
    return value === undefined ? [] : [{ field: name, column: COMPLIANCE_FIELDS[name], value }];
  });
  const changedAt = now.toISOString();
  const inD1 = () =>
    untilWritten(
      orgId,
      async () => {
        const loaded = await loadCompliance(db, orgId);
        const { next, entries, holdBelowFlag: refused } = queries.planComplianceChange(loaded.effective, fields, actor, changedAt);
        if (refused) throw holdBelowFlag(next);
        if (entries.length === 0) return { written: true, value: complianceBody(loaded, loaded.own?.updatedAt ?? null) };
        const before = loaded.own && queries.complianceValuesOf(loaded.own);
        if (!(await queries.saveComplianceSettings(db, orgId, before, next, changedAt, entries, unlessStorageInD1(db, orgId))))
          return { written: false };
        return { written: true, value: complianceBody({ own: next, defaults: loaded.defaults, effective: next }, changedAt) };
      },
      undefined,
      "The screening thresholds",
    );
  const inObject = async (store: Store): Promise<ReturnType<typeof complianceBody> | typeof NOT_SERVING> => {
    const { defaults } = await loadCompliance(db, orgId, null);
    const changed = (await store.changeComplianceThresholds(orgId, queries.complianceValuesOf(defaults), fields, actor, changedAt)) as
      | ThresholdsChanged
      | typeof NOT_SERVING;
    if ("notServing" in changed) return changed;
    if (changed.holdBelowFlag) throw holdBelowFlag(changed.next);
    if (!changed.written) return complianceBody({ own: changed.own, defaults, effective: changed.own ?? defaults }, changed.own?.updatedAt ?? null);
    settingsChanged(orgId);
    return complianceBody({ own: changed.next, defaults, effective: changed.next }, changedAt);
  };
  return whereSettings(env, db, org, "write", inD1, inObject);
}

/** Opaque to clients: base64url JSON of the list, the organization and the last entry served. */
const AuditCursorSchema = z.object({ list: z.literal("settings-audit"), org: z.string(), changed_at: z.string(), id: z.string() });

function decodeAuditCursor(text: string, orgId: string): queries.AuditCursor {
  const cursor = readCursor(text, AuditCursorSchema);
  if (cursor.org !== orgId) throw invalidCursor("cursor_mismatch", "This cursor belongs to another organization's log.");
  return { changedAt: cursor.changed_at, id: cursor.id };
}

const encodeAuditCursor = (orgId: string, row: queries.SettingsAuditRow) =>
  cursorText({ list: "settings-audit", org: orgId, changed_at: row.changedAt, id: row.id });

/** The log's page, where the organization's settings are: D1, or a moved organization's object (every area's rows, one call). */
export async function listAudit(env: StorageEnv, db: Database, org: OrgAt, page: { limit: number; cursor?: string }) {
  const { orgId } = org;
  const after = page.cursor === undefined ? undefined : decodeAuditCursor(page.cursor, orgId);
  // One more than asked for says whether another page follows.
  const wanted = { limit: page.limit + 1, after };
  const rows = await whereSettings(
    env,
    db,
    org,
    "read",
    () => queries.listSettingsAudit(db, orgId, wanted),
    (store) => store.settingsAudit(orgId, wanted) as Promise<queries.SettingsAuditRow[] | typeof NOT_SERVING>,
  );
  const served = rows.slice(0, page.limit);
  const hasMore = rows.length > page.limit;
  return {
    count: served.length,
    entries: served.map((row) => ({
      id: row.id,
      store_id: row.storeId,
      area: row.area,
      field: row.field,
      old_value: JSON.parse(row.oldValue) as unknown,
      new_value: JSON.parse(row.newValue) as unknown,
      actor: row.actor,
      changed_at: row.changedAt,
    })),
    has_more: hasMore,
    next_cursor: hasMore ? encodeAuditCursor(orgId, served[served.length - 1]) : null,
  };
}
