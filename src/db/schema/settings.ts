import { index, type SQLiteColumn, text } from "drizzle-orm/sqlite-core";

export const SETTINGS_AREAS = ["store", "lender_panel", "compliance"] as const;

/**
 * Every change to a store's settings, its lender panel or the organization's screening thresholds,
 * one row per field changed, written in the same D1 batch as the change (docs/settings.md).
 */
export const settingsAuditColumns = <OrgId>(orgId: OrgId) => ({
  id: text("id").primaryKey(),
  orgId,
  /** Null for an organization-wide setting (the compliance thresholds). */
  storeId: text("store_id"),
  area: text("area", { enum: SETTINGS_AREAS }).notNull(),
  field: text("field").notNull(),
  /** JSON text of the value before and after. */
  oldValue: text("old_value").notNull(),
  newValue: text("new_value").notNull(),
  /** `staff:<user id>`, `broker:<token id>` or `operator:<id>`. */
  actor: text("actor").notNull(),
  changedAt: text("changed_at").notNull(),
});

export const settingsAuditIndexes = (t: { [K in "orgId" | "changedAt" | "id"]: SQLiteColumn }) => [
  index("settings_audit_org_changed_idx").on(t.orgId, t.changedAt, t.id),
];
