/**
 * Reconditioning estimate from the condition notes (a keyword table, docs/domain/appraisal.md#recon-keywords)
 * and what a vision model saw in the photos, priced from the organization's recon table.
 */
import type { ReconItem, ReconKeyword, VisionFinding } from "./types";

interface ReconLine {
  itemKey: string;
  count: number;
  amount: number;
  sources: ("notes" | "photos" | "standard")[];
}

/** A condition the notes name that takes the unit to wholesale instead of a retail line. */
interface WholesaleCondition {
  itemKey: string;
  label: string;
  discountPct: number;
  /** A title or odometer brand: the mileage earns no bonus. */
  noMileageBonus: boolean;
  /** Why, in the words of its source (the law a brand invokes). */
  reason: string;
}

export interface ReconEstimate {
  lines: ReconLine[];
  total: number;
  /** Frame, flood, title brand, airbag: the unit is appraised to wholesale (docs/domain/appraisal.md#appraise-to-wholesale). */
  wholesale: WholesaleCondition[];
  /** What the notes name that no recon row prices, in the notes' own words. */
  notPriced: string[];
  /** The notes' clauses that named each item. */
  said: Map<string, string[]>;
  /** False when a title or odometer brand is named: the odometer earns no bonus (docs/domain/appraisal.md#title-and-odometer-brands). */
  odometerTrusted: boolean;
}

/** A clause with one of these words says the item is absent: "no dings", "non-smoker", "smoke-free". */
const NEGATORS = new Set(["no", "not", "never", "without", "non", "none", "zero", "free", "nothing"]);
/** …or, next to the keyword, fine: "new tires", "brakes recently replaced", "normal wear and tear" — unless the clause says something is due. */
const ALREADY_DONE = new Set(["normal", "new", "newer", "replaced", "fixed", "repaired", "fresh", "good", "great", "excellent", "perfect"]);
const STILL_DUE = new Set(["need", "needs", "needed", "due", "worn", "bald", "low", "soon", "should", "will"]);
/** Words a list continues with: "no rips, stains or tears" keeps the "no" across the commas. */
const CONNECTORS = new Set(["or", "nor", "and", "any", "&"]);
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  two: 2,
  pair: 2,
  couple: 2,
  three: 3,
  few: 3,
  several: 3,
  multiple: 3,
  some: 2,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  many: 5,
  numerous: 5,
  lots: 5,
};

const tokenize = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9&]+/g, " ")
    .trim()
    .split(" ")
    .filter(Boolean);

/** Sentences: a panel-priced repair (hail) counts the panels its sentence lists, across the commas. */
const sentences = (notes: string) => notes.split(/[.;!?\n\r]+/);

/** Panels a hail repair is priced by (docs/domain/appraisal.md#hail); "whole car" is every panel. */
const PANEL_WORDS = ["hood", "roof", "trunk", "decklid", "deck lid", "tailgate", "liftgate", "hatch", "door", "fender", "quarter", "pillar", "rail"];
const EVERY_PANEL = /\b(whole car|entire car|every panel|all panels|all over)\b/;

function panelsNamed(sentence: string, maxCount: number): number {
  const text = ` ${tokenize(sentence).join(" ")} `;
  if (EVERY_PANEL.test(text)) return maxCount;
  return PANEL_WORDS.filter((word) => new RegExp(`\\b${word}s?\\b`).test(text)).length;
}

/** Both axles: "front and rear", "all around", "all four", "both axles". */
const BOTH_AXLES = /\b(all around|all four|both axles|4 wheel|four wheel)\b/;
const bothAxles = (tokens: string[]) => (tokens.includes("front") && tokens.includes("rear")) || BOTH_AXLES.test(tokens.join(" "));

/** Comma parts, also split where a new claim starts ("but", "except"). */
function clauses(sentence: string): string[][] {
  return sentence
    .split(/[,]+|\b(?:but|however|although|though|except|besides)\b/i)
    .map(tokenize)
    .filter((tokens) => tokens.length > 0);
}

/** Keywords match at the start of a word ("ding" → "dings"); short ones (cel, rim) only whole or plural. */
const SHORT_WORD = 3;
const wordMatches = (token: string, part: string) =>
  part.length <= SHORT_WORD
    ? token === part || (token.length === part.length + 1 && token.endsWith("s") && token.startsWith(part))
    : token.startsWith(part);

/** A phrase's later words may sit a few words on: "transmission is slipping", "smoke coming from the exhaust". */
const PHRASE_GAP = 3;

/** Where `keyword` matched from `at` ends (exclusive), or -1. */
function matchEnd(tokens: string[], at: number, keyword: string[]): number {
  if (!wordMatches(tokens[at], keyword[0])) return -1;
  let end = at + 1;
  for (const part of keyword.slice(1)) {
    const window = tokens.slice(end, end + PHRASE_GAP + 1);
    const offset = window.findIndex((token) => wordMatches(token, part));
    if (offset < 0) return -1;
    end += offset + 1;
  }
  return end;
}

interface ClauseMatch {
  itemKey: string;
  at: number;
  length: number;
  weak: boolean;
  part: boolean;
}

/**
 * One damage, one line (docs/domain/appraisal.md#one-damage-one-line), within one clause:
 * a weak damage word (scratch, crack) takes the item of the part it is on ("bed liner scratches",
 * "cracked bumper"), else yields to another item's word; a part word names where, so it yields to
 * another item's damage ("dent on the bumper" is the dent); a line whose `included_in` item is
 * named by damage in the same clause is part of that repair ("dent with broken paint" is paint).
 */
function resolveClause(matches: ClauseMatch[], includedIn: ReadonlyMap<string, readonly string[]>): ClauseMatch[] {
  const parts = matches.filter((m) => m.part);
  const nearestPart = (m: ClauseMatch) =>
    parts.reduce<ClauseMatch | undefined>((best, p) => (best && Math.abs(best.at - m.at) <= Math.abs(p.at - m.at) ? best : p), undefined);
  const adopted = matches.map((m) => {
    const part = m.weak ? nearestPart(m) : undefined;
    return part ? { ...m, itemKey: part.itemKey, weak: false } : m;
  });
  // Inclusion first: "a ding and a scratch on the door" is one paint repair, the scratch included.
  const namedDamage = new Set(adopted.filter((m) => !m.part).map((m) => m.itemKey));
  const standing = adopted.filter((m) => !(includedIn.get(m.itemKey) ?? []).some((item) => namedDamage.has(item)));
  const damageItems = new Set(standing.filter((m) => !m.weak && !m.part).map((m) => m.itemKey));
  const anchorItems = new Set(standing.filter((m) => !m.weak).map((m) => m.itemKey));
  const others = (items: Set<string>, itemKey: string) => [...items].some((item) => item !== itemKey);
  return standing.filter((m) => !(m.weak && others(anchorItems, m.itemKey)) && !(m.part && others(damageItems, m.itemKey)));
}

/** Words that can count what follows a keyword too ("curb rash on two wheels"); "a" and "some" only count before it. */
const COUNT_AFTER = new Set(["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "couple", "few", "several", "multiple"]);
/** Larger figures next to a keyword are sizes, years or miles, not counts. */
const MAX_FIGURE = 99;

/** An explicit count near the keyword, not across "and"/"or" — "3 small dings", "scratches on 3 panels" — else 1. */
function countNear(tokens: string[], at: number, length: number): number {
  const figure = (token: string) => (/^\d+$/.test(token) && Number(token) <= MAX_FIGURE ? Number(token) : null);
  for (let i = at - 1; i >= Math.max(0, at - 3); i--) {
    if (CONNECTORS.has(tokens[i])) break;
    const count = figure(tokens[i]) ?? NUMBER_WORDS[tokens[i]];
    if (count) return count;
  }
  for (let i = at + length; i < Math.min(tokens.length, at + length + 3); i++) {
    if (CONNECTORS.has(tokens[i])) break;
    const count = figure(tokens[i]) ?? (COUNT_AFTER.has(tokens[i]) ? NUMBER_WORDS[tokens[i]] : undefined);
    if (count) return count;
  }
  return 1;
}

/** Two keywords of one item this close together describe one defect ("brakes squeak", "tires are bald"). */
const SAME_DEFECT_SPAN = 2;

interface CompiledTable {
  table: (ReconKeyword & { tokens: string[] })[];
  keywordTokens: string[];
  /** The rows (indexes into `table`, ascending) whose first word a note's word can match: see `rowsStartingAt`. */
  byFirstWord: Map<string, number[]>;
}

/** A long first word is found by the first letters every word it starts shares; a short one by itself. */
const firstWordKey = (part: string) => (part.length <= SHORT_WORD ? part : part.slice(0, SHORT_WORD + 1));

/** The keyword table tokenized and indexed once per table (an organization's tables are reused across calls). */
const compiledTables = new WeakMap<readonly ReconKeyword[], CompiledTable>();

function compile(keywords: readonly ReconKeyword[]): CompiledTable {
  let compiled = compiledTables.get(keywords);
  if (!compiled) {
    const table = keywords.map((row) => ({ ...row, tokens: tokenize(row.keyword) })).filter((row) => row.tokens.length > 0);
    const byFirstWord = new Map<string, number[]>();
    for (const [i, row] of table.entries()) {
      const key = firstWordKey(row.tokens[0]);
      byFirstWord.set(key, [...(byFirstWord.get(key) ?? []), i]);
    }
    compiled = { table, keywordTokens: [...new Set(table.flatMap((row) => row.tokens))], byFirstWord };
    compiledTables.set(keywords, compiled);
  }
  return compiled;
}

const NONE: readonly number[] = [];

/**
 * The rows, in table order, whose first word may match `token` (`wordMatches` decides): long
 * first words sharing its first letters, and a short one equal to it or to it less a plural "s".
 * Matching every word of the notes against every row was the call's largest cost of its own.
 */
function rowsStartingAt(byFirstWord: Map<string, number[]>, token: string): readonly number[] {
  const long = token.length > SHORT_WORD ? byFirstWord.get(token.slice(0, SHORT_WORD + 1)) : undefined;
  const short = token.length <= SHORT_WORD ? byFirstWord.get(token) : undefined;
  const plural = token.length <= SHORT_WORD + 1 && token.endsWith("s") ? byFirstWord.get(token.slice(0, -1)) : undefined;
  const found = [long, short, plural].filter((rows) => rows !== undefined);
  if (found.length <= 1) return found[0] ?? NONE;
  return found.flat().sort((a, b) => a - b);
}

interface NotesReading {
  /** Line-item counts the notes imply, by item key. */
  counts: Map<string, number>;
  /** The words that named each item, as written ("transmission slips"). */
  words: Map<string, string[]>;
}

/** What the notes imply, by item key; `includedIn` is each item's `included_in` list. */
function reconFromNotes(
  notes: string,
  keywords: readonly ReconKeyword[],
  includedIn: ReadonlyMap<string, readonly string[]> = new Map(),
  units: ReadonlyMap<string, { unit: string; maxCount: number }> = new Map(),
): NotesReading {
  const { table, keywordTokens, byFirstWord } = compile(keywords);
  const counts = new Map<string, number>();
  const words = new Map<string, string[]>();
  for (const sentence of sentences(notes)) {
    const local = new Map<string, number>();
    readSentence(sentence, { table, keywordTokens, byFirstWord }, includedIn, units, local, words);
    // A panel-priced repair counts the panels its sentence names, and includes the lines it lists ("hail …, dozens of dents").
    const panelItems = [...local.keys()].filter((itemKey) => units.get(itemKey)?.unit === "panel");
    for (const [itemKey, count] of local) {
      if ((includedIn.get(itemKey) ?? []).some((item) => panelItems.includes(item))) continue;
      const max = units.get(itemKey)?.maxCount ?? count;
      const n = panelItems.includes(itemKey) ? Math.max(count, Math.min(max, panelsNamed(sentence, max))) : count;
      counts.set(itemKey, (counts.get(itemKey) ?? 0) + n);
    }
  }
  return { counts, words };
}

/**
 * One sentence's clauses into `counts` and `words`. A negation carries across a list's commas
 * ("no rips, stains or tears"), never into the next sentence ("Non-smoker. Salvage title.").
 */
function readSentence(
  sentence: string,
  { table, keywordTokens, byFirstWord }: CompiledTable,
  includedIn: ReadonlyMap<string, readonly string[]>,
  units: ReadonlyMap<string, { unit: string; maxCount: number }>,
  counts: Map<string, number>,
  words: Map<string, string[]>,
): void {
  let previousNegated = false;
  for (const tokens of clauses(sentence)) {
    const found: ClauseMatch[] = [];
    tokens.forEach((token, at) => {
      for (const i of rowsStartingAt(byFirstWord, token)) {
        const row = table[i];
        const end = matchEnd(tokens, at, row.tokens);
        if (end > 0) found.push({ itemKey: row.itemKey, at, length: end - at, weak: row.weak, part: row.part });
      }
    });
    const matches = resolveClause(found, includedIn);
    const onlyListWords = () => tokens.every((t) => CONNECTORS.has(t) || keywordTokens.some((k) => t.startsWith(k)));
    // A negator inside a keyword is the keyword's own ("not actual mileage", "non-running"), not a denial.
    const inKeyword = (i: number) => found.some((m) => i >= m.at && i < m.at + m.length);
    const negated: boolean = tokens.some((t, i) => NEGATORS.has(t) && !inKeyword(i)) || (previousNegated && onlyListWords());
    const due = tokens.some((t) => STILL_DUE.has(t));
    previousNegated = negated;
    if (negated || matches.length === 0) continue;
    // Where an item's damage is named, its parts say where, not how many: "scratch on the rear bumper" is one panel.
    const damagedItems = new Set(matches.filter((m) => !m.part).map((m) => m.itemKey));
    const partsOf = (itemKey: string) => matches.filter((m) => m.part && m.itemKey === itemKey).length;
    const last = new Map<string, { end: number; count: number }>();
    for (const match of matches.sort((a, b) => a.at - b.at)) {
      if (match.part && damagedItems.has(match.itemKey)) continue;
      // The keyword's own words are not its state: "odometer replaced" is the brand, not a repair done.
      const nearby = [...tokens.slice(Math.max(0, match.at - 3), match.at), ...tokens.slice(match.at + match.length, match.at + match.length + 2)];
      if (!due && nearby.some((t) => ALREADY_DONE.has(t))) continue;
      const said = tokens.join(" ");
      if (!words.get(match.itemKey)?.includes(said)) words.set(match.itemKey, [...(words.get(match.itemKey) ?? []), said]);
      // Scratches on two named panels are two panels; brakes "front and rear" are two axles.
      const axles = units.get(match.itemKey)?.unit === "axle" && bothAxles(tokens) ? 2 : 1;
      const count = Math.max(countNear(tokens, match.at, match.length), match.part ? 1 : partsOf(match.itemKey), axles);
      const previous = last.get(match.itemKey);
      const total = counts.get(match.itemKey) ?? 0;
      if (previous && match.at - previous.end <= SAME_DEFECT_SPAN) {
        counts.set(match.itemKey, total - previous.count + Math.max(previous.count, count));
        last.set(match.itemKey, { end: match.at + match.length, count: Math.max(previous.count, count) });
      } else {
        counts.set(match.itemKey, total + count);
        last.set(match.itemKey, { end: match.at + match.length, count });
      }
    }
  }
}

/** Each item's unit and most occurrences, once per table. */
const unitsByTable = new WeakMap<readonly ReconItem[], Map<string, { unit: string; maxCount: number }>>();

function unitsOf(items: readonly ReconItem[]) {
  let units = unitsByTable.get(items);
  if (!units) {
    units = new Map(items.map((item) => [item.itemKey, { unit: item.unit, maxCount: item.maxCount }]));
    unitsByTable.set(items, units);
  }
  return units;
}

/**
 * The keywords as they read on a unit of `retentionClass`: a row of that class replaces the
 * every-unit row of the same keyword ("battery" on a hybrid is the hybrid battery). Once per table and class.
 */
const keywordsByClass = new WeakMap<readonly ReconKeyword[], Map<string, ReconKeyword[]>>();

function keywordsFor(keywords: readonly ReconKeyword[], retentionClass: string): readonly ReconKeyword[] {
  let byClass = keywordsByClass.get(keywords);
  if (!byClass) {
    byClass = new Map();
    keywordsByClass.set(keywords, byClass);
  }
  let rows = byClass.get(retentionClass);
  if (!rows) {
    const own = new Set(keywords.filter((row) => row.retentionClass === retentionClass).map((row) => row.keyword.toLowerCase()));
    rows = keywords.filter((row) =>
      row.retentionClass === "" ? !(retentionClass !== "" && own.has(row.keyword.toLowerCase())) : row.retentionClass === retentionClass,
    );
    byClass.set(retentionClass, rows);
  }
  return rows;
}

/** Each item's `included_in` list, parsed once per table. */
const includedInByTable = new WeakMap<readonly ReconItem[], Map<string, string[]>>();

function includedInOf(items: readonly ReconItem[]) {
  let parsed = includedInByTable.get(items);
  if (!parsed) {
    parsed = new Map(
      items.map((item) => [
        item.itemKey,
        item.includedIn
          .split(",")
          .map((key) => key.trim())
          .filter(Boolean),
      ]),
    );
    includedInByTable.set(items, parsed);
  }
  return parsed;
}

/**
 * Prices the lines: the notes' counts and the photos' findings for the same item are the same
 * damage seen twice, so the larger count stands; items marked `always` (the detail) are added.
 * A wholesale condition (frame, flood, title, airbag) is no line: it is returned for the
 * wholesale appraisal; what the notes name that no row prices is returned by name.
 */
export function estimateRecon(
  notes: string | undefined,
  items: readonly ReconItem[],
  keywords: readonly ReconKeyword[],
  findings: readonly VisionFinding[],
  retentionClass = "",
): ReconEstimate {
  const reading: NotesReading = notes
    ? reconFromNotes(notes, keywordsFor(keywords, retentionClass), includedInOf(items), unitsOf(items))
    : { counts: new Map(), words: new Map() };
  const fromNotes = reading.counts;
  const fromPhotos = new Map(findings.map((f) => [f.itemKey, f.count]));
  const lines: ReconLine[] = [];
  const wholesale: WholesaleCondition[] = [];
  for (const item of items) {
    const notesCount = fromNotes.get(item.itemKey) ?? 0;
    const photosCount = fromPhotos.get(item.itemKey) ?? 0;
    const sources: ReconLine["sources"] = [];
    if (notesCount > 0) sources.push("notes");
    if (photosCount > 0) sources.push("photos");
    if (sources.length === 0 && item.always) sources.push("standard");
    if (sources.length === 0) continue;
    if (item.wholesaleDiscountPct !== null) {
      wholesale.push({
        itemKey: item.itemKey,
        label: item.label,
        discountPct: item.wholesaleDiscountPct,
        noMileageBonus: item.noMileageBonus,
        reason: item.reason,
      });
      continue;
    }
    const count = item.additionalCost === null ? 1 : Math.min(item.maxCount, Math.max(1, notesCount, photosCount));
    const amount = Math.round(item.cost + (count - 1) * (item.additionalCost ?? 0));
    lines.push({ itemKey: item.itemKey, count, amount, sources });
  }
  const priced = new Set(items.map((item) => item.itemKey));
  const notPriced = [...reading.words].filter(([itemKey]) => !priced.has(itemKey)).flatMap(([, said]) => said);
  return {
    lines,
    total: lines.reduce((sum, line) => sum + line.amount, 0),
    wholesale,
    notPriced,
    said: reading.words,
    odometerTrusted: !wholesale.some((condition) => condition.noMileageBonus),
  };
}
