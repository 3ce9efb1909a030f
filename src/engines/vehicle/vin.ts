/**
 * The VIN as 49 CFR 565 writes it (docs/appraisal.md#vin-decoding): 17 characters, no I, O or Q, a
 * check digit in position 9 computed from the other sixteen, the model year coded in position 10.
 * Pure: a string in, a verdict out.
 */

/** 49 CFR 565.15(c), table II: each letter's value (I, O and Q are never used). */
const TRANSLITERATION: Record<string, number> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
};
/** 49 CFR 565.15(c), table III: the weight of each position (the check digit's own is 0). */
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
/** 49 CFR 565.15(b), table VI: model-year codes in position 10, repeating every 30 years from 1980. */
const YEAR_CODES = "ABCDEFGHJKLMNPRSTVWXY123456789";

export type VinCheck =
  | { ok: true; vin: string }
  | {
      ok: false;
      code: "vin_length" | "vin_character" | "vin_check_digit";
      message: string;
      /** 1-based position of the character at fault, when it can be known. */
      position: number | null;
    };

const charValue = (ch: string) => (/[0-9]/.test(ch) ? Number(ch) : TRANSLITERATION[ch]);

/** The check digit positions 1–8 and 10–17 call for: the weighted sum mod 11, 10 written X. */
export function checkDigitOf(vin: string): string {
  const sum = [...vin].reduce((total, ch, i) => total + charValue(ch) * WEIGHTS[i], 0);
  const remainder = sum % 11;
  return remainder === 10 ? "X" : String(remainder);
}

/**
 * Validates a VIN. A wrong length or a character a VIN never holds names itself; a check digit
 * that does not match can name the character at fault only when it is the check digit itself
 * (any one mistyped character elsewhere changes the sum, so which one cannot be known).
 */
export function checkVin(input: string): VinCheck {
  const vin = input.trim().toUpperCase();
  if (vin.length !== 17) {
    return { ok: false, code: "vin_length", message: `A VIN has 17 characters; this one has ${vin.length}.`, position: null };
  }
  const bad = [...vin].findIndex((ch) => !/[0-9A-Z]/.test(ch) || "IOQ".includes(ch));
  if (bad >= 0) {
    const ch = vin[bad];
    const hint = "IOQ".includes(ch) ? ` (VINs never use I, O or Q: ${ch === "I" ? "1" : "0"} was probably meant)` : "";
    return { ok: false, code: "vin_character", message: `Character ${bad + 1} ("${ch}") cannot appear in a VIN${hint}.`, position: bad + 1 };
  }
  if (!/[0-9X]/.test(vin[8])) {
    return { ok: false, code: "vin_character", message: `Character 9 ("${vin[8]}") is the check digit: a digit or X.`, position: 9 };
  }
  const expected = checkDigitOf(vin);
  if (vin[8] !== expected) {
    return {
      ok: false,
      code: "vin_check_digit",
      message: `The check digit (character 9, "${vin[8]}") does not match the other sixteen characters, which call for "${expected}" (49 CFR 565.15(c)): one character is mistyped, and which one cannot be told from the VIN alone.`,
      position: null,
    };
  }
  return { ok: true, vin };
}

/**
 * The VIN's maker code (WMI, 49 CFR 565.15(a)): characters 1–3; a small manufacturer (under 1,000
 * vehicles a year) has a 9 in character 3 and the rest of its code in characters 12–14.
 */
export const wmiOf = (vin: string) => (vin[2] === "9" ? `${vin.slice(0, 3)}${vin.slice(11, 14)}` : vin.slice(0, 3));

/** The position-10 code of a model year (the table repeats every 30 years). */
export const modelYearCode = (year: number) => YEAR_CODES[(((year - 1980) % 30) + 30) % 30];

/**
 * The model year position 10 codes. The code repeats every 30 years; for cars, MPVs and light
 * trucks a letter in position 7 means 2010–2039, a digit 1980–2009 (49 CFR 565.15(b)); a year past
 * `latestYear` (next year's models) is the earlier cycle, as VINs from before the rule are. Null: not a year code.
 */
export function modelYearOf(vin: string, latestYear: number): number | null {
  const index = YEAR_CODES.indexOf(vin[9]);
  if (index < 0) return null;
  const year = 1980 + index + (/[A-Z]/.test(vin[6]) ? 30 : 0);
  return year > latestYear ? year - 30 : year;
}
