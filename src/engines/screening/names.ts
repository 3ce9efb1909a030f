/** Name normalisation and the two similarity measures of OFAC's Sanctions List Search (docs/domain/screening.md#matching-method). */

/**
 * Upper-case Latin letters and single spaces: accents dropped (NFKD), apostrophes removed
 * (O'Brien → OBRIEN), every other non-letter a separator.
 */
export function normaliseName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/['’`]/g, "")
    .replace(/[^A-Z]+/g, " ")
    .trim();
}

/** Letters of a script other than Latin (Cyrillic, Arabic, Hangul, Han…): the screen reads Latin letters only. */
const NON_LATIN_LETTER = /(?![\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}])\p{L}/u;

/** The name fields written (even in part) in another script: screening them would drop those letters and match nothing. */
export function nonLatinNameFields(name: { first_name: string; last_name: string }): ("first_name" | "last_name")[] {
  return (["first_name", "last_name"] as const).filter((field) => NON_LATIN_LETTER.test(name[field]));
}

export function nameParts(name: string): string[] {
  const normalised = normaliseName(name);
  return normalised ? normalised.split(" ") : [];
}

let scratchA = new Uint8Array(64);
let scratchB = new Uint8Array(64);

/** Jaro-Winkler similarity, 0..1: window ⌊max/2⌋−1, common prefix up to 4, p = 0.1. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return a.length === 0 ? 0 : 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  // Scratch flags reused across calls: screening runs thousands of comparisons per request.
  if (la > scratchA.length || lb > scratchB.length) {
    scratchA = new Uint8Array(Math.max(la, scratchA.length * 2));
    scratchB = new Uint8Array(Math.max(lb, scratchB.length * 2));
  }
  const matchedA = scratchA.fill(0, 0, la);
  const matchedB = scratchB.fill(0, 0, lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (!matchedB[j] && a.charCodeAt(i) === b.charCodeAt(j)) {
        matchedA[i] = 1;
        matchedB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (!matchedA[i]) continue;
    while (!matchedB[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const jaro = (matches / la + matches / lb + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

const SOUNDEX_CODES: Record<string, string> = {
  B: "1",
  F: "1",
  P: "1",
  V: "1",
  C: "2",
  G: "2",
  J: "2",
  K: "2",
  Q: "2",
  S: "2",
  X: "2",
  Z: "2",
  D: "3",
  T: "3",
  L: "4",
  M: "5",
  N: "5",
  R: "6",
};

/** American Soundex of one normalised name part: first letter, three digits; H and W do not separate equal codes. */
export function soundex(part: string): string {
  if (part.length === 0) return "";
  let code = part[0];
  let previous = SOUNDEX_CODES[part[0]] ?? "";
  for (let i = 1; i < part.length && code.length < 4; i++) {
    const ch = part[i];
    const digit = SOUNDEX_CODES[ch];
    if (digit) {
      if (digit !== previous) code += digit;
      previous = digit;
    } else if (ch !== "H" && ch !== "W") previous = "";
  }
  return code.padEnd(4, "0");
}

/** Share of Jaro-Winkler kept when two parts do not sound alike (their Soundex digits differ). */
const UNLIKE_SOUND_FACTOR = 0.9;

/**
 * One name part against another: Jaro-Winkler, kept whole when the two sound alike (same Soundex
 * digits; the first letter is left to the caller's grouping, so Qadhafi and Gaddafi sound alike),
 * and reduced otherwise, so that Johnson and John, which only share a prefix, stay apart.
 */
export function partSimilarity(a: string, b: string, soundexA: string, soundexB: string): number {
  const jw = jaroWinkler(a, b);
  return soundexA.slice(1) === soundexB.slice(1) ? jw : jw * UNLIKE_SOUND_FACTOR;
}

/** Sounds that transliteration swaps at the start of a name share a group (Usama/Osama, Qadhafi/Gaddafi). */
const INITIAL_GROUP: Record<string, string> = {
  A: "A",
  E: "A",
  I: "A",
  O: "A",
  U: "A",
  Y: "A",
  C: "K",
  G: "K",
  K: "K",
  Q: "K",
  S: "S",
  Z: "S",
  V: "V",
  W: "V",
};
export const initialGroup = (part: string) => INITIAL_GROUP[part[0]] ?? part[0];
