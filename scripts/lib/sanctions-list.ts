/**
 * Loads OFAC's files from a directory into D1 through `wrangler d1 execute --file`, with the same
 * statements and the same renew/truncation rules as the Worker's scheduled refresh.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { sanctionsListLoad } from "../../src/db/queries/compliance";
import type { VersionBasis } from "../../src/engines/screening/decision";
import { planSanctionsLoad, sanctionsListId } from "../../src/engines/screening/list-load";
import { parseListVersion, parseSanctionsList } from "../../src/engines/screening/ofac-csv";
import { type SanctionsFiles, sanctionsContentHash } from "../../src/jobs/refresh-sanctions-list";
import { REPO_ROOT } from "./repo-root";
import { type D1Runner, sqlString } from "./wrangler-d1";

/** The repository's dated copy of the official files (`npm run dev` loads it into an empty database). */
export const DEMO_OFAC_DIR = path.join(REPO_ROOT, "data", "ofac");

const FILES: Record<keyof SanctionsFiles, string> = { sdn: "sdn.csv", alt: "alt.csv", comments: "sdn_comments.csv" };

/** A file as `name` or `name.gz` (either case), decompressed. */
function readOfacFile(dir: string, name: string): string {
  for (const candidate of [name, name.toUpperCase(), `${name}.gz`, `${name.toUpperCase()}.gz`]) {
    const file = path.join(dir, candidate);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    return (candidate.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  }
  throw new Error(`${dir} has no ${name} (or ${name}.gz)`);
}

/**
 * The date the publisher gave the list (docs/domain/screening.md#list-age): `--version` (OFAC's
 * Publish_Date), else the directory's VERSION file, `YYYY-MM-DD` optionally followed by
 * `upper_bound` when the copy kept no date and that is the latest its data allows (data/ofac/README.md).
 * Never the files' dates: they tell when the copy was made.
 */
export function listVersion(dir: string, explicit?: string): { version: string; versionBasis: VersionBasis } {
  const file = path.join(dir, "VERSION");
  const text = explicit ?? (existsSync(file) ? readFileSync(file, "utf8") : null);
  if (text === null) throw new Error(`${dir} has no VERSION file: give OFAC's publication date with --version YYYY-MM-DD`);
  const label = parseListVersion(text);
  if (!label) throw new Error(`the list's version must be its publication date, YYYY-MM-DD [upper_bound] (got "${text.trim()}")`);
  return label;
}

export async function loadSanctionsListFromDir(dir: string, db: D1Runner, options: { version?: string; now?: Date } = {}) {
  const now = options.now ?? new Date();
  const read = (key: keyof SanctionsFiles) => readOfacFile(dir, FILES[key]);
  const files: SanctionsFiles = { sdn: read("sdn"), alt: read("alt"), comments: read("comments") };
  const { version, versionBasis } = listVersion(dir, options.version);
  const list = parseSanctionsList(files);
  const contentHash = await sanctionsContentHash(files);
  const [inForce] = await db.query<{ id: string; content_hash: string; entry_count: number }>(
    "SELECT id, content_hash, entry_count FROM sanctions_lists ORDER BY loaded_at DESC LIMIT 1",
  );
  const loadedAt = now.toISOString();
  const source = `file:${path.basename(path.resolve(dir))}`;
  const counts = { entries: list.entries.length, aliases: list.aliases.length, dobs: list.dobs.length, version, versionBasis };
  if (
    inForce &&
    planSanctionsLoad({ contentHash: inForce.content_hash, entryCount: inForce.entry_count }, { contentHash, entryCount: list.entries.length }) ===
      "renew"
  ) {
    await db.query(
      `UPDATE sanctions_lists SET loaded_at = ${sqlString(loadedAt)}, source = ${sqlString(source)}, version = ${sqlString(version)}, version_basis = ${sqlString(versionBasis)} WHERE id = ${sqlString(inForce.id)}`,
    );
    return { outcome: "renewed" as const, ...counts };
  }
  const { rows, activate } = sanctionsListLoad(list, { id: sanctionsListId(contentHash), version, versionBasis, source, contentHash, loadedAt });
  // Rows first, the list's own row last: if wrangler stops half-way the previous list stays in force.
  await db.run([...rows, ...activate], "ofac-load.sql");
  return { outcome: "loaded" as const, ...counts };
}
