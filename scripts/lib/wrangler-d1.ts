/**
 * Runs SQL against the `DB` binding through `wrangler d1 execute`, locally or remotely. The CLI
 * takes no bound parameters, so callers validate every value and quote strings with `sqlString`.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

export interface D1Target {
  remote: boolean;
  /** Local state directory (wrangler's `--persist-to`); ignored with `remote`. */
  persistTo?: string;
}

const ROOT = path.resolve(import.meta.dirname, "../..");
// The project's own wrangler, under the Node running this script, whatever is first on PATH.
const WRANGLER_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin/wrangler.js");

/** The result rows of every statement, in order. */
export function d1Execute<Row = Record<string, unknown>>(sql: string, target: D1Target): Row[] {
  const args = [WRANGLER_BIN, "d1", "execute", "DB", target.remote ? "--remote" : "--local", "--json", "--command", sql];
  if (!target.remote && target.persistTo) args.push("--persist-to", target.persistTo);
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const results = JSON.parse(out) as { results?: Row[]; success: boolean }[];
  if (results.some((r) => !r.success)) throw new Error(`wrangler d1 execute reported a failure: ${out}`);
  return results.flatMap((r) => r.results ?? []);
}

/** A SQL string literal. Control characters are refused rather than escaped: no caller needs them. */
export function sqlString(value: string): string {
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error("Control characters are not allowed in SQL values here.");
  return `'${value.replaceAll("'", "''")}'`;
}
