/**
 * Runs SQL against the `DB` binding through `wrangler d1 execute`, locally or remotely. The CLI
 * takes no bound parameters, so callers validate every value and quote strings with `sqlString`.
 */
import { runWrangler } from "./local-d1";

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
