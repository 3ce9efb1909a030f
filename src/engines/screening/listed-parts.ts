/**
 * The name parts of a list as stored with it (`sanctions_name_parts`): each distinct part of the
 * listed individuals' names (primary names and strong aliases, as the index reads them) with the
 * individuals holding it. A check reads them in one round trip, finds the parts close to its
 * entered parts as the whole index would (`closeListedParts`), and loads only the individuals
 * holding those: a close part is exactly what makes a listed name a candidate (docs/compliance.md,
 * "The first check").
 */
import { listedParts } from "./match-rules";
import { initialGroup } from "./names";

/**
 * Characters per stored row. The operator command inlines each row into a statement of its own,
 * and D1 takes statements of at most 100,000 bytes; a part line is letters, digits and spaces.
 */
export const LISTED_PARTS_ROW_CHARS = 20_000;

/** Ends each part's line: printable, since the operator command refuses control characters in the SQL it inlines, and never in a part. */
const LINE_END = ";";

/**
 * One line per part, `PART entNum entNum…;`, packed into rows of at most `rowChars` characters that
 * end at a line's end and hold one initial group's parts, so each row reads alone, their order
 * does not matter, and an isolate reads a group's parts only when a screening first needs them.
 */
export function listedPartsRows(
  list: { entries: readonly { entNum: number; name: string; sdnType: string }[]; aliases: readonly { entNum: number; name: string }[] },
  rowChars = LISTED_PARTS_ROW_CHARS,
): string[] {
  const names = new Map<number, string[]>();
  for (const e of list.entries) if (e.sdnType === "individual") names.set(e.entNum, [e.name]);
  for (const a of list.aliases) names.get(a.entNum)?.push(a.name);
  const holders = new Map<string, number[]>();
  for (const [entNum, listed] of names) {
    for (const part of new Set(listed.flatMap(listedParts))) {
      const held = holders.get(part);
      if (held) held.push(entNum);
      else holders.set(part, [entNum]);
    }
  }
  const byGroup = Map.groupBy(holders, ([part]) => initialGroup(part));
  const rows: string[] = [];
  for (const parts of byGroup.values()) {
    let row = "";
    for (const [part, entNums] of parts) {
      const line = `${part} ${entNums.join(" ")}${LINE_END}`;
      if (row.length > 0 && row.length + line.length > rowChars) {
        rows.push(row);
        row = "";
      }
      row += line;
    }
    rows.push(row);
  }
  return rows;
}

/** The initial group of a stored row's parts. */
export const storedRowGroup = (row: string) => initialGroup(row);

/** Each stored part and its holders (still as text: most parts are never close to anyone's name). */
export function* readListedParts(rows: Iterable<string>): Generator<[part: string, holders: string]> {
  for (const row of rows) {
    let start = 0;
    while (start < row.length) {
      const lineEnd = row.indexOf(LINE_END, start);
      const end = lineEnd < 0 ? row.length : lineEnd;
      const space = row.indexOf(" ", start);
      yield [row.slice(start, space), row.slice(space + 1, end)];
      start = end + 1;
    }
  }
}

/** The entry numbers of a part's holders. */
export const holderEntNums = (holders: string) => holders.split(" ").map(Number);
