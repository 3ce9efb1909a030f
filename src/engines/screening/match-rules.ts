/**
 * What one listed name, once scored, means for the deal: hold, flag or pass, and the rule that
 * says so (docs/domain/screening.md#pass-flag-hold). Each rule's id is its heading's anchor on
 * that page and its reason is the page's sentence.
 */
import { type GivenNameForms, isGivenNameForm, NO_GIVEN_NAME_FORMS } from "./given-name-forms";
import { initialGroup, nameParts, partSimilarity, soundex } from "./names";
import type { DobPrecision } from "./ofac-csv";

export interface ScreeningDobRow {
  entNum: number;
  from: string;
  to: string;
  precision: DobPrecision;
  circa: boolean;
}

export type DobAssessment = "match" | "near" | "conflict" | "not_listed";

/** Years either side of a listed year that are near, not conflicting (docs/domain/screening.md#date-of-birth). */
export const DOB_NEAR_YEARS = 1;
/** A `circa` year is itself approximate: two years either side are near. */
export const CIRCA_NEAR_YEARS = 2;

/**
 * `match`: the same full date, or inside what the list gives (the same year where it gives only a
 * year, the month, a range); `near`: a year within one of a listed year (two for `circa`), which
 * allows a flag, never a hold; `conflict`: further from every listed date.
 */
export function assessDob(dob: string, listed: readonly ScreeningDobRow[]): DobAssessment {
  if (listed.length === 0) return "not_listed";
  if (listed.some((d) => dob >= d.from && dob <= d.to)) return "match";
  const year = Number(dob.slice(0, 4));
  const near = listed.some((d) => {
    const tolerance = d.circa ? CIRCA_NEAR_YEARS : DOB_NEAR_YEARS;
    return year >= Number(d.from.slice(0, 4)) - tolerance && year <= Number(d.to.slice(0, 4)) + tolerance;
  });
  return near ? "near" : "conflict";
}

/** The same day as a listed date given to the day: the only date close enough to stand beside given names alone. */
export const sameBirthDay = (dob: string, listed: readonly ScreeningDobRow[]) => listed.some((d) => d.precision === "day" && d.from === dob);

/**
 * Words that join or introduce a name rather than name anyone: Arabic al/bin/abu/ould, Spanish and
 * Portuguese de/del/la/y/dos, Dutch and German van/von. They never count as the surname, nor as a
 * given name matching (docs/domain/screening.md#what-the-surname-is).
 */
const PARTICLES = new Set([
  "AL",
  "EL",
  "BIN",
  "BEN",
  "IBN",
  "BINT",
  "ABU",
  "ABOU",
  "ABO",
  "OULD",
  "DE",
  "DEL",
  "DA",
  "DI",
  "DO",
  "DOS",
  "DAS",
  "DU",
  "LA",
  "LAS",
  "LE",
  "LOS",
  "Y",
  "VAN",
  "VON",
  "DER",
  "DEN",
]);
const isParticle = (part: string) => PARTICLES.has(part);

/** A listed name's parts as the rules read them. */
export interface ListedNameParts {
  /** Every part, surname first (`BIN LADIN USAMA`). */
  parts: string[];
  /** Every part, given names first (`USAMA BIN LADIN`), as a customer's name is entered. */
  forward: string[];
  /** The parts that count as the listed surname: any one of them present in the customer's name is enough. */
  surnames: string[];
  /** The whole surname without spaces (`BINLADIN`, `ALZAWAHIRI`), for customers who write it as one word. */
  surnameJoined: string;
  /** The given names, particles left out; the first is the listed first name. */
  given: string[];
  /**
   * The given names as whole names, each its syllables: a hyphenated name (`Su-Kwang`), an Arabic
   * `Abd al-…` compound, or a North Korean given name however OFAC spaces it (`Jong Un`) is one
   * name. The first is the listed first name; the later ones are middle names or patronymics.
   */
  givenNames: string[][];
  /** The parts sorted, and both orders without spaces: what an exact name is compared with. */
  sortedKey: string;
  joined: string;
  joinedForward: string;
}

/** Arabic "servant of" compounds: `Abd al-Baki`, `Abdul Kader` are one name, not two. */
const ABD_PREFIXES = new Set(["ABD", "ABDUL", "ABDEL", "ABDOUL", "ABDOL", "ABDU"]);

/**
 * The given names of a listed name as whole names (see ListedNameParts.givenNames). `syllabic`: the
 * listed person's given name is romanized Korean, whose syllables OFAC sometimes spaces (`KIM, Jong Un`).
 */
function wholeGivenNames(text: string, syllabic: boolean): string[][] {
  const names = text
    .trim()
    .split(/\s+/)
    .map((word) =>
      word
        .split("-")
        .flatMap(nameParts)
        .filter((p) => !isParticle(p)),
    )
    .filter((name) => name.length > 0);
  if (syllabic) return names.length > 0 ? [names.flat()] : [];
  const merged: string[][] = [];
  for (const name of names) {
    const previous = merged.at(-1);
    if (previous && previous.length === 1 && ABD_PREFIXES.has(previous[0])) previous.push(...name);
    else merged.push([...name]);
  }
  return merged;
}

/** A listed name's parts, surname first: `listedNameParts(listed).parts` without the rest of its reading. */
export function listedParts(listed: string): string[] {
  const comma = listed.indexOf(",");
  return comma < 0 ? nameParts(listed) : [...nameParts(listed.slice(0, comma)), ...nameParts(listed.slice(comma + 1))];
}

/**
 * "LAST, First Middle" as OFAC writes individuals; an alias without a comma ("ABU ZUBAYDAH") has its
 * last word as surname. Of a surname of several words the first (the paternal one in a Hispanic
 * double surname) is the surname, and so is a word after `de` or a hyphen (a married name:
 * SIEIRO DE NORIEGA, ZELEN-KARADZIC).
 */
export function listedNameParts(listed: string, options: { syllabicGivenName?: boolean } = {}): ListedNameParts {
  const syllabic = options.syllabicGivenName ?? false;
  const comma = listed.indexOf(",");
  if (comma < 0) {
    const parts = nameParts(listed);
    const last = parts.slice(-1);
    const words = listed.trim().split(/\s+/);
    return withExactKeys({
      parts,
      forward: parts,
      surnames: last,
      surnameJoined: last.join(""),
      given: parts.slice(0, -1).filter((p) => !isParticle(p)),
      givenNames: wholeGivenNames(words.slice(0, -1).join(" "), syllabic),
    });
  }
  const surnameText = listed.slice(0, comma);
  const surnameParts = nameParts(surnameText);
  const given = nameParts(listed.slice(comma + 1));
  const core = surnameParts.filter((p) => !isParticle(p));
  const surnames = new Set(core.slice(0, 1));
  // Words that follow `de`/`del` or a hyphen are a surname of their own.
  const words = surnameText.toUpperCase().split(/(\s+|-)/);
  let after = false;
  for (const word of words) {
    if (word === "-") after = true;
    else if (/^\s+$/.test(word) || word === "") continue;
    else {
      const [part] = nameParts(word);
      if (part && after && !isParticle(part)) surnames.add(part);
      after = part === "DE" || part === "DEL";
    }
  }
  return withExactKeys({
    parts: [...surnameParts, ...given],
    forward: [...given, ...surnameParts],
    surnames: surnames.size > 0 ? [...surnames] : surnameParts.slice(-1),
    surnameJoined: surnameParts.join(""),
    given: given.filter((p) => !isParticle(p)),
    givenNames: wholeGivenNames(listed.slice(comma + 1), syllabic),
  });
}

/**
 * The exact-name keys. In any order means any order of whole names: the syllables of one given name
 * keep theirs ("Kwang Su" is not "Su-Kwang"), so a name of syllables is one word of the sorted key.
 */
function withExactKeys(name: Omit<ListedNameParts, "sortedKey" | "joined" | "joinedForward">): ListedNameParts {
  const words = [...name.parts];
  for (const syllables of name.givenNames.filter((n) => n.length > 1)) {
    for (const syllable of syllables) words.splice(words.lastIndexOf(syllable), 1);
    words.push(syllables.join(""));
  }
  return { ...name, sortedKey: sortedKey(words), joined: name.parts.join(""), joinedForward: name.forward.join("") };
}

/** Two name parts are the same name when their part similarity reaches this (the index's candidate line). */
const SAME_PART_SIMILARITY = 0.8;

export const samePart = (a: string, b: string) =>
  initialGroup(a) === initialGroup(b) && partSimilarity(a, b, soundex(a), soundex(b)) >= SAME_PART_SIMILARITY;

/** Whether entered part `i` is the same name as a listed part; a screening passes a memo of `samePart`. */
export type SameAsEntered = (i: number, listedPart: string) => boolean;

const sortedKey = (parts: readonly string[]) => [...parts].sort().join(" ");

/**
 * The test "every part of the listed name and no other, in any order, or the same letters with the
 * spaces moved ("Binladin")" for one customer's name, against any number of listed names.
 */
export function exactNameTest(entered: readonly string[]): (listed: ListedNameParts) => boolean {
  const key = sortedKey(entered);
  const joined = entered.join("");
  return (listed) => key === listed.sortedKey || joined === listed.joined || joined === listed.joinedForward;
}

/** What the customer's name carries of the listed name, beyond an exact match. */
export interface NameCoverage {
  /** The listed surname (or one of them) is in the customer's name. */
  surname: boolean;
  /** ...letter for letter (no typo or transliteration): what a date of birth may stand beside. */
  exactSurname: boolean;
  /**
   * ...or a spelling of it that sounds the same (Soundex digits equal: Kadyrof, Qasem), not another
   * name spelled close to it (Khalid for Khalil: docs/domain/screening.md#surname-another-name).
   */
  surnameSpelled: boolean;
  /** The listed first name, whole (every syllable of `Su-Kwang`), is among the customer's other parts. */
  firstName: boolean;
  /**
   * A customer part other than the surname's is a form of a listed given name: a nickname or
   * diminutive from the published list, an initial, a shortening, one syllable of a compound
   * first name, or a middle name or patronymic (docs/domain/screening.md#given-name-forms).
   */
  givenForm: boolean;
  /** Every customer part (particles aside) is a part of the listed name, and there are at least two. */
  allListedParts: boolean;
}

export function nameCoverage(
  entered: readonly string[],
  listed: ListedNameParts,
  same: SameAsEntered = (i, listedPart) => samePart(entered[i], listedPart),
  forms: GivenNameForms = NO_GIVEN_NAME_FORMS,
): NameCoverage {
  // A particle joins names ("Garcia y Lopez", "Bashar al-Assad"); first or last it is a name of its
  // own: an initial ("Y. Finyanus") or a nickname ("Al Capone", "Du" for Duran).
  const joins = (part: string, i: number) => isParticle(part) && i > 0 && i < entered.length - 1;
  const words = entered.map((part, i) => ({ part, i })).filter((w) => !joins(w.part, w.i));
  // A customer may write the surname as one word ("Alzawahiri") or in two ("Nasr Allah").
  const isSurname = (word: string) => listed.surnames.includes(word) || word === listed.surnameJoined;
  const exactAt = new Set<number>();
  const closeAt = new Set<number>();
  for (const { part, i } of words) {
    if (isSurname(part)) exactAt.add(i);
    if (listed.surnames.some((s) => same(i, s)) || same(i, listed.surnameJoined)) closeAt.add(i);
  }
  for (let i = 0; i + 1 < entered.length; i++) {
    if (isSurname(entered[i] + entered[i + 1])) exactAt.add(i).add(i + 1);
  }
  const exactSurname = exactAt.size > 0;
  const soundsLike = (word: string, surname: string) => soundex(word).slice(1) === soundex(surname).slice(1);
  const surnameSpelled =
    exactSurname || [...closeAt].some((i) => [...listed.surnames, listed.surnameJoined].some((s) => same(i, s) && soundsLike(entered[i], s)));
  // Where the surname is written exactly, a word only close to it ("Is" beside "Issa") is a given name.
  const surnameAt = exactSurname ? exactAt : closeAt;
  const others = words.filter((w) => !surnameAt.has(w.i));
  const [first = [], ...later] = listed.givenNames;
  const firstJoined = first.join("");
  // The first name whole: its syllables in their order among the customer's other words ("Kwang Su"
  // is another name than Su-Kwang), or all of them written as one word ("Jongun"; exactly, as
  // "Abdullah" is close to "Abdulkader" but another name).
  const firstName =
    first.length > 0 &&
    (others.some((_, k) => first.every((syllable, j) => k + j < others.length && same(others[k + j].i, syllable))) ||
      (first.length > 1 &&
        (others.some((w) => w.part === firstJoined) || others.some((w, k) => k + 1 < others.length && w.part + others[k + 1].part === firstJoined))));
  const givenForm = others.some(
    (w) =>
      first.some((syllable) => same(w.i, syllable)) ||
      later.some((name) => name.some((syllable) => same(w.i, syllable))) ||
      listed.givenNames.some((name) => isGivenNameForm(w.part, name.join(""), forms)),
  );
  return {
    surname: surnameAt.size > 0,
    exactSurname,
    surnameSpelled,
    firstName,
    givenForm,
    allListedParts: words.length >= 2 && words.every((w) => listed.parts.some((p) => same(w.i, p))),
  };
}

export type MatchOutcome = "hold" | "flag" | "pass";

/** The rules, each the anchor of its heading in docs/domain/screening.md and the page's sentence. */
export const MATCH_RULES = {
  "exact-full-name": {
    outcome: "hold",
    reason: "Exact full-name match: every part of the listed name and no other, and the date of birth matches the list (or the list gives none).",
  },
  "both-names-and-birth-date": {
    outcome: "hold",
    reason: "The listed surname and first name match at or above the hold line, and the date of birth is the listed date to the day.",
  },
  "exact-name-near-date-of-birth": {
    outcome: "flag",
    reason: "Exact full-name match, but the date of birth is only within a year of the list's: a near date of birth allows a flag, never a hold.",
  },
  "exact-name-conflicting-date-of-birth": {
    outcome: "flag",
    reason: "Exact full-name match, but the date of birth conflicts with the list's: a person compares everything else before the match is valid.",
  },
  "potential-match": {
    outcome: "flag",
    reason: "The listed surname and the listed first name match at or above the flag line and the date of birth does not conflict; not confirmed.",
  },
  "given-name-form-and-birth-date": {
    outcome: "flag",
    reason:
      "The listed surname matches, the customer's given name is a form of a listed given name (a nickname or diminutive from the published list, an initial, a shortening, one syllable of a compound name, a middle name or patronymic) and the date of birth matches the list: several similarities, reviewed by a person.",
  },
  "surname-and-birth-day": {
    outcome: "flag",
    reason:
      "The listed surname matches and the date of birth is the listed date to the day, whatever the given name: several similarities, reviewed by a person.",
  },
  "partial-name-and-birth-day": {
    outcome: "flag",
    reason:
      "The listed surname is absent, but every part of the customer's name is in the listed name and the date of birth is the listed date to the day: several similarities, reviewed by a person.",
  },
  "given-names-only": {
    outcome: "pass",
    reason: "Ruled out: the match rests on given names alone; the listed surname is absent from the customer's name.",
  },
  "surname-only": {
    outcome: "pass",
    reason:
      "Ruled out: only the surname matches; the listed first name is not in the customer's name, and no matching date of birth stands beside a form of a listed given name.",
  },
  "conflicting-date-of-birth": {
    outcome: "pass",
    reason: "Ruled out: the name is not an exact match and the date of birth is more than a year from every listed one.",
  },
  "surname-another-name": {
    outcome: "pass",
    reason:
      "Ruled out: the word nearest the listed surname is another name spelled close to it (it does not sound the same), and the date of birth is not the listed date to the day: only one name matches.",
  },
  "below-flag-line": {
    outcome: "pass",
    reason: "Below the flag line: the name is not close enough to the listed name.",
  },
} as const satisfies Record<string, { outcome: MatchOutcome; reason: string }>;

export type MatchRule = keyof typeof MATCH_RULES;

export interface ScoreLines {
  holdScore: number;
  flagScore: number;
}

/**
 * The rule that decides one scored listed name (docs/domain/screening.md#pass-flag-hold), in the
 * page's order. `coverage` is asked for only when the name is not exact and reaches the flag line,
 * or when the date of birth matches (the two rules that rest on it stand below the flag line too).
 */
export function ruleOnName(input: {
  nameScore: number;
  exact: boolean;
  coverage: () => NameCoverage;
  dob: DobAssessment;
  sameBirthDay: boolean;
  lines: ScoreLines;
}): MatchRule {
  const { nameScore, dob, lines } = input;
  if (input.exact) {
    if (dob === "conflict") return "exact-name-conflicting-date-of-birth";
    return dob === "near" ? "exact-name-near-date-of-birth" : "exact-full-name";
  }
  // A shortened or partial given name is a match only beside the listed surname and date of birth.
  const birthDateRule = (coverage: NameCoverage): MatchRule | null => {
    if (!coverage.exactSurname) return null;
    // The first name itself below the flag line ("Tar" for Tarik is close, not a nickname) counts as a form.
    if ((coverage.givenForm || coverage.firstName) && dob === "match") return "given-name-form-and-birth-date";
    return input.sameBirthDay ? "surname-and-birth-day" : null;
  };
  if (nameScore < lines.flagScore) return (dob === "match" && birthDateRule(input.coverage())) || "below-flag-line";
  const coverage = input.coverage();
  if (!coverage.surname) return coverage.allListedParts && input.sameBirthDay ? "partial-name-and-birth-day" : "given-names-only";
  // Khalid is not Khalil: another name spelled close to the surname is one more similarity only beside the listed birth day.
  if (!coverage.surnameSpelled && !input.sameBirthDay) return "surname-another-name";
  if (!coverage.firstName) return birthDateRule(coverage) ?? "surname-only";
  if (dob === "conflict") return "conflicting-date-of-birth";
  if (nameScore >= lines.holdScore && input.sameBirthDay) return "both-names-and-birth-date";
  return "potential-match";
}
