import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./platform";

/**
 * A move under way (docs/scaling.md#how-an-organization-moves-d1--its-object): one row per
 * organization from the copy's start to the flip (or a cancel). While it exists, D1's capture
 * triggers on the moved tables record every change of the organization's rows in
 * `org_storage_changes`; the flag stays `d1` meanwhile, so D1 serves and takes writes as before.
 */
export const orgStorageMoves = sqliteTable("org_storage_moves", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organizations.id),
  startedAt: text("started_at").notNull(),
  /** The copy step under way (a group, in the move's order), or `catch_up` once every group is copied. */
  step: text("step").notNull(),
  /** The step's cursor: the last id copied of a step that copies in pages, so a move run again goes on from there. */
  after: text("after"),
  /** Catch-up rounds applied so far. */
  rounds: integer("rounds").notNull().default(0),
  /** When the write pause began (the flag went to `moving` for the last round, the digests and the flip). */
  pausedAt: text("paused_at"),
  /**
   * The lease of the request working on the move (ms since the epoch): taken and renewed by a
   * conditional UPDATE, so one request at a time works the move's steps; another answers its
   * progress. It ends with a request's work budget, so a lost request holds the move no longer.
   */
  workedUntil: integer("worked_until"),
});

/**
 * A row of a moved table that changed while its organization's move was under way: the table and
 * the row's key (a JSON array of its primary key's values). The catch-up re-reads each from D1 and
 * writes it into the object (or deletes it there, if D1 no longer holds it), then deletes the entry.
 */
export const orgStorageChanges = sqliteTable(
  "org_storage_changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    orgId: text("org_id").notNull(),
    tableName: text("table_name").notNull(),
    rowKey: text("row_key").notNull(),
  },
  (t) => [index("org_storage_changes_org_idx").on(t.orgId, t.seq)],
);
