/**
 * Runs SQL against the `DB` binding through `wrangler d1 execute`, locally or remotely. The CLI
 * takes no bound parameters, so callers validate every value and quote strings with `sqlString`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RawStatement } from "../../src/db/queries/compliance";
import { runWrangler } from "./local-d1";
import { REPO_ROOT } from "./repo-root";

export interface D1Target {
  remote: boolean;
  /** Local state directory (wrangler's `--persist-to`); ignored with `remote`. */
  persistTo?: string;
}

/** The result rows of every statement, in order. */
export function d1Execute<Row = Record<string, unknown>>(sql: string, target: D1Target): Row[] {
  const args = ["d1", "execute", "DB", target.remote ? "--remote" : "--local", "--json", "--command", sql];
  if (!target.remote && target.persistTo) args.push("--persist-to", target.persistTo);
  const out = runWrangler(args, { captureStdout: true });
  const results = JSON.parse(out) as { results?: Row[]; success: boolean }[];
  if (results.some((r) => !r.success)) throw new Error(`wrangler d1 execute reported a failure: ${out}`);
  return results.flatMap((r) => r.results ?? []);
}

/** A SQL string literal. Control characters are refused rather than escaped: no caller needs them. */
export function sqlString(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error("Control characters are not allowed in SQL values here.");
  return `'${value.replaceAll("'", "''")}'`;
}

const sqlValue = (value: string | number) => (typeof value === "number" ? String(value) : sqlString(value));

/** `?` placeholders filled with literals: the wrangler CLI takes no bound parameters. */
export function inline(statement: RawStatement): string {
  let i = 0;
  return `${statement.sql.replace(/\?/g, () => sqlValue(statement.params[i++]))};`;
}

/** Runs statements in order from one SQL file under .wrangler/ (`name`): a large load in one wrangler call. */
function d1ExecuteStatements(statements: readonly RawStatement[], name: string, target: D1Target): void {
  const sqlFile = path.join(REPO_ROOT, ".wrangler", name);
  mkdirSync(path.dirname(sqlFile), { recursive: true });
  writeFileSync(sqlFile, `${statements.map(inline).join("\n")}\n`);
  const args = ["d1", "execute", "DB", target.remote ? "--remote" : "--local", "--file", path.relative(REPO_ROOT, sqlFile)];
  if (!target.remote && target.persistTo) args.push("--persist-to", target.persistTo);
  if (target.remote) args.push("--yes");
  runWrangler(args, { captureStdout: true });
}

/**
 * A database a load script reads and writes: through the wrangler CLI (`wranglerD1`, local or
 * remote, one process per call) or in-process on the local state (`openLocalD1`, scripts/lib/miniflare-d1.ts).
 */
export interface D1Runner {
  query<Row = Record<string, unknown>>(sql: string): Promise<Row[]>;
  /** Statements in order; `name` names the SQL file where one is written. */
  run(statements: readonly RawStatement[], name: string): Promise<void>;
}

export function wranglerD1(target: D1Target): D1Runner {
  return {
    query: async <Row>(sql: string) => d1Execute<Row>(sql, target),
    run: async (statements, name) => d1ExecuteStatements(statements, name, target),
  };
}
