/**
 * The local D1 database, opened in this process with wrangler's own Miniflare on wrangler's state
 * directory (.wrangler/state/v3/d1, the file `wrangler dev` and `wrangler d1 … --local` use), for
 * `npm run dev` and `npm run seed`. Every `wrangler d1` call starts Node, wrangler and a runtime
 * (about a second each, 33 of them for a fresh database's migrations), and `--file` prepares its
 * statements one by one across a process boundary (22 s for the sanctions list, 32 s for the VIN
 * data on a busy 2-core machine); here one runtime takes each load as a few multi-statement SQL
 * texts in one batch (one transaction).
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { RawStatement } from "../../src/db/queries/compliance";
import { REPO_ROOT } from "./repo-root";
import { type D1Runner, inline, sqlString } from "./wrangler-d1";

// wrangler's dependency, not the project's: the same runtime and storage layout `wrangler dev` uses.
const wranglerRequire = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));

/** wrangler's defaults: migrations_dir = "migrations", migrations_table = "d1_migrations" (wrangler.toml sets no other). */
const MIGRATIONS_DIR = path.join(REPO_ROOT, "migrations");
const MIGRATIONS_TABLE = "d1_migrations";

/** Statements are joined into texts up to this size (D1 refuses a text over 100 KB): SQLite runs a text's statements itself, without a round trip each. */
const MAX_TEXT_LENGTH = 90_000;

// Runs a batch of SQL texts (each may hold several statements) and answers each one's rows.
const RUNNER_SCRIPT = `export default {
  async fetch(request, env) {
    const texts = await request.json();
    try {
      const results = await env.DB.batch(texts.map((sql) => env.DB.prepare(sql)));
      return Response.json(results.map((result) => result.results ?? []));
    } catch (error) {
      return new Response(String(error?.cause?.message ?? error?.message ?? error), { status: 500 });
    }
  },
};`;

/** The `DB` binding's local id, as wrangler picks it: preview_database_id, else database_id. */
function localDatabaseId(): string {
  const toml = readFileSync(path.join(REPO_ROOT, "wrangler.toml"), "utf8");
  const block = toml.split(/^\[\[d1_databases\]\]\s*$/m)[1] ?? "";
  const id = /^preview_database_id\s*=\s*"([^"]+)"/m.exec(block)?.[1] ?? /^database_id\s*=\s*"([^"]+)"/m.exec(block)?.[1];
  if (!id) throw new Error("wrangler.toml has no [[d1_databases]] database_id");
  return id;
}

export interface LocalD1 extends D1Runner {
  /** Applies the migrations wrangler has not recorded as applied, recording them as `wrangler d1 migrations apply` does; answers their names. */
  migrate(): Promise<string[]>;
  /** SQL texts with literal values (the seed's), in order, in one transaction. */
  runSql(statements: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export async function openLocalD1(): Promise<LocalD1> {
  const { Miniflare, convertV4MiniflareOptions } = wranglerRequire("miniflare");
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: RUNNER_SCRIPT,
      compatibilityDate: "2026-11-01",
      resourcePersistencePath: path.join(REPO_ROOT, ".wrangler", "state", "v3"),
      d1Databases: { DB: localDatabaseId() },
    }),
  );
  const batch = async (texts: readonly string[]): Promise<Record<string, unknown>[][]> => {
    const response = await mf.dispatchFetch("http://local-d1/", { method: "POST", body: JSON.stringify(texts) });
    const body = await response.text();
    if (!response.ok) throw new Error(`local D1: ${body}`);
    return JSON.parse(body);
  };
  const runSql = async (statements: readonly string[]) => {
    const texts: string[] = [];
    let text = "";
    for (const statement of statements) {
      if (text !== "" && text.length + statement.length >= MAX_TEXT_LENGTH) {
        texts.push(text);
        text = "";
      }
      text += `${statement}\n`;
    }
    if (text !== "") texts.push(text);
    if (texts.length > 0) await batch(texts);
  };
  return {
    query: async <Row>(sql: string) => (await batch([sql]))[0] as Row[],
    run: (statements: readonly RawStatement[]) => runSql(statements.map(inline)),
    runSql,
    async migrate() {
      const [, applied] = await batch([
        `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
        `SELECT name FROM ${MIGRATIONS_TABLE}`,
      ]);
      const done = new Set(applied.map((row) => row.name));
      const pending = readdirSync(MIGRATIONS_DIR)
        .filter((name) => name.endsWith(".sql") && !done.has(name))
        .sort();
      if (pending.length > 0) {
        await batch(
          pending.map(
            (name) => `${readFileSync(path.join(MIGRATIONS_DIR, name), "utf8")}\nINSERT INTO ${MIGRATIONS_TABLE} (name) VALUES (${sqlString(name)});`,
          ),
        );
      }
      return pending;
    },
    close: () => mf.dispose(),
  };
}
