import { eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { type OrgStoragePlace, organizations } from "../schema";

/** Where the organization's data lives, read at the primary (docs/scaling.md). */
export async function readOrgStorage(db: Database, orgId: string): Promise<OrgStoragePlace | undefined> {
  const [row] = await db.select({ storage: organizations.storage }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row?.storage;
}

/**
 * The head of a D1 write of an organization's tables: it fails the batch unless the organization's
 * data lives in D1, so a write never lands beside its object. The error names the fence
 * (`isStorageMovedError`); a bad JSON path is a failure no other statement raises.
 */
export function unlessStorageInD1(db: Database, orgId: string) {
  return db
    .select({ fence: sql<number>`case when ${organizations.storage} = 'd1' then 1 else json_extract('{}', '$storage moved') end` })
    .from(organizations)
    .where(eq(organizations.id, orgId));
}

export const isStorageMovedError = (error: unknown) => error instanceof Error && /storage moved/.test(`${error.message} ${error.cause ?? ""}`);
