/**
 * What one listed name, once scored, means for the deal: hold, flag or pass, and the rule that
 * says so (docs/domain/screening.md#pass-flag-hold). Each rule's id is its heading's anchor on
 * that page and its reason is the page's sentence.
 */
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
export const isParticle = (part: string) => PARTICLES.has(part);

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
  /** The parts sorted, and both orders without spaces: what an exact name is compared with. */
  sortedKey: string;
  joined: string;
  joinedForward: string;
}

/**
 * "LAST, First Middle" as OFAC writes individuals; an alias without a comma ("ABU ZUBAYDAH") has its
 * last word as surname. Of a surname of several words the first (the paternal one in a Hispanic
 * double surname) is the surname, and so is a word after `de` or a hyphen (a married name:
 * SIEIRO DE NORIEGA, ZELEN-KARADZIC).
 */
export function listedNameParts(listed: string): ListedNameParts {
  const comma = listed.indexOf(",");
  if (comma < 0) {
    const parts = nameParts(listed);
    const last = parts.slice(-1);
    return withExactKeys({
      parts,
      forward: parts,
      surnames: last,
      surnameJoined: last.join(""),
      given: parts.slice(0, -1).filter((p) => !isParticle(p)),
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
  });
}

function withExactKeys(name: Omit<ListedNameParts, "sortedKey" | "joined" | "joinedForward">): ListedNameParts {
  return { ...name, sortedKey: sortedKey(name.parts), joined: name.parts.join(""), joinedForward: name.forward.join("") };
}

/** Two name parts are the same name when their part similarity reaches this (the index's candidate line). */
export const SAME_PART_SIMILARITY = 0.8;

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
  /** A customer part other than the surname's is one of the listed given names. */
  givenName: boolean;
  /** The listed first name is among the customer's other parts. */
  firstName: boolean;
  /** Every customer part (particles aside) is a part of the listed name, and there are at least two. */
  allListedParts: boolean;
}

export function nameCoverage(
  entered: readonly string[],
  listed: ListedNameParts,
  same: SameAsEntered = (i, listedPart) => samePart(entered[i], listedPart),
): NameCoverage {
  const words = entered.map((part, i) => ({ part, i })).filter((w) => !isParticle(w.part));
  // A customer may write the surname as one word ("Alzawahiri") or in two ("Nasr Allah").
  const surnameAt = new Set<number>();
  for (const { i } of words) {
    if (listed.surnames.some((s) => same(i, s)) || same(i, listed.surnameJoined)) surnameAt.add(i);
  }
  for (let i = 0; i + 1 < entered.length; i++) {
    const pair = entered[i] + entered[i + 1];
    if (listed.surnames.includes(pair) || pair === listed.surnameJoined) {
      surnameAt.add(i);
      surnameAt.add(i + 1);
    }
  }
  const others = words.filter((w) => !surnameAt.has(w.i));
  const [first] = listed.given;
  return {
    surname: surnameAt.size > 0,
    givenName: others.some((w) => listed.given.some((g) => same(w.i, g))),
    firstName: first !== undefined && others.some((w) => same(w.i, first)),
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
    reason: "The listed surname and a given name match at or above the flag line and the date of birth does not conflict; not confirmed.",
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
    reason: "Ruled out: only the surname matches; none of the listed given names is in the customer's name.",
  },
  "conflicting-date-of-birth": {
    outcome: "pass",
    reason: "Ruled out: the name is not an exact match and the date of birth is more than a year from every listed one.",
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
 * page's order. `coverage` is asked for only when the name is not exact and reaches the flag line.
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
  if (nameScore < lines.flagScore) return "below-flag-line";
  const coverage = input.coverage();
  if (!coverage.surname) return coverage.allListedParts && input.sameBirthDay ? "partial-name-and-birth-day" : "given-names-only";
  if (!coverage.givenName) return "surname-only";
  if (dob === "conflict") return "conflicting-date-of-birth";
  if (nameScore >= lines.holdScore && coverage.firstName && input.sameBirthDay) return "both-names-and-birth-date";
  return "potential-match";
}
