import { loadConfig } from "../config";
import { sha256Hex } from "../credentials/tokens";
import { type Database, getDb } from "../db/client";
import { getListInForce, renewListInForce, writeSanctionsList } from "../db/queries/compliance";
import { isoDay } from "../engines/dates";
import { planSanctionsLoad, sanctionsListId } from "../engines/screening/list-load";
import { type ParsedSanctionsList, parseSanctionsList } from "../engines/screening/ofac-csv";
import { logEvent } from "../lib/log";

export interface SanctionsFiles {
  sdn: string;
  alt: string;
  comments: string;
}

/** A download that is cut short: the refresh keeps the list in force rather than wait. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

/** SHA-256 of the three files, so a list loaded twice is recognised. */
export const sanctionsContentHash = (files: SanctionsFiles) => sha256Hex(`${files.sdn}\u0000${files.alt}\u0000${files.comments}`);

export type LoadOutcome = { outcome: "loaded"; list: ParsedSanctionsList } | { outcome: "renewed" };

/**
 * Puts a parsed list in force, or, when the same files are in force already, restarts its age.
 * Throws (leaving the list in force untouched) when the files do not parse or look truncated.
 */
export async function loadSanctionsList(
  db: Database,
  files: SanctionsFiles,
  meta: { version: string; source: string; now: Date },
): Promise<LoadOutcome> {
  const list = parseSanctionsList(files);
  const contentHash = await sanctionsContentHash(files);
  const current = await getListInForce(db);
  const loadedAt = meta.now.toISOString();
  if (current && planSanctionsLoad(current, { contentHash, entryCount: list.entries.length }) === "renew") {
    await renewListInForce(db, current.id, loadedAt, meta.source);
    return { outcome: "renewed" };
  }
  await writeSanctionsList(db, list, { id: sanctionsListId(contentHash), version: meta.version, source: meta.source, contentHash, loadedAt });
  return { outcome: "loaded", list };
}

async function download(url: string): Promise<{ text: string; lastModified: string | null }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return { text: await response.text(), lastModified: response.headers.get("Last-Modified") };
}

/**
 * The daily refresh (cron "30 4 * * *"): downloads OFAC's three files from the configured
 * addresses and loads them. Any failure (download, status, parse, truncation) is thrown for the
 * scheduler to log, and the last good list stays in force; screening flags once it grows too old.
 */
export async function refreshSanctionsList(env: Env, now: Date): Promise<void> {
  const { ofacUrls } = loadConfig(env);
  const [sdn, alt, comments] = await Promise.all([download(ofacUrls.sdn), download(ofacUrls.alt), download(ofacUrls.comments)]);
  // The CSV files carry no date; the publication date is the server's Last-Modified, else today.
  const published = sdn.lastModified ? new Date(sdn.lastModified) : now;
  const version = isoDay(Number.isNaN(published.getTime()) ? now : published);
  const result = await loadSanctionsList(
    getDb(env.DB),
    { sdn: sdn.text, alt: alt.text, comments: comments.text },
    { version, source: ofacUrls.sdn, now },
  );
  logEvent("info", {
    event: "sanctions_list_refreshed",
    outcome: result.outcome,
    version,
    ...(result.outcome === "loaded"
      ? { entries: result.list.entries.length, aliases: result.list.aliases.length, dobs: result.list.dobs.length }
      : {}),
  });
}
