import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getTableName, is } from "drizzle-orm";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { inChunks, runBatch } from "../../src/db/batch";
import { getDb } from "../../src/db/client";
import * as orgSchema from "../../src/db/org-schema";
import { readOrgStorage } from "../../src/db/queries/org-storage";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { addToPanel } from "./deal-desk";
import { createApiKey, createOrg, createStore } from "./factories";

/**
 * Rows of a per-organization table written where the organization's data is: D1 in statements of
 * D1's size, or its object's own SQLite (its table of the same name) in one call.
 */
export async function insertAllWhereStored<T extends SQLiteTable>(orgId: string, table: T, rows: T["$inferInsert"][]): Promise<void> {
  const db = getDb(env.DB);
  if ((await readOrgStorage(db, orgId)) !== "object") {
    await runBatch(
      db,
      inChunks(rows, (part) => db.insert(table).values(part)),
    );
    return;
  }
  const objectTable = Object.values(orgSchema).find((t) => is(t, SQLiteTable) && getTableName(t) === getTableName(table));
  if (objectTable === undefined) throw new Error(`${getTableName(table)} is not an object table`);
  await runInDurableObject(orgStore(env, orgId), (_, state) => {
    const local = drizzle(state.storage);
    for (const row of rows)
      local
        .insert(objectTable as SQLiteTable)
        .values(row)
        .run();
  });
}

/**
 * `createDeskOrg`'s organization (a primary store whose panel holds the named programs, default every
 * program; a key), kept in D1 for the tests of a move from there. `insertStore` gave its store D1's
 * default panel, replaced here by the one asked for.
 */
export async function createDeskOrgInD1(options: { programIds?: string[] } = {}) {
  const org = await createOrg({ place: "d1" });
  const store = await createStore(org.id, { isPrimary: true });
  await env.DB.prepare("DELETE FROM store_lender_panel WHERE store_id = ?").bind(store.id).run();
  const programIds = options.programIds ?? (await env.DB.prepare("SELECT id FROM lender_programs").all<{ id: string }>()).results.map((r) => r.id);
  await addToPanel(org.id, store.id, programIds);
  const { key } = await createApiKey(org.id);
  return { orgId: org.id, storeId: store.id, key };
}
