import { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import * as queries from "../../db/queries/settings";
import { orgStore } from "../../durable-objects/org-storage-routing";
import { compareText } from "../../engines/deal-math";
import { cursorText, invalidCursor, readCursor } from "../../http/cursor";
import { MAX_VALIDATION_DETAILS } from "../../http/errors";
import { entityTag, ifMatchAllows, preconditionFailed } from "../../http/etag";
import { STORE_SETTING_FIELDS, type StoreSettingField, storeSettingsOf } from "../../http/store-setting-fields";
import { DomainError } from "../../lib/domain-error";
import { settingsChanged } from "../../lib/settings-changes";
import type { ComplianceSettingsPatchSchema, LenderPanelPutSchema, StoreSettingsPatchSchema } from "./settings.routes";

/**
 * Store settings, lender panels and screening thresholds, read and changed in the organization's
 * storage object (docs/settings.md): one call each, a change and its audit rows (one per field
 * changed) in one transaction there. `actor` is who asked: `staff:<id>` and `broker:<id>` from
 * these routes, `operator:<id>` from an operator's. The lender matrix and the default thresholds
 * are D1's reference data.
 */

type StorageEnv = Pick<Env, "ORG_STORE">;

const storeNotFound = () => new DomainError("not_found", "This organization has no store with that id.");

const STORE_FIELD_NAMES = Object.keys(STORE_SETTING_FIELDS) as StoreSettingField[];

function toStoreFields(row: queries.StoreSettingsRow) {
  return {
    store_id: row.id,
    name: row.name,
    ...storeSettingsOf(row),
  };
}

export async function listStores(env: StorageEnv, orgId: string) {
  const stores = (await orgStore(env, orgId).storeSettingsList(orgId)).map(toStoreFields);
  return { count: stores.length, stores };
}

/** The store's fields and their entity tag (`ETag`, for `If-Match` on a PATCH). */
export async function getStoreWithTag(env: StorageEnv, orgId: string, storeId: string) {
  const row = await orgStore(env, orgId).storeSettings(orgId, storeId);
  if (!row) throw storeNotFound();
  const body = toStoreFields(row);
  return { body, etag: await entityTag(body) };
}

const STORE_SETTINGS = "The store's settings";

/**
 * Applies the fields that change, each audited; a patch that changes nothing writes nothing.
 * Without `ifMatch` the last writer wins, and each audit row holds the value its change replaced:
 * the object reads, plans and writes in one transaction. With `ifMatch`, a read to check the tag
 * first, then the write only if the settings are still those read (else 412).
 */
export async function updateStoreSettings(
  env: StorageEnv,
  orgId: string,
  storeId: string,
  patch: z.infer<typeof StoreSettingsPatchSchema>,
  actor: string,
  now: Date,
  ifMatch?: string,
) {
  const fields = STORE_FIELD_NAMES.flatMap((name): queries.SettingChange[] => {
    const value = patch[name];
    return value === undefined ? [] : [{ field: name, column: STORE_SETTING_FIELDS[name].column, value }];
  });
  const store = orgStore(env, orgId);
  let expected: queries.StoreSettingsRow | undefined;
  if (ifMatch !== undefined) {
    const current = await store.storeSettings(orgId, storeId);
    if (!current) throw storeNotFound();
    if (!ifMatchAllows(ifMatch, await entityTag(toStoreFields(current)))) throw preconditionFailed(STORE_SETTINGS);
    expected = current;
  }
  const changed = await store.changeStoreSettings(orgId, storeId, fields, actor, now.toISOString(), expected);
  if (changed === null) throw storeNotFound();
  // Only with `expected`: another change came between the read and this write, which the client's tag did not name.
  if (!changed.written) throw preconditionFailed(STORE_SETTINGS);
  if (Object.keys(changed.changes).length > 0) settingsChanged(orgId);
  const body = toStoreFields({ ...changed.before, ...changed.changes });
  return { body, etag: await entityTag(body) };
}

const toPanel = (storeId: string, programs: { id: string; name: string; type: string }[]) => ({
  store_id: storeId,
  count: programs.length,
  programs,
});

/** The store's panel, by name: its ids, the object's, named from D1's matrix (global reference data). */
export async function getLenderPanel(env: StorageEnv, db: Database, orgId: string, storeId: string) {
  const [ids, matrix] = await Promise.all([orgStore(env, orgId).lenderPanel(orgId, storeId), queries.listLenderProgramNames(db)]);
  if (ids === null) throw storeNotFound();
  const byId = new Map(matrix.map((p) => [p.id, p]));
  return toPanel(
    storeId,
    ids.flatMap((id) => byId.get(id) ?? []).sort((a, b) => compareText(a.name, b.name)),
  );
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
 * when it differs: the object reads, plans and writes in one transaction.
 */
export async function replaceLenderPanel(
  env: StorageEnv,
  db: Database,
  orgId: string,
  storeId: string,
  input: z.infer<typeof LenderPanelPutSchema>,
  actor: string,
  now: Date,
) {
  const programs = await queries.listLenderProgramNames(db);
  const next = resolvePrograms(input.programs, programs).sort((a, b) => compareText(a.name, b.name));
  const afterIds = next.map((p) => p.id).sort();
  const changed = await orgStore(env, orgId).changeLenderPanel(orgId, storeId, afterIds, actor, now.toISOString());
  if (changed === null) throw storeNotFound();
  if (changed.changed) settingsChanged(orgId);
  return toPanel(storeId, next);
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

/** The default thresholds, D1's reference data ('*'). */
async function complianceDefaults(db: Database) {
  const defaults = await queries.getComplianceDefaults(db);
  if (!defaults) throw new Error("compliance_settings has no default row ('*'); apply the migrations");
  return defaults;
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

/** The thresholds in force: the organization's own row, its object's, else the defaults, D1's (read together). */
export async function getComplianceSettings(env: StorageEnv, db: Database, orgId: string) {
  const [own, defaults] = await Promise.all([orgStore(env, orgId).complianceThresholds(orgId), complianceDefaults(db)]);
  return complianceBody({ own, defaults, effective: own ?? defaults }, own?.updatedAt ?? null);
}

const holdBelowFlag = (next: queries.ComplianceSettingsValues) =>
  new DomainError("invalid", "hold_score must be at least flag_score.", {
    problems: [{ path: "hold_score", code: "hold_below_flag", message: `hold_score ${next.holdScore} is below flag_score ${next.flagScore}.` }],
  });

/**
 * The organization's row is created from the values in force on its first change; hold must stay
 * at or above flag. The object reads, plans and writes in one transaction (the defaults, D1's, sent with it).
 */
export async function updateComplianceSettings(
  env: StorageEnv,
  db: Database,
  orgId: string,
  patch: z.infer<typeof ComplianceSettingsPatchSchema>,
  actor: string,
  now: Date,
) {
  const fields = COMPLIANCE_FIELD_NAMES.flatMap((name): queries.ComplianceChange[] => {
    const value = patch[name];
    return value === undefined ? [] : [{ field: name, column: COMPLIANCE_FIELDS[name], value }];
  });
  const changedAt = now.toISOString();
  const defaults = await complianceDefaults(db);
  const changed = await orgStore(env, orgId).changeComplianceThresholds(orgId, defaults, fields, actor, changedAt);
  if (changed.holdBelowFlag) throw holdBelowFlag(changed.next);
  if (!changed.written) return complianceBody({ own: changed.own, defaults, effective: changed.own ?? defaults }, changed.own?.updatedAt ?? null);
  settingsChanged(orgId);
  return complianceBody({ own: changed.next, defaults, effective: changed.next }, changedAt);
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

/** The log's page: every area's rows, the object's (one call). */
export async function listAudit(env: StorageEnv, orgId: string, page: { limit: number; cursor?: string }) {
  const after = page.cursor === undefined ? undefined : decodeAuditCursor(page.cursor, orgId);
  // One more than asked for says whether another page follows.
  const rows = await orgStore(env, orgId).settingsAudit(orgId, { limit: page.limit + 1, after });
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
