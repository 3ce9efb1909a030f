/**
 * Compliance screening's invariants (docs/domain/invariants.md#compliance-screening), over the real
 * SDN list of data/ofac/ and the published nickname list of data/nicknames/, generated customers
 * and dates. Each failed on the code before issue 32 (said in docs/domain/invariants.md).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, isoDay } from "../../../src/engines/dates";
import { decideScreening, listAge, type StaleListMode } from "../../../src/engines/screening/decision";
import { type GivenNameForms, parseGivenNameForms } from "../../../src/engines/screening/given-name-forms";
import { listedPartsRows } from "../../../src/engines/screening/listed-parts";
import { listedNameParts, samePart } from "../../../src/engines/screening/match-rules";
import { initialGroup, partSimilarity, soundex } from "../../../src/engines/screening/names";
import { type ParsedSanctionsList, parseSanctionsList } from "../../../src/engines/screening/ofac-csv";
import { identityRedFlags } from "../../../src/engines/screening/red-flags";
import {
  addToSanctionsIndex,
  buildSanctionsIndex,
  missingIndividuals,
  type SanctionsIndex,
  sanctionsIndexOfParts,
  screenPerson,
} from "../../../src/engines/screening/sanctions-index";
import { commonCustomers } from "../../compliance/common-names";
import { readNicknameCsv, readOfacFiles } from "../../helpers/ofac-files";
import { holds } from "./check";

const LINES = { holdScore: 95, flagScore: 85 };
const NOW = new Date("2026-11-28T15:00:00Z");

let list: ParsedSanctionsList;
let forms: GivenNameForms;
let index: SanctionsIndex;
beforeAll(() => {
  list = parseSanctionsList(readOfacFiles());
  forms = parseGivenNameForms(readNicknameCsv());
  index = buildSanctionsIndex(list, forms);
});

const individuals = () => list.entries.filter((e) => e.sdnType === "individual");
const dobsOf = (entNum: number) => list.dobs.filter((d) => d.entNum === entNum);
const programsOf = (entNum: number) => list.entries.find((e) => e.entNum === entNum)?.programs ?? "";
const KOREAN = /\bDPRK|NKSPEA/;
/** A day inside a listed date of birth (its first day, its last, or one between). */
const dayInside = (from: string, to: string, at: number) =>
  isoDay(Date.parse(from) + Math.floor(at * ((Date.parse(to) - Date.parse(from)) / DAY_MS + 1)) * DAY_MS);

describe("compliance screening invariants", () => {
  it("a listed name with its listed date of birth, the given name replaced by a nickname, initial or shortening of it, is at least flagged", () => {
    // Every listed individual's primary name with a date of birth, and every form of its first name.
    const cases: { first: string; last: string; from: string; to: string }[] = [];
    for (const entry of individuals()) {
      const dobs = dobsOf(entry.entNum);
      const reading = listedNameParts(entry.name, { syllabicGivenName: KOREAN.test(entry.programs) });
      const [first] = reading.givenNames;
      const [surname] = reading.surnames;
      if (dobs.length === 0 || !first || !surname) continue;
      const whole = first.join("");
      const shortForms = new Set([whole[0], ...(whole.length > 3 ? [whole.slice(0, 2), whole.slice(0, 3)] : []), ...(forms.get(whole) ?? [])]);
      for (const form of shortForms) if (form !== surname) cases.push({ first: form, last: surname, from: dobs[0].from, to: dobs[0].to });
    }
    expect(cases.length).toBeGreaterThan(10_000);
    holds(
      fc.property(fc.nat(cases.length - 1), fc.double({ min: 0, max: 0.999, noNaN: true }), (i, at) => {
        const { first, last, from, to } = cases[i];
        const match = screenPerson(index, { firstName: first, lastName: last, dob: dayInside(from, to, at) }, LINES);
        expect(match?.outcome ?? "pass", `${first} ${last}`).not.toBe("pass");
      }),
    );
  });

  it("a customer sharing only one syllable of a listed compound given name, or only a later given name (a patronymic), with the surname, is not flagged on that alone", () => {
    // Listed individuals whose first given name has syllables (Su-Kwang, Jong Un, Abdul Kader) or who have later given names.
    const cases: { entNum: number; word: string; surname: string }[] = [];
    for (const entry of individuals()) {
      const reading = listedNameParts(entry.name, { syllabicGivenName: KOREAN.test(entry.programs) });
      const [first = [], ...later] = reading.givenNames;
      const [surname] = reading.surnames;
      if (!surname || first.length === 0) continue;
      // A syllable of a compound first name, or a later given name that is not itself close to the first name.
      const partial = [...(first.length > 1 ? first : []), ...later.flat()];
      const isFirstName = (word: string) => samePart(word, first.join("")) || first.every((syllable) => samePart(word, syllable));
      for (const word of new Set(partial)) {
        if (word.length > 1 && !samePart(word, surname) && !isFirstName(word)) cases.push({ entNum: entry.entNum, word, surname });
      }
    }
    expect(cases.length).toBeGreaterThan(1_000);
    holds(
      fc.property(fc.nat(cases.length - 1), fc.integer({ min: 1930, max: 2006 }), fc.boolean(), (i, year, reversed) => {
        const { entNum, word, surname } = cases[i];
        const dob = `${year}-06-15`;
        const listedDobs = dobsOf(entNum);
        // "On that alone": the date of birth does not match the list (a matching date is another similarity).
        fc.pre(!listedDobs.some((d) => dob >= d.from && dob <= d.to));
        const one = buildSanctionsIndex({ entries: list.entries.filter((e) => e.entNum === entNum), aliases: [], dobs: listedDobs }, forms);
        const [firstName, lastName] = reversed ? [surname, word] : [word, surname];
        const match = screenPerson(one, { firstName, lastName, dob }, LINES);
        expect(match?.outcome ?? "pass", `${firstName} ${lastName} ${dob} against ${programsOf(entNum)}`).toBe("pass");
      }),
    );
  });

  it("a common name that is not a listed name is never held, whatever the date of birth", () => {
    const isListed = (first: string, last: string) => {
      const match = screenPerson(index, { firstName: first, lastName: last, dob: "1900-01-01" }, LINES);
      return (
        match?.rule === "exact-name-conflicting-date-of-birth" || match?.rule === "exact-name-near-date-of-birth" || match?.rule === "exact-full-name"
      );
    };
    const names = [...new Map(commonCustomers().map((c) => [`${c.firstName} ${c.lastName}`, c])).values()].filter(
      (c) => !isListed(c.firstName, c.lastName),
    );
    holds(
      fc.property(
        fc.constantFrom(...names),
        fc.date({ min: new Date("1926-01-01"), max: new Date("2008-11-28"), noInvalidDate: true }),
        (c, born) => {
          const match = screenPerson(index, { firstName: c.firstName, lastName: c.lastName, dob: isoDay(born) }, LINES);
          expect(match?.outcome, `${c.firstName} ${c.lastName} ${isoDay(born)}`).not.toBe("hold");
        },
      ),
    );
  });

  const anyList = fc.record({
    published: fc.date({ min: new Date("2015-01-01"), max: NOW, noInvalidDate: true }),
    basis: fc.constantFrom("published" as const, "upper_bound" as const),
  });

  it("the reported list age is today minus the publisher's date, in whole days, however long ago it was loaded", () => {
    holds(
      fc.property(
        anyList,
        fc.integer({ min: 1, max: 45 }),
        fc.constantFrom<StaleListMode>("production", "development"),
        ({ published, basis }, max, mode) => {
          const version = isoDay(published);
          const expected = Math.round((Date.parse(isoDay(NOW)) - Date.parse(version)) / DAY_MS);
          expect(listAge({ version, versionBasis: basis }, { maxListAgeDays: max }, NOW, mode).ageDays).toBe(expected);
          const decision = decideScreening({
            list: { loaded: true, version, versionBasis: basis },
            match: null,
            redFlags: [],
            limit: { maxListAgeDays: max },
            now: NOW,
            mode,
          });
          if (decision.refused) expect(decision.ageDays).toBe(expected);
          else expect(decision.list?.ageDays).toBe(expected);
        },
      ),
    );
  });

  it('a list older than the limit never yields "pass" in production', () => {
    const anyOutcome = fc.constantFrom(null, "pass" as const, "flag" as const, "hold" as const);
    holds(
      fc.property(anyList, fc.integer({ min: 1, max: 45 }), anyOutcome, fc.boolean(), ({ published, basis }, max, outcome, redFlag) => {
        const version = isoDay(published);
        fc.pre(listAge({ version, versionBasis: basis }, { maxListAgeDays: max }, NOW, "production").stale);
        const decision = decideScreening({
          list: { loaded: true, version, versionBasis: basis },
          match: outcome === null ? null : ({ outcome } as Parameters<typeof decideScreening>[0]["match"]),
          redFlags: redFlag ? [{ code: "zip_not_found", field: "address_zip", message: "" }] : [],
          limit: { maxListAgeDays: max },
          now: NOW,
          mode: "production",
        });
        if (!decision.refused) {
          expect(decision.result).toBe("hold");
          expect(outcome).toBe("hold");
        }
      }),
    );
  });

  it("screening never echoes the SSN digits or the full date of birth in its answer, warnings or refusals", () => {
    const anyPerson = fc.record({
      name: fc.oneof(
        fc.constantFrom(...commonCustomers().slice(0, 60)),
        fc.constantFrom({ firstName: "Ramzan", lastName: "Kadyrov" }, { firstName: "Nick", lastName: "Maduro" }),
      ),
      born: fc.date({ min: new Date("1900-01-01"), max: new Date("2030-12-31"), noInvalidDate: true }),
      // 0000 is the one serial a red flag speaks of: drawn often, not one time in ten thousand.
      ssn: fc.oneof(fc.constant("0000"), fc.stringMatching(/^\d{4}$/)),
      zip: fc.stringMatching(/^\d{5}$/),
      version: fc.date({ min: new Date("2015-01-01"), max: NOW, noInvalidDate: true }),
      mode: fc.constantFrom<StaleListMode>("production", "development"),
    });
    const noZips = new Uint8Array(100_000 / 8);
    holds(
      fc.property(anyPerson, ({ name, born, ssn, zip, version, mode }) => {
        const dob = isoDay(born);
        const person = { firstName: name.firstName, lastName: name.lastName, dob, ssnLast4: ssn, addressZip: zip };
        const match = screenPerson(index, person, LINES);
        const history = { ssnDobSeenWithOtherName: true, nameZipSeenWithOtherDob: true };
        const redFlags = identityRedFlags(person, NOW, { minimumAge: 18, maximumAge: 110 }, history, noZips);
        const list = { loaded: true as const, version: isoDay(version), versionBasis: "published" as const };
        // The list's own date and age are not the customer's digits, whatever they share.
        fc.pre(!`${list.version} ${listAge(list, { maxListAgeDays: 45 }, NOW, mode).ageDays}`.includes(ssn) && list.version !== dob);
        const decision = decideScreening({ list, match, redFlags, limit: { maxListAgeDays: 45 }, now: NOW, mode });
        // Every text the screening produces (numbers such as an SDN entry number are not the customer's).
        const texts: string[] = [];
        JSON.stringify({ match, redFlags, decision }, (_key, value) => {
          if (typeof value === "string") texts.push(value);
          return value;
        });
        for (const text of texts) {
          expect(text).not.toContain(dob);
          expect(text).not.toContain(ssn);
        }
      }),
    );
  });

  it("screening against an index grown from the list's stored parts by the holders of close parts gives exactly the match of the whole list's index", () => {
    // What a list load stores (in rows small enough that groups span several), and what the query of
    // a check's missing individuals returns.
    const stored = listedPartsRows(list, 2_000);
    const rowsFor = (entNums: readonly number[]) => {
      const wanted = new Set(entNums);
      return {
        entries: list.entries.filter((e) => wanted.has(e.entNum)),
        aliases: list.aliases.filter((a) => wanted.has(a.entNum)),
        dobs: list.dobs.filter((d) => wanted.has(d.entNum)),
      };
    };
    // People near listed names (a name of an individual, a part dropped, a letter changed, the order
    // turned), common customers and strings of letters, born on a listed date or any day.
    const named = individuals().flatMap((e) =>
      [e.name, ...list.aliases.filter((a) => a.entNum === e.entNum).map((a) => a.name)].map((name) => ({ entNum: e.entNum, name })),
    );
    const nearListed = fc
      .record({
        i: fc.nat(named.length - 1),
        drop: fc.nat(4),
        typo: fc.option(fc.record({ at: fc.nat(20), letter: fc.constantFrom(..."AEIKOSUYZ") })),
        reversed: fc.boolean(),
        listedDob: fc.boolean(),
        at: fc.double({ min: 0, max: 0.999, noNaN: true }),
      })
      .map(({ i, drop, typo, reversed, listedDob, at }) => {
        const parts = listedNameParts(named[i].name).forward.filter((_, k, all) => all.length < 3 || k !== drop);
        if (typo) {
          const k = typo.at % parts.length;
          const p = parts[k];
          parts[k] = p.slice(0, typo.at % p.length) + typo.letter + p.slice((typo.at % p.length) + 1);
        }
        if (reversed) parts.reverse();
        const [dob] = dobsOf(named[i].entNum);
        return {
          firstName: parts.slice(0, -1).join(" "),
          lastName: parts.at(-1) ?? "",
          dob: listedDob && dob ? dayInside(dob.from, dob.to, at) : "1971-03-09",
        };
      });
    const common = fc
      .tuple(fc.constantFrom(...commonCustomers()), fc.date({ min: new Date("1930-01-01"), max: new Date("2008-11-28"), noInvalidDate: true }))
      .map(([c, born]) => ({ firstName: c.firstName, lastName: c.lastName, dob: isoDay(born) }));
    const letters = fc.stringMatching(/^[A-Za-z]{1,9}( [A-Za-z]{1,9})?$/);
    // The selection's edges: a part one edit from a listed part whose similarity is the lowest at or
    // above the candidate line (0.8), beside the listed name's other parts or alone with the listed
    // date of birth (then that part is the only way to the candidate); a one-letter part (an
    // initial); a first letter swapped for another of its group (a transliteration: Usama/Osama, Qasem/Kasem).
    const SWAPS: Record<string, string> = {
      A: "E",
      E: "I",
      I: "Y",
      O: "U",
      U: "O",
      Y: "A",
      C: "K",
      K: "Q",
      Q: "G",
      G: "C",
      S: "Z",
      Z: "S",
      V: "W",
      W: "V",
    };
    const atTheLine = (part: string) => {
      const edits = [...part].flatMap((_, k) => [
        part.slice(0, k) + part.slice(k + 1),
        ...[..."AEKLNRST"].map((c) => part.slice(0, k) + c + part.slice(k + 1)),
      ]);
      const near = edits
        .filter((e) => e.length > 0 && initialGroup(e) === initialGroup(part))
        .map((e) => ({ e, s: partSimilarity(e, part, soundex(e), soundex(part)) }))
        .filter(({ s }) => s >= 0.8)
        .sort((a, b) => a.s - b.s);
      return near[0]?.e ?? part;
    };
    const edges = fc
      .record({ i: fc.nat(named.length - 1), k: fc.nat(4), edge: fc.constantFrom("line", "alone", "initial", "transliteration") })
      .map(({ i, k, edge }) => {
        const parts = listedNameParts(named[i].name).forward;
        const at = k % parts.length;
        const part = parts[at];
        parts[at] =
          edge === "line" || edge === "alone" ? atTheLine(part) : edge === "initial" ? part[0] : (SWAPS[part[0]] ?? part[0]) + part.slice(1);
        const [dob] = dobsOf(named[i].entNum);
        const name = edge === "alone" ? ["XQ", parts[at]] : parts;
        return { firstName: name.slice(0, -1).join(" "), lastName: name.at(-1) ?? "", dob: dob ? dob.from : "1971-03-09" };
      });
    const anyone = fc.oneof(nearListed, edges, common, fc.record({ firstName: letters, lastName: letters, dob: fc.constant("1980-06-15") }));
    // An isolate's index lives across checks; a fresh one starts now and then, as after a quiet spell.
    let grown = sanctionsIndexOfParts(stored, forms);
    holds(
      fc.property(anyone, fc.nat(19), (person, restart) => {
        if (restart === 0) grown = sanctionsIndexOfParts(stored, forms);
        const missing = missingIndividuals(grown, person);
        addToSanctionsIndex(grown, rowsFor(missing.entNums), missing.parts);
        expect(screenPerson(grown, person, LINES), `${person.firstName} ${person.lastName} ${person.dob}`).toEqual(
          screenPerson(index, person, LINES),
        );
      }),
    );
  }, 600_000);
});
