/**
 * Loads OFAC's files from a directory into D1 through `wrangler d1 execute --file`, with the same
 * statements and the same renew/truncation rules as the Worker's scheduled refresh.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { sanctionsListLoad } from "../../src/db/queries/compliance";
import { planSanctionsLoad, sanctionsListId } from "../../src/engines/screening/list-load";
import { parseSanctionsList } from "../../src/engines/screening/ofac-csv";
import { type SanctionsFiles, sanctionsContentHash } from "../../src/jobs/refresh-sanctions-list";
import { REPO_ROOT } from "./repo-root";
import { type D1Target, d1Execute, d1ExecuteStatements, sqlString } from "./wrangler-d1";

/** The repository's dated copy of the official files (`npm run dev` loads it into an empty database). */
export const DEMO_OFAC_DIR = path.join(REPO_ROOT, "data", "ofac");

const FILES: Record<keyof SanctionsFiles, string> = { sdn: "sdn.csv", alt: "alt.csv", comments: "sdn_comments.csv" };

/** A file as `name` or `name.gz` (either case), decompressed. */
function readOfacFile(dir: string, name: string): { text: string; mtime: Date } {
  for (const candidate of [name, name.toUpperCase(), `${name}.gz`, `${name.toUpperCase()}.gz`]) {
    const file = path.join(dir, candidate);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    return { text: (candidate.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8"), mtime: statSync(file).mtime };
  }
  throw new Error(`${dir} has no ${name} (or ${name}.gz)`);
}

/** The publication date: `--version`, else a VERSION file beside the files, else the newest file's date. */
function versionOf(dir: string, explicit: string | undefined, mtimes: Date[]): string {
  const version =
    explicit ??
    (existsSync(path.join(dir, "VERSION"))
      ? readFileSync(path.join(dir, "VERSION"), "utf8").trim()
      : new Date(Math.max(...mtimes.map((d) => d.getTime()))).toISOString().slice(0, 10));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) throw new Error(`the list's version must be its publication date, YYYY-MM-DD (got "${version}")`);
  return version;
}

export async function loadSanctionsListFromDir(dir: string, target: D1Target, options: { version?: string; now?: Date } = {}) {
  const now = options.now ?? new Date();
  const read = Object.fromEntries(Object.entries(FILES).map(([key, name]) => [key, readOfacFile(dir, name)])) as Record<
    keyof SanctionsFiles,
    { text: string; mtime: Date }
  >;
  const files: SanctionsFiles = { sdn: read.sdn.text, alt: read.alt.text, comments: read.comments.text };
  const version = versionOf(
    dir,
    options.version,
    Object.values(read).map((f) => f.mtime),
  );
  const list = parseSanctionsList(files);
  const contentHash = await sanctionsContentHash(files);
  const [inForce] = d1Execute<{ id: string; content_hash: string; entry_count: number }>(
    "SELECT id, content_hash, entry_count FROM sanctions_lists ORDER BY loaded_at DESC LIMIT 1",
    target,
  );
  const loadedAt = now.toISOString();
  const source = `file:${path.basename(path.resolve(dir))}`;
  const counts = { entries: list.entries.length, aliases: list.aliases.length, dobs: list.dobs.length, version };
  if (
    inForce &&
    planSanctionsLoad({ contentHash: inForce.content_hash, entryCount: inForce.entry_count }, { contentHash, entryCount: list.entries.length }) ===
      "renew"
  ) {
    d1Execute(
      `UPDATE sanctions_lists SET loaded_at = ${sqlString(loadedAt)}, source = ${sqlString(source)} WHERE id = ${sqlString(inForce.id)}`,
      target,
    );
    return { outcome: "renewed" as const, ...counts };
  }
  const { rows, activate } = sanctionsListLoad(list, { id: sanctionsListId(contentHash), version, source, contentHash, loadedAt });
  // Rows first, the list's own row last: if wrangler stops half-way the previous list stays in force.
  d1ExecuteStatements([...rows, ...activate], "ofac-load.sql", target);
  return { outcome: "loaded" as const, ...counts };
}
