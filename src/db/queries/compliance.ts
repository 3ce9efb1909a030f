import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { TriggeredRule } from "../../engines/screening/decision";
import { listedPartsRows } from "../../engines/screening/listed-parts";
import type { ParsedSanctionsList } from "../../engines/screening/ofac-csv";
import { chunk, MAX_BOUND_PARAMETERS } from "../batch";
import { callTemplate, type Database, type SqliteReader, type SqlTemplate, type TemplateCall } from "../client";
import { complianceChecks } from "../org-schema";
import { givenNameForms, sanctionsAliases, sanctionsDobs, sanctionsEntries, sanctionsLists, sanctionsNameParts } from "../schema";

/** The sanctions list in force: the newest successful load. The list is public reference data, shared by every organization. */
export async function getListInForce(db: Database) {
  const [row] = await db
    .select({
      id: sanctionsLists.id,
      version: sanctionsLists.version,
      versionBasis: sanctionsLists.versionBasis,
      loadedAt: sanctionsLists.loadedAt,
      contentHash: sanctionsLists.contentHash,
      entryCount: sanctionsLists.entryCount,
    })
    .from(sanctionsLists)
    .orderBy(desc(sanctionsLists.loadedAt))
    .limit(1);
  return row ?? null;
}

export type ListInForce = NonNullable<Awaited<ReturnType<typeof getListInForce>>>;

/** The list's stored name parts (`listedPartsRows`); none for a list loaded before they were stored. */
export async function getListedParts(db: Database, listId: string): Promise<string[]> {
  const rows = await db.select({ parts: sanctionsNameParts.parts }).from(sanctionsNameParts).where(eq(sanctionsNameParts.listId, listId));
  return rows.map((r) => r.parts);
}

/**
 * What screening a person needs of one list: individuals, their strong aliases and dates of birth,
 * in one round trip. `entNums`: only those individuals (bound as one JSON array: a check may need
 * hundreds, and D1 binds at most 100 parameters); without it, every individual. `listed` says
 * whether the list is still there (a newer one may have replaced it mid-request).
 */
export async function getScreeningRows(db: Database, listId: string, entNums?: readonly number[]) {
  const wanted = (entNum: AnySQLiteColumn): SQL | undefined => entNums && sql`${entNum} IN (SELECT value FROM json_each(${JSON.stringify(entNums)}))`;
  const [entries, aliases, dobs, listed] = await db.batch([
    db
      .select({
        entNum: sanctionsEntries.entNum,
        name: sanctionsEntries.name,
        sdnType: sanctionsEntries.sdnType,
        programs: sanctionsEntries.programs,
      })
      .from(sanctionsEntries)
      .where(and(eq(sanctionsEntries.listId, listId), eq(sanctionsEntries.sdnType, "individual"), wanted(sanctionsEntries.entNum))),
    db
      .select({ entNum: sanctionsAliases.entNum, altType: sanctionsAliases.altType, name: sanctionsAliases.name })
      .from(sanctionsAliases)
      .innerJoin(sanctionsEntries, and(eq(sanctionsEntries.listId, sanctionsAliases.listId), eq(sanctionsEntries.entNum, sanctionsAliases.entNum)))
      .where(and(eq(sanctionsAliases.listId, listId), eq(sanctionsEntries.sdnType, "individual"), wanted(sanctionsEntries.entNum))),
    db
      .select({
        entNum: sanctionsDobs.entNum,
        from: sanctionsDobs.fromDate,
        to: sanctionsDobs.toDate,
        precision: sanctionsDobs.precision,
        circa: sanctionsDobs.circa,
      })
      .from(sanctionsDobs)
      .where(and(eq(sanctionsDobs.listId, listId), wanted(sanctionsDobs.entNum))),
    db.select({ id: sanctionsLists.id }).from(sanctionsLists).where(eq(sanctionsLists.id, listId)),
  ]);
  return { entries, aliases, dobs, listed: listed.length > 0 };
}

/** The published nickname list (reference data from a migration, shared by every organization), or null if absent. */
export async function getGivenNameFormsCsv(db: Database): Promise<string | null> {
  const [row] = await db.select({ csv: givenNameForms.csv }).from(givenNameForms).limit(1);
  return row?.csv ?? null;
}

/** A list's metadata, written last: the row that puts a loaded list in force. */
export interface SanctionsListMeta {
  id: string;
  /** The publisher's date (docs/domain/screening.md#list-age): OFAC's own unless `versionBasis` says it is a bound. */
  version: string;
  versionBasis?: "published" | "upper_bound";
  source: string;
  contentHash: string;
  loadedAt: string;
}

export interface RawStatement {
  sql: string;
  params: (string | number)[];
}

/** One parameter per listed column and row, as many rows per statement as D1's limit allows. */
export function multiRowInserts(table: string, columns: string[], rows: (string | number)[][]): RawStatement[] {
  const placeholders = `(${columns.map(() => "?").join(", ")})`;
  return chunk(rows, Math.floor(MAX_BOUND_PARAMETERS / columns.length)).map((part) => ({
    sql: `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${part.map(() => placeholders).join(", ")}`,
    params: part.flat(),
  }));
}

/** The tables whose rows carry a list's id. */
const LIST_ROW_TABLES = ["sanctions_entries", "sanctions_aliases", "sanctions_dobs", "sanctions_name_parts"];

/**
 * A whole load as plain SQL, in order, for the scheduled refresh (bound through D1) and the
 * operator command (inlined for `wrangler d1 execute`) alike:
 * 1. `rows`: clear what an earlier failed load left, then insert this list's rows under its id;
 * 2. `activate`: insert the list's row (from then on it is the list in force) and delete every
 *    other list. Until step 2 succeeds the previous list stays in force.
 */
export function sanctionsListLoad(list: ParsedSanctionsList, meta: SanctionsListMeta): { rows: RawStatement[]; activate: RawStatement[] } {
  const orphans = LIST_ROW_TABLES.map((table) => ({
    sql: `DELETE FROM ${table} WHERE list_id NOT IN (SELECT id FROM sanctions_lists)`,
    params: [],
  }));
  const seq = new Map<number, number>();
  const rows = [
    ...orphans,
    ...multiRowInserts(
      "sanctions_entries",
      ["list_id", "ent_num", "name", "sdn_type", "programs"],
      list.entries.map((e) => [meta.id, e.entNum, e.name, e.sdnType, e.programs]),
    ),
    ...multiRowInserts(
      "sanctions_aliases",
      ["list_id", "alt_num", "ent_num", "alt_type", "name"],
      list.aliases.map((a) => [meta.id, a.altNum, a.entNum, a.altType, a.name]),
    ),
    ...multiRowInserts(
      "sanctions_dobs",
      ["list_id", "ent_num", "seq", "text", "from_date", "to_date", "precision", "circa"],
      list.dobs.map((d) => {
        const n = (seq.get(d.entNum) ?? 0) + 1;
        seq.set(d.entNum, n);
        return [meta.id, d.entNum, n, d.text, d.from, d.to, d.precision, d.circa ? 1 : 0];
      }),
    ),
    ...namePartsInserts(list, meta.id),
  ];
  const activate: RawStatement[] = [
    {
      sql: "INSERT INTO sanctions_lists (id, version, version_basis, source, content_hash, loaded_at, entry_count, alias_count, dob_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      params: [
        meta.id,
        meta.version,
        meta.versionBasis ?? "published",
        meta.source,
        meta.contentHash,
        meta.loadedAt,
        list.entries.length,
        list.aliases.length,
        list.dobs.length,
      ],
    },
    ...LIST_ROW_TABLES.map((table) => ({
      sql: `DELETE FROM ${table} WHERE list_id <> ?`,
      params: [meta.id],
    })),
    { sql: "DELETE FROM sanctions_lists WHERE id <> ?", params: [meta.id] },
  ];
  return { rows, activate };
}

/** The list's name parts (`listedPartsRows`), a statement per row: each is up to LISTED_PARTS_ROW_CHARS long, inlined by the operator command. */
function namePartsInserts(list: ParsedSanctionsList, listId: string): RawStatement[] {
  return listedPartsRows(list).map((parts, seq) => ({
    sql: "INSERT INTO sanctions_name_parts (list_id, seq, parts) VALUES (?, ?, ?)",
    params: [listId, seq, parts],
  }));
}

/**
 * The same files again: the load time is renewed, and the publisher's date is the one this load
 * states (the list's age counts from it, never from the load). Its name parts are written again
 * with it, in one batch (a transaction): a list loaded before they were stored gets them at its
 * first renewal, so its checks stop loading it whole, and a check never sees some of them only.
 */
export async function renewListInForce(
  db: Database,
  list: ParsedSanctionsList,
  listId: string,
  renewal: { loadedAt: string; source: string; version: string; versionBasis: SanctionsListMeta["versionBasis"] },
): Promise<void> {
  await runInOneBatch(db, [
    { sql: "DELETE FROM sanctions_name_parts WHERE list_id = ?", params: [listId] },
    ...namePartsInserts(list, listId),
    {
      sql: "UPDATE sanctions_lists SET loaded_at = ?, source = ?, version = ?, version_basis = ? WHERE id = ?",
      params: [renewal.loadedAt, renewal.source, renewal.version, renewal.versionBasis ?? "published", listId],
    },
  ]);
}

/** Plain statements bound through D1 and run as one batch (a transaction). */
function runInOneBatch(db: Database, statements: RawStatement[]) {
  const d1 = db.$client;
  return d1.batch(statements.map((s) => d1.prepare(s.sql).bind(...s.params)));
}

/** What a check records whatever the organization's history shows. */
export type NewComplianceCheck = Omit<typeof complianceChecks.$inferInsert, "orgId" | "result" | "triggeredRule" | "redFlags">;

/** What a check records that depends on the history: one per entry of `IDENTITY_HISTORIES`, in its order. */
export interface HistoryOutcome {
  result: "pass" | "flag" | "hold";
  triggeredRule: TriggeredRule | null;
  redFlags: string[];
}

/** The columns whose value the organization's history chooses among the outcomes. */
const OUTCOME_COLUMNS = ["result", "triggeredRule", "redFlags"] as const satisfies readonly (keyof HistoryOutcome &
  keyof typeof complianceChecks.$inferSelect)[];
type OutcomeColumn = (typeof OUTCOME_COLUMNS)[number];
const isOutcomeColumn = (name: string): name is OutcomeColumn => (OUTCOME_COLUMNS as readonly string[]).includes(name);
/** The audit table's columns in its order (an INSERT … SELECT lists every one), and those every check sets itself. */
const AUDIT_COLUMNS = Object.keys(getTableColumns(complianceChecks));
const CHECK_COLUMNS = AUDIT_COLUMNS.filter((name) => !isOutcomeColumn(name));
/** The placeholder of an outcome column's value for history `seen`. */
const outcomeValue = (column: OutcomeColumn, seen: number) => `${column}${seen}`;

/** Per isolate, the audit insert for each number of outcomes (one in practice), built on its first use. */
const auditStatements = new Map<number, SqlTemplate>();

/**
 * The audit insert's SQL, every value a placeholder: a column's by its name, an outcome column's
 * for history `n` as `<column><n>`. A check without SSN digits or ZIP binds NULL there, which
 * equals nothing, so that history reads as not seen.
 */
function auditStatement(db: SqliteReader, outcomeCount: number): SqlTemplate {
  const built = auditStatements.get(outcomeCount);
  if (built) return built;
  const c = complianceChecks;
  const value = (name: string) => sql.placeholder(name);
  const seenWithOther = (key: AnySQLiteColumn, keyName: string, other: AnySQLiteColumn, otherName: string) =>
    sql`(EXISTS (SELECT 1 FROM ${c} WHERE ${c.orgId} = ${value("orgId")} AND ${key} = ${value(keyName)} AND ${other} < ${value(otherName)})
      OR EXISTS (SELECT 1 FROM ${c} WHERE ${c.orgId} = ${value("orgId")} AND ${key} = ${value(keyName)} AND ${other} > ${value(otherName)}))`;
  // Bit 0 and bit 1 as in IDENTITY_HISTORIES.
  const history = sql`${seenWithOther(c.ssnDobHash, "ssnDobHash", c.nameHash, "nameHash")}
    + 2 * ${seenWithOther(c.nameZipHash, "nameZipHash", c.dobHash, "dobHash")}`;
  const byHistory = (column: OutcomeColumn) =>
    sql`CASE history.seen ${sql.join(
      Array.from({ length: outcomeCount }, (_, seen) => sql`WHEN ${sql.raw(String(seen))} THEN ${value(outcomeValue(column, seen))}`),
      sql` `,
    )} END`;
  const selected = AUDIT_COLUMNS.map((name) => (isOutcomeColumn(name) ? byHistory(name) : sql`${value(name)}`));
  const statement = db
    .insert(c)
    .select(sql`SELECT ${sql.join(selected, sql`, `)} FROM (SELECT ${history} AS seen) AS history`)
    // RETURNING sees only the inserted row: what it recorded names the outcome (evaluating the
    // history again there cost about a tenth of a check's throughput, BENCHMARKS.md, 22:03 run).
    .returning({ recorded: sql<string>`json_array(${c.result}, ${c.triggeredRule}, json(${c.redFlags}))`.as("recorded") })
    .toSQL();
  auditStatements.set(outcomeCount, statement);
  return statement;
}

/**
 * The audit row's insert, unexecuted, so it can share a batch with the events it raises. Reading
 * the organization's history and recording the check are one statement: SQLite evaluates whether
 * the same SSN-4 + DOB was screened under another name and the same name + ZIP with another DOB
 * (each two index seeks: "another" is below or above the hash), then inserts the outcome that
 * history selects. So of two simultaneous checks the later always sees the earlier, and a check
 * costs one round trip to the primary. Its result is `[{ outcome }]`: the index into `outcomes`
 * SQLite chose. The statement is built once: built by drizzle on every check it cost more than a
 * third of the check's CPU (BENCHMARKS.md, 2026-11-27).
 */
export function recordComplianceCheck(
  db: SqliteReader,
  orgId: string,
  check: NewComplianceCheck,
  outcomes: readonly HistoryOutcome[],
): TemplateCall<{ outcome: number }[]> {
  const row: Record<string, unknown> = { ...check, orgId, safeguardsFlags: JSON.stringify(check.safeguardsFlags) };
  const values: Record<string, unknown> = {};
  for (const name of CHECK_COLUMNS) values[name] = row[name] ?? null;
  for (const [seen, o] of outcomes.entries()) {
    for (const column of OUTCOME_COLUMNS) values[outcomeValue(column, seen)] = column === "redFlags" ? JSON.stringify(o.redFlags) : o[column];
  }
  const recordedOutcomes = outcomes.map((o) => JSON.stringify([o.result, o.triggeredRule, o.redFlags]));
  const outcomeOf = (recorded: unknown) => {
    const outcome = recordedOutcomes.indexOf(recorded as string);
    if (outcome < 0) throw new Error(`The audit row recorded ${recorded}, none of the outcomes given`);
    return outcome;
  };
  const statement = auditStatement(db, outcomes.length);
  return callTemplate(statement, values, (rows) => rows.map((r) => ({ outcome: outcomeOf(r.recorded) })));
}

export async function getComplianceCheck(db: SqliteReader, orgId: string, checkId: string) {
  const [row] = await db
    .select({
      id: complianceChecks.id,
      keyId: complianceChecks.keyId,
      result: complianceChecks.result,
      triggeredRule: complianceChecks.triggeredRule,
      score: complianceChecks.score,
      holdScore: complianceChecks.holdScore,
      flagScore: complianceChecks.flagScore,
      maxListAgeDays: complianceChecks.maxListAgeDays,
      listVersion: complianceChecks.listVersion,
      listLoadedAt: complianceChecks.listLoadedAt,
      matchedEntNum: complianceChecks.matchedEntNum,
      redFlags: complianceChecks.redFlags,
      safeguardsFlags: complianceChecks.safeguardsFlags,
      checkedAt: complianceChecks.checkedAt,
    })
    .from(complianceChecks)
    .where(and(eq(complianceChecks.id, checkId), eq(complianceChecks.orgId, orgId)));
  return row ?? null;
}

export type ComplianceCheckRow = NonNullable<Awaited<ReturnType<typeof getComplianceCheck>>>;

/** Statements per D1 batch while loading rows (each batch is one round trip). */
const LOAD_BATCH_STATEMENTS = 100;

/** Runs a load (see `sanctionsListLoad`) through D1; on any failure the previous list stays in force. */
export async function writeSanctionsList(db: Database, list: ParsedSanctionsList, meta: SanctionsListMeta): Promise<void> {
  const { rows, activate } = sanctionsListLoad(list, meta);
  for (let i = 0; i < rows.length; i += LOAD_BATCH_STATEMENTS) await runInOneBatch(db, rows.slice(i, i + LOAD_BATCH_STATEMENTS));
  await runInOneBatch(db, activate);
}
