import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getDb } from "../../src/db/client";
import { readOrgStorage } from "../../src/db/queries/org-storage";
import { moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";

/** Where a parametrised test keeps its organization's data (docs/scaling.md): D1, or its own object. */
export const PLACES = ["d1", "object"] as const;
export type Place = (typeof PLACES)[number];

/** Leaves the organization in D1, or moves it (after its rows are seeded in D1) into its object. */
export async function placeOrganization(orgId: string, place: Place): Promise<void> {
  if (place === "object") await moveToObject(env, orgId);
}

/** Rows of `query` where the organization's units are: D1, or its object's own SQLite. */
export async function rowsWhereStored<Row extends Record<string, SqlStorageValue>>(
  orgId: string,
  query: string,
  ...binds: SqlStorageValue[]
): Promise<Row[]> {
  if ((await readOrgStorage(getDb(env.DB), orgId)) !== "object")
    return (
      await env.DB.prepare(query)
        .bind(...binds)
        .all<Row>()
    ).results;
  return runInDurableObject(orgStore(env, orgId), (_, state) => state.storage.sql.exec<Row>(query, ...binds).toArray());
}
