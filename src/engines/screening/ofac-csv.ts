/**
 * OFAC's legacy CSV files (sdn.csv, alt.csv, sdn_comments.csv; docs/compliance.md#the-sanctions-list): no header row,
 * comma-separated, text in double quotes, null written `-0-`, records ending CR LF (CR alone in the
 * spec), the file possibly closed by a 0x1A byte. Pure (Papa Parse is a pure package), so the
 * operator command (Node) and the scheduled refresh (Worker) parse alike.
 */
import Papa from "papaparse";

export type DobPrecision = "day" | "month" | "year";

/** A date of birth from an entry's remarks, as an inclusive range of days. */
export interface SanctionsDob {
  entNum: number;
  /** As written after "DOB", e.g. `12 Jan 1982`, `circa 1960`, `1960 to 1962`. */
  text: string;
  from: string;
  to: string;
  precision: DobPrecision;
  circa: boolean;
}

interface SanctionsEntry {
  entNum: number;
  name: string;
  /** `individual`, `vessel`, `aircraft`, or `entity` (OFAC writes `-0-` for entities). */
  sdnType: string;
  programs: string;
}

interface SanctionsAlias {
  entNum: number;
  altNum: number;
  /** `aka`, `fka` or `nka`. alt.csv holds the strong aliases; weak ones live in the remarks and are not screened (FAQ 122–124). */
  altType: string;
  name: string;
}

export interface ParsedSanctionsList {
  entries: SanctionsEntry[];
  aliases: SanctionsAlias[];
  dobs: SanctionsDob[];
}

export class OfacFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OfacFormatError";
  }
}

const NULL_FIELD = "-0-";
/** The DOS end-of-file byte OFAC may close a file with. */
const END_OF_FILE = "\u001a";

const withoutEndOfFile = (text: string) => {
  const end = text.lastIndexOf(END_OF_FILE);
  return end >= 0 && text.slice(end + 1).trim() === "" ? text.slice(0, end) : text;
};

/**
 * Records of one file, each a list of fields (`-0-`, written with a trailing space, read as null).
 * Papa Parse handles quotes holding commas, doubled quotes and line breaks, and detects the line ending.
 */
export function parseOfacCsv(text: string): (string | null)[][] {
  const { data, errors } = Papa.parse<string[]>(withoutEndOfFile(text), { delimiter: ",", skipEmptyLines: "greedy" });
  if (errors.length > 0) throw new OfacFormatError(`${errors[0].message} (record ${(errors[0].row ?? 0) + 1})`);
  return data.map((fields) => fields.map((field) => (field.trim() === NULL_FIELD ? null : field)));
}

const MONTHS: Record<string, number> = { Jan: 1, Feb: 2, Mar: 3, Apr: 4, May: 5, Jun: 6, Jul: 7, Aug: 8, Sep: 9, Oct: 10, Nov: 11, Dec: 12 };
const pad = (n: number) => String(n).padStart(2, "0");
const lastDayOf = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

interface DatePoint {
  from: string;
  to: string;
  precision: DobPrecision;
}

/** `12 Jan 1982`, `Jan 1982` or `1982` as the range of days it covers. */
function parseDatePoint(text: string): DatePoint | null {
  const match = /^(?:(\d{1,2}) )?(?:([A-Z][a-z]{2}) )?(\d{4})$/.exec(text.trim());
  if (!match) return null;
  const [, day, monthName, yearText] = match;
  const year = Number(yearText);
  if (monthName === undefined) {
    if (day !== undefined) return null;
    return { from: `${year}-01-01`, to: `${year}-12-31`, precision: "year" };
  }
  const month = MONTHS[monthName];
  if (!month) return null;
  if (day === undefined) return { from: `${year}-${pad(month)}-01`, to: `${year}-${pad(month)}-${pad(lastDayOf(year, month))}`, precision: "month" };
  const d = Number(day);
  if (d < 1 || d > lastDayOf(year, month)) return null;
  const date = `${year}-${pad(month)}-${pad(d)}`;
  return { from: date, to: date, precision: "day" };
}

const PRECISION_RANK: Record<DobPrecision, number> = { day: 0, month: 1, year: 2 };

/** Every `DOB …` and `alt. DOB …` in a remarks text; forms that are not dates are skipped. */
export function parseDobs(entNum: number, remarks: string): SanctionsDob[] {
  const dobs: SanctionsDob[] = [];
  for (const match of remarks.matchAll(/\bDOB ([^;]+?)\.?(?=;|$)/g)) {
    const text = match[1].trim();
    const circa = text.startsWith("circa ");
    const [first, second] = text.replace(/^circa /, "").split(" to ");
    const start = parseDatePoint(first);
    const end = second === undefined ? start : parseDatePoint(second);
    if (!start || !end) continue;
    const precision = PRECISION_RANK[start.precision] >= PRECISION_RANK[end.precision] ? start.precision : end.precision;
    dobs.push({ entNum, text, from: start.from, to: end.to, precision: second === undefined ? precision : "year", circa });
  }
  return dobs;
}

function entNumOf(value: string | null, file: string): number {
  const n = Number(value);
  if (!value || !Number.isInteger(n) || n <= 0) throw new OfacFormatError(`${file}: a record without a numeric ent_num`);
  return n;
}

/**
 * The three files that screening needs, parsed and cross-checked. add.csv is not read: the request
 * carries no address to compare with (the ZIP is checked against the USPS table instead).
 */
export function parseSanctionsList(files: { sdn: string; alt: string; comments: string }): ParsedSanctionsList {
  const remarksOverflow = new Map<number, string>();
  for (const record of parseOfacCsv(files.comments)) {
    remarksOverflow.set(entNumOf(record[0], "sdn_comments.csv"), record[1] ?? "");
  }

  const entries: SanctionsEntry[] = [];
  const dobs: SanctionsDob[] = [];
  for (const record of parseOfacCsv(files.sdn)) {
    if (record.length !== 12) throw new OfacFormatError(`sdn.csv: a record with ${record.length} fields instead of 12`);
    const entNum = entNumOf(record[0], "sdn.csv");
    const name = record[1];
    if (!name) throw new OfacFormatError(`sdn.csv: entry ${entNum} has no name`);
    const remarks = (record[11] ?? "") + (remarksOverflow.get(entNum) ?? "");
    entries.push({ entNum, name, sdnType: record[2] ?? "entity", programs: record[3] ?? "" });
    dobs.push(...parseDobs(entNum, remarks));
  }
  if (entries.length === 0) throw new OfacFormatError("sdn.csv holds no entries");

  const known = new Set(entries.map((e) => e.entNum));
  const aliases: SanctionsAlias[] = [];
  for (const record of parseOfacCsv(files.alt)) {
    if (record.length !== 5) throw new OfacFormatError(`alt.csv: a record with ${record.length} fields instead of 5`);
    const entNum = entNumOf(record[0], "alt.csv");
    const name = record[3];
    if (!known.has(entNum) || !name) continue;
    aliases.push({ entNum, altNum: entNumOf(record[1], "alt.csv"), altType: record[2] ?? "aka", name });
  }
  return { entries, aliases, dobs };
}

/** What OFAC states of a publication (docs/domain/screening.md#list-age): its date and how many entries it holds. */
export interface OfacPublication {
  /** `Publish_Date`, as YYYY-MM-DD. */
  version: string;
  recordCount: number;
}

/**
 * OFAC's CSV files carry no date; the same publication's SDN.XML opens with it:
 * `<publshInformation><Publish_Date>MM/DD/YYYY</Publish_Date><Record_Count>N</Record_Count>`
 * (OFAC's spelling). `head` is the start of that file; null when it holds no such header.
 */
export function parsePublishInformation(head: string): OfacPublication | null {
  const info = /<publshInformation>([\s\S]*?)<\/publshInformation>/.exec(head)?.[1];
  const date = info && /<Publish_Date>\s*(\d{2})\/(\d{2})\/(\d{4})\s*<\/Publish_Date>/.exec(info);
  const count = info && /<Record_Count>\s*(\d+)\s*<\/Record_Count>/.exec(info);
  if (!date || !count) return null;
  const [, month, day, year] = date;
  const version = `${year}-${month}-${day}`;
  if (Number.isNaN(Date.parse(version)) || new Date(version).toISOString().slice(0, 10) !== version) return null;
  return { version, recordCount: Number(count[1]) };
}

/** The CSV files and the date must be one publication: SDN.XML's record count is sdn.csv's row count. */
export function checkPublication(list: ParsedSanctionsList, publication: OfacPublication): void {
  if (publication.recordCount !== list.entries.length) {
    throw new OfacFormatError(
      `SDN.XML of ${publication.version} states ${publication.recordCount} entries, sdn.csv holds ${list.entries.length}: a truncated file, or files of two publications`,
    );
  }
}

/**
 * A list's version as an operator states it (a VERSION file beside the files, or `--version`):
 * `YYYY-MM-DD`, OFAC's date, optionally followed by `upper_bound` when the copy kept no date and
 * that is the latest its data allows (docs/domain/screening.md#list-age). Null when malformed.
 */
export function parseListVersion(text: string): { version: string; versionBasis: "published" | "upper_bound" } | null {
  const match = /^(\d{4}-\d{2}-\d{2})(?:\s+(published|upper_bound))?$/.exec(text.trim());
  if (!match || Number.isNaN(Date.parse(match[1]))) return null;
  return { version: match[1], versionBasis: (match[2] as "published" | "upper_bound" | undefined) ?? "published" };
}
