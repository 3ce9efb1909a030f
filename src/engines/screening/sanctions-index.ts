/**
 * The in-memory index one isolate builds from a loaded list, and the screening of one person
 * against it, as OFAC's Sanctions List Search scores names (docs/domain/screening.md#matching-method, FAQ 249):
 * technique A, Jaro-Winkler on the whole name; technique B, each name part against the list
 * name's parts by Jaro-Winkler and Soundex, averaged over the entered parts; the higher of the two,
 * 0–100. Only individuals, by primary name and strong aliases (alt.csv). The rules of
 * match-rules.ts then decide what the best-scoring listed name means: hold, flag or pass.
 *
 * Speed: the index keeps each distinct name part once, grouped by the sound of its first letter
 * (FAQ 249 filters candidates on the first letter); a screening compares the entered parts with
 * the parts of their group only, then scores in full just the names holding a close part. An
 * isolate's index starts from the list's stored parts alone (`sanctionsIndexOfParts`) and loads an
 * individual when a screening first finds one of its parts close: only those can be candidates.
 */

import { type GivenNameForms, NO_GIVEN_NAME_FORMS } from "./given-name-forms";
import { holderEntNums, readListedParts, storedRowGroup } from "./listed-parts";
import {
  assessDob,
  exactNameTest,
  type ListedNameParts,
  listedNameParts,
  listedParts,
  MATCH_RULES,
  type MatchOutcome,
  type MatchRule,
  nameCoverage,
  ruleOnName,
  type ScoreLines,
  type ScreeningDobRow,
  sameBirthDay,
  samePart,
} from "./match-rules";
import { initialGroup, jaroWinkler, nameParts, partSimilarity, soundex } from "./names";

export type { ScreeningDobRow } from "./match-rules";

export interface ScreeningEntryRow {
  entNum: number;
  name: string;
  sdnType: string;
  programs: string;
}
export interface ScreeningAliasRow {
  entNum: number;
  altType: string;
  name: string;
}
interface IndexedName {
  entNum: number;
  /** As OFAC writes it, e.g. `BIN LADIN, Usama`. */
  listed: string;
  kind: "primary" | "aka" | "fka" | "nka";
  /** Surname first, as `listedNameParts` reads them. */
  parts: string[];
  /** Each part's id in the index's distinct parts. */
  partIds: number[];
  /** How the rules read it, made when the name is first a candidate (most never are: reading every name was most of a build). */
  read?: ReadName;
}

interface ReadName {
  /** Its surname, given names and first name, as the rules read them. */
  reading: ListedNameParts;
  /** Given names first (`USAMA BIN LADIN`), as a customer's name is entered. */
  forward: string;
  /** In list order without the comma (`BIN LADIN USAMA`). */
  reversed: string;
}

interface IndexedEntry {
  name: string;
  programs: string;
  dobs: ScreeningDobRow[];
}

/** A list part at least this close to an entered part makes its names candidates for full scoring. */
const CANDIDATE_PART_SIMILARITY = 0.8;

export interface SanctionsIndex {
  names: IndexedName[];
  entries: Map<number, IndexedEntry>;
  /** Distinct name parts and, per part, the names holding it. */
  parts: string[];
  partIds: Map<string, number>;
  partSoundex: string[];
  postings: number[][];
  groups: Map<string, number[]>;
  /**
   * Per part, its holders as the list stores them (`entNum entNum…`) while the index does not hold
   * them all; a part without (loaded with its holders, or the whole list built) has every posting.
   */
  partHolders: (string | undefined)[];
  /** The list's stored parts (`listedPartsRows`) of the initial groups no screening has needed yet, by group. */
  storedParts: Map<string, string[]>;
  /** Memo of `closeListedParts`, per entered part; it lives and dies with the index (one list). */
  closePartsCache: Map<string, [number, number][]>;
  /** Per year of birth a listed date covers, the names of the entries it belongs to. */
  namesByBirthYear: Map<number, number[]>;
  /** The published nicknames of given names (docs/domain/screening.md#given-name-forms). */
  forms: GivenNameForms;
}

/** OFAC's North Korea programs: their individuals' given names are romanized Korean, one name however spaced. */
const KOREAN_PROGRAMS = /\bDPRK|NKSPEA/;

function readName(index: SanctionsIndex, name: IndexedName): ReadName {
  if (name.read) return name.read;
  const syllabicGivenName = KOREAN_PROGRAMS.test(index.entries.get(name.entNum)?.programs ?? "");
  const reading = listedNameParts(name.listed, { syllabicGivenName });
  name.read = { reading, forward: reading.forward.join(" "), reversed: reading.parts.join(" ") };
  return name.read;
}

const enteredParts = (person: { firstName: string; lastName: string }) => [...nameParts(person.firstName), ...nameParts(person.lastName)];

function emptySanctionsIndex(forms: GivenNameForms = NO_GIVEN_NAME_FORMS): SanctionsIndex {
  return {
    names: [],
    entries: new Map(),
    parts: [],
    partIds: new Map(),
    partSoundex: [],
    postings: [],
    groups: new Map(),
    partHolders: [],
    storedParts: new Map(),
    closePartsCache: new Map(),
    namesByBirthYear: new Map(),
    forms,
  };
}

/** The id of a part, added to the index's parts and its initial group if new. */
function partIdOf(index: SanctionsIndex, part: string): number {
  let id = index.partIds.get(part);
  if (id !== undefined) return id;
  id = index.parts.length;
  index.partIds.set(part, id);
  index.parts.push(part);
  index.partSoundex.push(soundex(part));
  index.postings.push([]);
  const group = initialGroup(part);
  const members = index.groups.get(group);
  if (members) members.push(id);
  else index.groups.set(group, [id]);
  return id;
}

/**
 * An index holding the list's name parts (`listedPartsRows`, as stored with the list) and no
 * individual yet: a screening needs loaded only the holders of the parts close to its own
 * (`missingIndividuals`).
 */
export function sanctionsIndexOfParts(rows: readonly string[], forms: GivenNameForms = NO_GIVEN_NAME_FORMS): SanctionsIndex {
  const index = emptySanctionsIndex(forms);
  index.storedParts = Map.groupBy(rows, storedRowGroup);
  return index;
}

/**
 * Adds the stored parts of a group to the index's parts, each with its holders, when a screening
 * first needs it (reading every group's took a fresh isolate ~35 ms of CPU); a part some loaded
 * individual holds already keeps its id.
 */
function readStoredGroup(index: SanctionsIndex, group: string): void {
  const rows = index.storedParts.get(group);
  if (!rows) return;
  index.storedParts.delete(group);
  for (const [part, holders] of readListedParts(rows)) index.partHolders[partIdOf(index, part)] = holders;
}

/**
 * Adds the individuals of `rows` that the index does not hold yet (each with all its names and
 * dates of birth), and records the parts `complete` as having all their holders: `rows` must hold
 * every one the index lacks (`missingIndividuals`). Adding the same individual twice (two
 * screenings loading at once) keeps the first.
 */
export function addToSanctionsIndex(
  index: SanctionsIndex,
  rows: { entries: ScreeningEntryRow[]; aliases: ScreeningAliasRow[]; dobs: ScreeningDobRow[] },
  complete: readonly number[] = [],
): void {
  const { entries, names } = index;
  const added = new Set<number>();
  for (const e of rows.entries) {
    if (e.sdnType !== "individual" || entries.has(e.entNum)) continue;
    entries.set(e.entNum, { name: e.name, programs: e.programs, dobs: [] });
    added.add(e.entNum);
  }
  for (const dob of rows.dobs) if (added.has(dob.entNum)) entries.get(dob.entNum)?.dobs.push(dob);

  const firstNew = names.length;
  const add = (entNum: number, listed: string, kind: IndexedName["kind"]) => {
    const parts = listedParts(listed);
    if (parts.length > 0) names.push({ entNum, listed, kind, parts, partIds: [] });
  };
  for (const e of rows.entries) if (added.has(e.entNum)) add(e.entNum, e.name, "primary");
  for (const a of rows.aliases) {
    if (added.has(a.entNum)) add(a.entNum, a.name, a.altType === "fka" || a.altType === "nka" ? a.altType : "aka");
  }

  for (let nameId = firstNew; nameId < names.length; nameId++) {
    const name = names[nameId];
    name.partIds = name.parts.map((part) => partIdOf(index, part));
    for (const id of new Set(name.partIds)) index.postings[id].push(nameId);
    const years = new Set<number>();
    for (const dob of entries.get(name.entNum)?.dobs ?? []) {
      for (let year = Number(dob.from.slice(0, 4)); year <= Number(dob.to.slice(0, 4)); year++) years.add(year);
    }
    for (const year of years) {
      const list = index.namesByBirthYear.get(year);
      if (list) list.push(nameId);
      else index.namesByBirthYear.set(year, [nameId]);
    }
  }
  for (const id of complete) index.partHolders[id] = undefined;
}

/** The index of a whole list at once. */
export function buildSanctionsIndex(
  rows: { entries: ScreeningEntryRow[]; aliases: ScreeningAliasRow[]; dobs: ScreeningDobRow[] },
  forms: GivenNameForms = NO_GIVEN_NAME_FORMS,
): SanctionsIndex {
  const index = emptySanctionsIndex(forms);
  addToSanctionsIndex(index, rows);
  return index;
}

/**
 * What this person's screening needs that the index lacks: the parts close to an entered part
 * whose holders it does not all hold, and those holders' entry numbers (to load, then add with
 * `addToSanctionsIndex(index, rows, parts)`).
 */
export function missingIndividuals(index: SanctionsIndex, person: { firstName: string; lastName: string }): { parts: number[]; entNums: number[] } {
  const parts = new Set<number>();
  const entNums = new Set<number>();
  for (const part of enteredParts(person)) {
    for (const [partId] of closeListedParts(index, part, soundex(part))) {
      const holders = index.partHolders[partId];
      if (holders === undefined) continue;
      parts.add(partId);
      for (const entNum of holderEntNums(holders)) if (!index.entries.has(entNum)) entNums.add(entNum);
    }
  }
  return { parts: [...parts], entNums: [...entNums] };
}

const KIND_ORDER: Record<IndexedName["kind"], number> = { primary: 0, aka: 1, fka: 2, nka: 3 };

/** The order of the whole list: primary names before aliases, then by entry, kind and name. */
function listOrder(a: IndexedName, b: IndexedName): number {
  const aliasDelta = Number(a.kind !== "primary") - Number(b.kind !== "primary");
  if (aliasDelta !== 0) return aliasDelta;
  if (a.entNum !== b.entNum) return a.entNum - b.entNum;
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  return a.listed < b.listed ? -1 : a.listed > b.listed ? 1 : 0;
}

export interface SanctionsMatch {
  ent_num: number;
  sdn_name: string;
  matched_name: string;
  matched_as: IndexedName["kind"];
  programs: string[];
  /** The name score, 0–100: the higher of the two techniques. */
  score: number;
  name_score: number;
  full_name_score: number;
  name_parts_score: number;
  dob: ReturnType<typeof assessDob>;
  /** What this listed name means for the deal, the rule that decides it (an anchor of docs/domain/screening.md) and why. */
  outcome: MatchOutcome;
  rule: MatchRule;
  reason: string;
}

const OUTCOME_RANK: Record<MatchOutcome, number> = { pass: 0, flag: 1, hold: 2 };

/** A listed name decides instead of the best so far when its rule goes further, or as far with a higher score. */
function beats(outcome: MatchOutcome, score: number, best: SanctionsMatch): boolean {
  const rankDelta = OUTCOME_RANK[outcome] - OUTCOME_RANK[best.outcome];
  return rankDelta > 0 || (rankDelta === 0 && score > best.score);
}

function bitCount(bits: number): number {
  let n = 0;
  for (let b = bits; b !== 0; b &= b - 1) n++;
  return n;
}

const round1 = (x: number) => Math.round(x * 1000) / 10;

/**
 * Share of technique B that comes from the entered parts (each against its closest listed part);
 * the rest is how much of the listed name they cover, so an entered name that matches two of a
 * listed name's four parts scores below one that matches all of them.
 */
const ENTERED_PARTS_WEIGHT = 0.8;

/**
 * Technique A: Jaro-Winkler of the whole names, less half the share by which their lengths differ.
 * Its prefix bonus alone would make "MARIA GARCIA" look like "MARIA GILMAN FRANCO"; technique B
 * already scores names with extra parts, so A is kept for names of about the same length (one
 * written as two words, or in another order).
 */
function wholeNameSimilarity(a: string, b: string): number {
  return jaroWinkler(a, b) * (1 - (0.5 * Math.abs(a.length - b.length)) / Math.max(a.length, b.length));
}

/**
 * How far technique A may lift technique B. Whole-name Jaro-Winkler rewards a shared first name
 * with its prefix bonus ("DAVID TAYLOR" and "DAVID GOTMAN" score 0.87), so it may add to the part
 * score, for names split or ordered differently, but not stand alone.
 */
const MAX_WHOLE_NAME_LIFT = 0.1;

/** Technique B for one listed name, from the similarities of each entered part to each listed part. */
function namePartsScore(name: IndexedName, enteredCount: number, similarity: (i: number, partId: number) => number): number {
  const listedBest = new Float64Array(name.partIds.length);
  let enteredSum = 0;
  for (let i = 0; i < enteredCount; i++) {
    let top = 0;
    for (let j = 0; j < name.partIds.length; j++) {
      const s = similarity(i, name.partIds[j]);
      if (s > top) top = s;
      if (s > listedBest[j]) listedBest[j] = s;
    }
    enteredSum += top;
  }
  let covered = 0;
  for (const s of listedBest) covered += s;
  return ENTERED_PARTS_WEIGHT * (enteredSum / enteredCount) + (1 - ENTERED_PARTS_WEIGHT) * (covered / name.partIds.length);
}

/** Entered parts whose close listed parts an index remembers; most screenings repeat common given names. */
const CLOSE_PARTS_CACHE_SIZE = 4096;

/** The listed parts of the entered part's initial group at least CANDIDATE_PART_SIMILARITY close, with their similarity. */
function closeListedParts(index: SanctionsIndex, part: string, partSoundex: string): [number, number][] {
  const cached = index.closePartsCache.get(part);
  if (cached) return cached;
  const group = initialGroup(part);
  readStoredGroup(index, group);
  const close: [number, number][] = [];
  for (const partId of index.groups.get(group) ?? []) {
    const s = partSimilarity(part, index.parts[partId], partSoundex, index.partSoundex[partId]);
    if (s >= CANDIDATE_PART_SIMILARITY) close.push([partId, s]);
  }
  if (index.closePartsCache.size >= CLOSE_PARTS_CACHE_SIZE) index.closePartsCache.clear();
  index.closePartsCache.set(part, close);
  return close;
}

/**
 * The listed individual that decides this person's screening: the one whose rule goes furthest
 * (hold, then flag, then pass), the highest name score among equals; null when no name part comes close.
 */
export function screenPerson(
  index: SanctionsIndex,
  person: { firstName: string; lastName: string; dob: string },
  lines: ScoreLines,
): SanctionsMatch | null {
  // Screening without a close part's holders would pass a listed person: refuse instead.
  const missing = missingIndividuals(index, person).parts;
  if (missing.length > 0) throw new Error(`the sanctions index lacks the holders of ${missing.length} listed name parts this screening needs`);
  const entered = enteredParts(person);
  if (entered.length === 0) return null;
  const enteredForward = entered.join(" ");
  const enteredSoundex = entered.map(soundex);

  // Similarity of entered part i to listed part id, computed at most once per screening.
  const memo = entered.map(() => new Map<number, number>());
  const similarity = (i: number, partId: number) => {
    let s = memo[i].get(partId);
    if (s === undefined) {
      s = partSimilarity(entered[i], index.parts[partId], enteredSoundex[i], index.partSoundex[partId]);
      memo[i].set(partId, s);
    }
    return s;
  };

  // Which entered parts (bit i) each listed name comes close on.
  const closeParts = new Uint32Array(index.names.length);
  const touched: number[] = [];
  entered.forEach((part, i) => {
    for (const [partId, s] of closeListedParts(index, part, enteredSoundex[i])) {
      memo[i].set(partId, s);
      for (const nameId of index.postings[partId]) {
        if (closeParts[nameId] === 0) touched.push(nameId);
        closeParts[nameId] |= 1 << i;
      }
    }
  });
  // OFAC FAQ 5: one name of two matching is not a match, so a name must come close on two entered
  // parts, unless its date of birth matches: then the rules weigh a shortened given name beside it.
  const needed = Math.min(2, entered.length);
  const candidates = touched.filter((nameId) => bitCount(closeParts[nameId]) >= needed);
  for (const nameId of index.namesByBirthYear.get(Number(person.dob.slice(0, 4))) ?? []) {
    const bits = bitCount(closeParts[nameId]);
    if (bits >= 1 && bits < needed && assessDob(person.dob, (index.entries.get(index.names[nameId].entNum) as IndexedEntry).dobs) === "match") {
      candidates.push(nameId);
    }
  }

  // Whether entered part i is the same name as a listed part: the same listed parts recur across candidates.
  const sameMemo = entered.map(() => new Map<string, boolean>());
  const same = (i: number, listedPart: string) => {
    let isSame = sameMemo[i].get(listedPart);
    if (isSame === undefined) {
      isSame = samePart(entered[i], listedPart);
      sameMemo[i].set(listedPart, isSame);
    }
    return isSame;
  };

  const isExact = exactNameTest(entered);

  let best: SanctionsMatch | null = null;
  // Best part scores first, so the best so far is found early and most names need no full scoring.
  const ranked = candidates.map((nameId) => ({ nameId, partsScore: namePartsScore(index.names[nameId], entered.length, similarity) }));
  // Equal scores in list order, whatever order the names were loaded in, so the same listed name decides.
  ranked.sort((a, b) => b.partsScore - a.partsScore || listOrder(index.names[a.nameId], index.names[b.nameId]));
  for (const { nameId, partsScore } of ranked) {
    const name = index.names[nameId];
    const { reading, forward, reversed } = readName(index, name);
    const exact = isExact(reading);
    const entry = index.entries.get(name.entNum) as IndexedEntry;
    const facts = {
      exact,
      coverage: () => nameCoverage(entered, reading, same, index.forms),
      dob: assessDob(person.dob, entry.dobs),
      sameBirthDay: sameBirthDay(person.dob, entry.dobs),
      lines,
    };
    // Technique A lifts B by MAX_WHOLE_NAME_LIFT at most, and a higher score never makes a rule
    // go less far: a name whose rule at that ceiling cannot beat the best so far is not scored in full.
    const ceiling = round1(partsScore + MAX_WHOLE_NAME_LIFT);
    if (best && !beats(MATCH_RULES[ruleOnName({ ...facts, nameScore: ceiling })].outcome, ceiling, best)) continue;
    const fullScore = Math.max(wholeNameSimilarity(enteredForward, forward), wholeNameSimilarity(enteredForward, reversed));
    const nameScore = round1(Math.max(partsScore, Math.min(fullScore, partsScore + MAX_WHOLE_NAME_LIFT)));
    const rule = ruleOnName({ ...facts, nameScore });
    const { outcome, reason } = MATCH_RULES[rule];
    if (best && !beats(outcome, nameScore, best)) continue;
    const dob = facts.dob;
    best = {
      ent_num: name.entNum,
      sdn_name: entry.name,
      matched_name: name.listed,
      matched_as: name.kind,
      programs: entry.programs ? entry.programs.split(/\]\s*\[/).map((p) => p.replace(/[[\]]/g, "").trim()) : [],
      score: nameScore,
      name_score: nameScore,
      full_name_score: round1(fullScore),
      name_parts_score: round1(partsScore),
      dob,
      outcome,
      rule,
      reason,
    };
  }
  return best;
}
