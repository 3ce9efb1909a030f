import { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { GUARDED_WRITE_ATTEMPTS } from "../../db/guarded";
import * as queries from "../../db/queries/settings";
import { compareText } from "../../engines/deal-math";
import { cursorText, invalidCursor, readCursor } from "../../http/cursor";
import { MAX_VALIDATION_DETAILS } from "../../http/errors";
import { entityTag, ifMatchAllows, preconditionFailed } from "../../http/etag";
import { STORE_SETTING_FIELDS, type StoreSettingField, storeSettingsOf } from "../../http/store-setting-fields";
import { DomainError } from "../../lib/domain-error";
import { newId } from "../../lib/ids";
import { settingsChanged } from "../../lib/settings-changes";
import type { ComplianceSettingsPatchSchema, LenderPanelPutSchema, StoreSettingsPatchSchema } from "./settings.routes";

/**
 * Store settings, lender panels and screening thresholds, read and changed with an audit row per
 * field changed in the same D1 batch (docs/settings.md). `actor` is who asked: `staff:<id>` and
 * `broker:<id>` from these routes, `operator:<id>` from an operator's.
 */

const storeNotFound = () => new DomainError("not_found", "This organization has no store with that id.");

const STORE_FIELD_NAMES = Object.keys(STORE_SETTING_FIELDS) as StoreSettingField[];

function toStoreFields(row: queries.StoreSettingsRow) {
  return {
    store_id: row.id,
    name: row.name,
    ...storeSettingsOf(row),
  };
}

export async function listStores(db: Database, orgId: string) {
  const stores = (await queries.listStoreSettings(db, orgId)).map(toStoreFields);
  return { count: stores.length, stores };
}

async function getStore(db: Database, orgId: string, storeId: string) {
  const row = await queries.findStoreSettings(db, orgId, storeId);
  if (!row) throw storeNotFound();
  return toStoreFields(row);
}

const audit = (
  storeId: string | null,
  area: queries.AuditEntry["area"],
  field: string,
  oldValue: unknown,
  newValue: unknown,
  actor: string,
  now: Date,
) => ({
  id: newId("set"),
  storeId,
  area,
  field,
  oldValue: JSON.stringify(oldValue),
  newValue: JSON.stringify(newValue),
  actor,
  changedAt: now.toISOString(),
});

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
export async function getStoreWithTag(db: Database, orgId: string, storeId: string) {
  const body = await getStore(db, orgId, storeId);
  return { body, etag: await entityTag(body) };
}

/**
 * Applies the fields that change, each audited; a patch that changes nothing writes nothing.
 * Without `ifMatch` the last writer wins, and each audit row holds the value its change replaced.
 */
export async function updateStoreSettings(
  db: Database,
  orgId: string,
  storeId: string,
  patch: z.infer<typeof StoreSettingsPatchSchema>,
  actor: string,
  now: Date,
  ifMatch?: string,
) {
  const body = await untilWritten(
    orgId,
    async () => {
      const before = await queries.findStoreSettings(db, orgId, storeId);
      if (!before) throw storeNotFound();
      if (ifMatch !== undefined && !ifMatchAllows(ifMatch, await entityTag(toStoreFields(before)))) throw preconditionFailed("The store's settings");
      const changes: queries.StoreSettingsPatch = {};
      const entries: queries.AuditEntry[] = [];
      for (const name of STORE_FIELD_NAMES) {
        const value = patch[name];
        const { column } = STORE_SETTING_FIELDS[name];
        if (value === undefined || value === before[column]) continue;
        changes[column] = value;
        entries.push(audit(storeId, "store", name, before[column], value, actor, now));
      }
      const value = toStoreFields({ ...before, ...changes });
      if (entries.length === 0) return { written: true, value };
      return (await queries.updateStoreSettings(db, orgId, storeId, before, changes, entries)) ? { written: true, value } : { written: false };
    },
    ifMatch,
    "The store's settings",
  );
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

export async function getLenderPanel(db: Database, orgId: string, storeId: string) {
  await assertOwnStore(db, orgId, storeId);
  return toPanel(storeId, await queries.listLenderPanel(db, orgId, storeId));
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

/** The panel becomes exactly `input.programs`, with one audit row (the sorted ids before and after) when it differs. */
export async function replaceLenderPanel(
  db: Database,
  orgId: string,
  storeId: string,
  input: z.infer<typeof LenderPanelPutSchema>,
  actor: string,
  now: Date,
) {
  await assertOwnStore(db, orgId, storeId);
  const programs = await queries.listLenderProgramNames(db);
  const next = resolvePrograms(input.programs, programs).sort((a, b) => compareText(a.name, b.name));
  const afterIds = next.map((p) => p.id).sort();
  return untilWritten(
    orgId,
    async () => {
      const beforeIds = (await queries.listLenderPanel(db, orgId, storeId)).map((p) => p.id).sort();
      const value = toPanel(storeId, next);
      if (JSON.stringify(beforeIds) === JSON.stringify(afterIds)) return { written: true, value };
      const entry = audit(storeId, "lender_panel", "programs", beforeIds, afterIds, actor, now);
      return (await queries.replaceLenderPanel(db, orgId, storeId, beforeIds, afterIds, [entry])) ? { written: true, value } : { written: false };
    },
    undefined,
    "The lender panel",
  );
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

async function loadCompliance(db: Database, orgId: string) {
  const { own, defaults } = await queries.loadComplianceSettingRows(db, orgId);
  if (!defaults) throw new Error("compliance_settings has no default row ('*'); apply the migrations");
  return { own, defaults, effective: own ?? defaults };
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

export async function getComplianceSettings(db: Database, orgId: string) {
  const loaded = await loadCompliance(db, orgId);
  return complianceBody(loaded, loaded.own?.updatedAt ?? null);
}

/** The organization's row is created from the values in force on its first change; hold must stay at or above flag. */
export async function updateComplianceSettings(
  db: Database,
  orgId: string,
  patch: z.infer<typeof ComplianceSettingsPatchSchema>,
  actor: string,
  now: Date,
) {
  return untilWritten(
    orgId,
    async () => {
      const loaded = await loadCompliance(db, orgId);
      const next: queries.ComplianceSettingsValues = { ...pickValues(loaded.effective) };
      const entries: queries.AuditEntry[] = [];
      for (const name of COMPLIANCE_FIELD_NAMES) {
        const value = patch[name];
        const column = COMPLIANCE_FIELDS[name];
        if (value === undefined || value === loaded.effective[column]) continue;
        next[column] = value;
        entries.push(audit(null, "compliance", name, loaded.effective[column], value, actor, now));
      }
      if (next.holdScore < next.flagScore) {
        throw new DomainError("invalid", "hold_score must be at least flag_score.", {
          problems: [{ path: "hold_score", code: "hold_below_flag", message: `hold_score ${next.holdScore} is below flag_score ${next.flagScore}.` }],
        });
      }
      if (entries.length === 0) return { written: true, value: complianceBody(loaded, loaded.own?.updatedAt ?? null) };
      const updatedAt = now.toISOString();
      const before = loaded.own && pickValues(loaded.own);
      if (!(await queries.saveComplianceSettings(db, orgId, before, next, updatedAt, entries))) return { written: false };
      return { written: true, value: complianceBody({ own: next, defaults: loaded.defaults, effective: next }, updatedAt) };
    },
    undefined,
    "The screening thresholds",
  );
}

const pickValues = (row: queries.ComplianceSettingsValues): queries.ComplianceSettingsValues => ({
  holdScore: row.holdScore,
  flagScore: row.flagScore,
  maxListAgeDays: row.maxListAgeDays,
  minimumAge: row.minimumAge,
  maximumAge: row.maximumAge,
});

/** Opaque to clients: base64url JSON of the list, the organization and the last entry served. */
const AuditCursorSchema = z.object({ list: z.literal("settings-audit"), org: z.string(), changed_at: z.string(), id: z.string() });

function decodeAuditCursor(text: string, orgId: string): queries.AuditCursor {
  const cursor = readCursor(text, AuditCursorSchema);
  if (cursor.org !== orgId) throw invalidCursor("cursor_mismatch", "This cursor belongs to another organization's log.");
  return { changedAt: cursor.changed_at, id: cursor.id };
}

const encodeAuditCursor = (orgId: string, row: queries.SettingsAuditRow) =>
  cursorText({ list: "settings-audit", org: orgId, changed_at: row.changedAt, id: row.id });

export async function listAudit(db: Database, orgId: string, page: { limit: number; cursor?: string }) {
  const after = page.cursor === undefined ? undefined : decodeAuditCursor(page.cursor, orgId);
  // One more than asked for says whether another page follows.
  const rows = await queries.listSettingsAudit(db, orgId, { limit: page.limit + 1, after });
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
