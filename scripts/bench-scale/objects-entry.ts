/**
 * The Worker `npm run bench:scale` serves (bench-only, never deployed): bench:latency's
 * Worker (the production app with every binding call recorded, scripts/bench/latency/entry.ts,
 * served with LATENCY_MODEL=off: no delay added, the round trips still counted), plus two routes
 * that reach organizations' objects directly:
 * - `POST /__bench-scale/d1` `{ statements: [{ sql, params }] }`: one D1 batch, run inside workerd
 *   (Miniflare's proxy from Node failed on batches of hundreds at 1,000 stores);
 * - `POST /__bench-scale/seed` `{ orgs: [{ orgId, stores: SeedStore[] }] }`: each organization's
 *   object is opened (`seed`, as the operator's creation opens it) and every store's inventory applied as a snapshot, through the object's
 *   own `applySnapshot` (the write path of `PUT /api/v1/ingest/inventory`, without the HTTP);
 * - `GET /__bench-scale/size?org=…`: the object's SQLite size in bytes (what storage is billed on);
 * - `GET /__bench-scale/rows?org=…`: the rows its statements read and wrote since the last ask.
 * All are methods of a subclass of OrganizationStore defined here, so src/ gains no bench code.
 */
import { OrganizationStore as ProductionStore } from "../../src/durable-objects/org-storage";
import latency from "../bench/latency/entry";
import { type SeedStore, storeUnits } from "./object-units";

export { QuotaCounter } from "../../src/durable-objects/quota-counter";

export class OrganizationStore extends ProductionStore {
  /** Every statement's cursor since the last `benchRows()`: what it read and wrote is what SQLite storage bills. */
  private cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Patched before the production constructor's migrations run (they wait for an import first).
    const sql = ctx.storage.sql;
    const exec = sql.exec.bind(sql);
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      this.cursors.push(cursor);
      return cursor;
    }) as typeof sql.exec;
  }

  /** The rows read and written since the last call (SQLite's own counts, as billed). */
  benchRows(): { read: number; written: number } {
    const rows = { read: 0, written: 0 };
    for (const cursor of this.cursors) {
      rows.read += cursor.rowsRead;
      rows.written += cursor.rowsWritten;
    }
    this.cursors = [];
    return rows;
  }

  /** Opens the object, born empty, and applies each store's snapshot; returns the object's size. */
  async benchSeed(orgId: string, stores: SeedStore[]): Promise<number> {
    await this.seed(orgId);
    const names = stores.map(({ id, name }) => ({ id, name }));
    for (const [i, store] of stores.entries()) {
      const applied = await this.applySnapshot(
        orgId,
        names,
        store.id,
        storeUnits(i + 1, store.units),
        { allowEmpty: false, confirmRemovals: undefined },
        new Date().toISOString(),
      );
      if (applied.refusal) throw new Error(`seeding ${store.id} was refused: ${JSON.stringify(applied)}`);
    }
    return this.benchSize();
  }

  benchSize(): number {
    return this.ctx.storage.sql.databaseSize;
  }
}

const PREFIX = "/__bench-scale/";
type Store = DurableObjectStub<OrganizationStore>;
const stub = (env: Env, orgId: string) => (env.ORG_STORE as unknown as DurableObjectNamespace<OrganizationStore>).getByName(orgId) as Store;

export default {
  ...latency,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === `${PREFIX}d1`) {
      const { statements } = (await request.json()) as { statements: { sql: string; params: unknown[] }[] };
      await env.DB.batch(statements.map(({ sql, params }) => env.DB.prepare(sql).bind(...params)));
      return new Response(null, { status: 204 });
    }
    if (url.pathname === `${PREFIX}seed`) {
      const { orgs } = (await request.json()) as { orgs: { orgId: string; stores: SeedStore[] }[] };
      const sizes = await Promise.all(orgs.map(({ orgId, stores }) => stub(env, orgId).benchSeed(orgId, stores)));
      return Response.json({ sizes });
    }
    if (url.pathname === `${PREFIX}rows`) return Response.json(await stub(env, url.searchParams.get("org") ?? "").benchRows());
    if (url.pathname === `${PREFIX}size`) {
      const orgId = url.searchParams.get("org") ?? "";
      return Response.json({ bytes: await stub(env, orgId).benchSize() });
    }
    return latency.fetch(request, env, ctx);
  },
};
