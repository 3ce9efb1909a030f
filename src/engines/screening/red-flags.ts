/**
 * Identity-theft red flags (FTC Red Flags Rule, 16 CFR 681 Supplement A, category 3: suspicious
 * personal identifying information) that a name, date of birth, SSN last four and ZIP allow
 * (docs/domain/screening.md#identity-red-flags), and Safeguards Rule checks on how the request itself handled customer
 * information (16 CFR 314.4(c), docs/compliance.md#safeguards-flags).
 */
import { isoDay } from "../dates";

export interface ScreeningFlag {
  code: string;
  field: string;
  message: string;
}

export interface ScreenedPerson {
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD, a real date. */
  dob: string;
  ssnLast4?: string;
  addressZip?: string;
}

/** What this organization's earlier checks say about the same identifiers (salted hashes only). */
export interface IdentityHistory {
  /** The same SSN last four and date of birth were checked under a different name. */
  ssnDobSeenWithOtherName: boolean;
  /** The same name and ZIP were checked with a different date of birth. */
  nameZipSeenWithOtherDob: boolean;
}

/**
 * Every history a check can meet, indexed by what it shows: bit 0 set when the SSN last four and
 * date of birth were seen under another name, bit 1 when the name and ZIP were seen with another
 * date of birth. The audit insert (src/db/queries/compliance.ts) reads the history and picks the
 * outcome at that index in one statement.
 */
export const IDENTITY_HISTORIES: readonly IdentityHistory[] = [0, 1, 2, 3].map((bits) => ({
  ssnDobSeenWithOtherName: (bits & 1) !== 0,
  nameZipSeenWithOtherDob: (bits & 2) !== 0,
}));

export interface AgeLimits {
  minimumAge: number;
  maximumAge: number;
}

/**
 * The five-digit US ZIP codes that exist: bit n set ⇔ ZIP n (as a number, 0–99999) exists. Built
 * from the `zipcodes` package by scripts/build-zip-table.ts and stored in D1 (`zip_code_sets`),
 * not in the bundle; the caller loads it and passes it in.
 */
export type UsZipSet = Uint8Array;

export function decodeZipSet(bitsBase64: string): UsZipSet {
  return Uint8Array.from(atob(bitsBase64), (c) => c.charCodeAt(0));
}

export function zipExists(usZips: UsZipSet, zip: string): boolean {
  const n = Number(zip);
  return (usZips[n >> 3] & (1 << (n & 7))) !== 0;
}

/** Whole years from a YYYY-MM-DD birth date to `now` (UTC). */
export function ageOn(dob: string, now: Date): number {
  const [y, m, d] = dob.split("-").map(Number);
  const today = [now.getUTCFullYear(), now.getUTCMonth() + 1, now.getUTCDate()];
  return today[0] - y - (today[1] < m || (today[1] === m && today[2] < d) ? 1 : 0);
}

// Letters of any script, combining marks, spaces, hyphens, apostrophes and periods (O'Brien, St. John).
const NAME_CHARACTERS = /^[\p{L}\p{M}][\p{L}\p{M} .'’-]*$/u;

export function identityRedFlags(person: ScreenedPerson, now: Date, ages: AgeLimits, history: IdentityHistory, usZips: UsZipSet): ScreeningFlag[] {
  const flags: ScreeningFlag[] = [];
  for (const [field, value] of [
    ["first_name", person.firstName],
    ["last_name", person.lastName],
  ] as const) {
    if (!NAME_CHARACTERS.test(value.trim())) {
      flags.push({ code: "name_has_digits_or_symbols", field, message: "A name holds digits or symbols that names do not have." });
    }
  }

  const today = isoDay(now);
  const age = ageOn(person.dob, now);
  if (person.dob > today) flags.push({ code: "dob_in_future", field: "dob", message: "The date of birth is in the future." });
  else if (age < ages.minimumAge) {
    flags.push({ code: "dob_under_minimum_age", field: "dob", message: `The date of birth makes the customer younger than ${ages.minimumAge}.` });
  } else if (age > ages.maximumAge) {
    flags.push({ code: "dob_over_maximum_age", field: "dob", message: `The date of birth makes the customer older than ${ages.maximumAge}.` });
  }

  if (person.ssnLast4 === "0000") {
    flags.push({
      code: "ssn_never_issued",
      field: "ssn_last4",
      message: "No Social Security number ends in these four digits: that serial is never issued.",
    });
  }
  if (person.addressZip !== undefined && !zipExists(usZips, person.addressZip)) {
    flags.push({ code: "zip_not_found", field: "address_zip", message: "The ZIP code does not exist." });
  }
  if (history.ssnDobSeenWithOtherName) {
    flags.push({
      code: "ssn_shared_with_other_name",
      field: "ssn_last4",
      message: "This SSN last four and date of birth were screened before under a different name.",
    });
  }
  if (history.nameZipSeenWithOtherDob) {
    flags.push({
      code: "dob_differs_from_file",
      field: "dob",
      message: "This name and ZIP were screened before with a different date of birth.",
    });
  }
  return flags;
}

/**
 * How the request reached us, as far as the Safeguards Rule asks of it. A body field the check does
 * not declare (a full SSN, an email…) never gets this far: the schema refuses it with a 422 naming
 * the field, never its value (docs/domain/screening.md), so nothing of it is read or stored.
 */
export interface RequestHandling {
  encryptedInTransit: boolean;
}

export function safeguardsFlags(handling: RequestHandling): ScreeningFlag[] {
  if (handling.encryptedInTransit) return [];
  return [
    {
      code: "not_encrypted_in_transit",
      field: "request",
      message: "Customer information was sent without TLS; 16 CFR 314.4(c)(3) requires encryption in transit.",
    },
  ];
}
