import { loadConfig } from "../config";
import { sha256Hex } from "../credentials/tokens";
import { type Database, getDb } from "../db/client";
import { getListInForce, renewListInForce, writeSanctionsList } from "../db/queries/compliance";
import type { VersionBasis } from "../engines/screening/decision";
import { planSanctionsLoad, sanctionsListId } from "../engines/screening/list-load";
import {
  checkPublication,
  OfacFormatError,
  type ParsedSanctionsList,
  parsePublishInformation,
  parseSanctionsList,
} from "../engines/screening/ofac-csv";
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
 * Puts a parsed list in force, or, when the same files are in force already, renews its load.
 * `version` is the date its publisher gave it (never the day it was copied). Throws (leaving the
 * list in force untouched) when the files do not parse or look truncated.
 */
export async function loadSanctionsList(
  db: Database,
  files: SanctionsFiles,
  meta: { version: string; versionBasis: VersionBasis; source: string; now: Date },
): Promise<LoadOutcome> {
  const list = parseSanctionsList(files);
  const contentHash = await sanctionsContentHash(files);
  const current = await getListInForce(db);
  const loadedAt = meta.now.toISOString();
  const label = { version: meta.version, versionBasis: meta.versionBasis };
  if (current && planSanctionsLoad(current, { contentHash, entryCount: list.entries.length }) === "renew") {
    await renewListInForce(db, list, current.id, { loadedAt, source: meta.source, ...label });
    return { outcome: "renewed" };
  }
  await writeSanctionsList(db, list, { id: sanctionsListId(contentHash), ...label, source: meta.source, contentHash, loadedAt });
  return { outcome: "loaded", list };
}

async function download(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return response.text();
}

/** SDN.XML runs to tens of megabytes; its header is in the first few hundred bytes. */
const PUBLICATION_HEAD_BYTES = 16_384;

/** OFAC's statement of the publication: SDN.XML read only as far as its `publshInformation` header. */
async function downloadPublication(url: string) {
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let head = "";
  while (head.length < PUBLICATION_HEAD_BYTES && !head.includes("</publshInformation>")) {
    const { value, done } = await reader.read();
    if (done) break;
    head += value;
  }
  await reader.cancel();
  const publication = parsePublishInformation(head);
  if (!publication) throw new OfacFormatError(`${url} states no Publish_Date: the list's date is unknown, so it is not loaded`);
  return publication;
}

/**
 * The daily refresh (cron "30 4 * * *"): downloads OFAC's three CSV files and the header of the same
 * publication's SDN.XML, whose `Publish_Date` is the list's version, and loads them. Any failure
 * (download, status, no date, parse, files of two publications, truncation) is thrown for the
 * scheduler to log, and the last good list stays in force; screening refuses it once it is too old.
 */
export async function refreshSanctionsList(env: Env, now: Date): Promise<void> {
  const { ofacUrls } = loadConfig(env);
  const [publication, sdn, alt, comments] = await Promise.all([
    downloadPublication(ofacUrls.publication),
    download(ofacUrls.sdn),
    download(ofacUrls.alt),
    download(ofacUrls.comments),
  ]);
  const files = { sdn, alt, comments };
  checkPublication(parseSanctionsList(files), publication);
  const { version } = publication;
  const result = await loadSanctionsList(getDb(env.DB), files, { version, versionBasis: "published", source: ofacUrls.sdn, now });
  logEvent("info", {
    event: "sanctions_list_refreshed",
    outcome: result.outcome,
    version,
    ...(result.outcome === "loaded"
      ? { entries: result.list.entries.length, aliases: result.list.aliases.length, dobs: result.list.dobs.length }
      : {}),
  });
}
