/**
 * The shorter forms a listed given name is known by (docs/domain/screening.md#given-name-forms):
 * nicknames and diminutives from the published list carltonnorthern/nicknames (Apache-2.0; read
 * from D1, never bundled), initials, and truncations (Mo, Nic, Alex).
 */
import { nameParts } from "./names";

/** Listed given name → its nicknames, both normalised (`NICOLAS` → {`NIC`, `NICK`, …}). */
export type GivenNameForms = ReadonlyMap<string, ReadonlySet<string>>;

export const NO_GIVEN_NAME_FORMS: GivenNameForms = new Map();

/** A name's first normalised part; the list's plain lower-case words skip normalising (most of a fresh isolate's parse). */
const firstPart = (name: string): string | undefined => (/^[a-z]+$/.test(name) ? name.toUpperCase() : nameParts(name)[0]);

/** The published `name1,has_nickname,name2` triplets (a header row, other relationships skipped). */
export function parseGivenNameForms(csv: string): GivenNameForms {
  const forms = new Map<string, Set<string>>();
  for (const line of csv.split(/\r?\n/)) {
    const [name, relationship, nickname] = line.split(",");
    if (relationship !== "has_nickname" || !name || !nickname) continue;
    const full = firstPart(name);
    const short = firstPart(nickname);
    if (!full || !short || full === short) continue;
    const known = forms.get(full);
    if (known) known.add(short);
    else forms.set(full, new Set([short]));
  }
  return forms;
}

/** A truncation must keep this many letters to count (Mo, Ed); one letter is an initial. */
const MIN_TRUNCATION = 2;

/**
 * Whether the customer's word is a shorter form of the listed given name: its initial, a
 * truncation of it, or a nickname the published list gives for it. Never the name itself (that is
 * a whole given-name match).
 */
export function isGivenNameForm(entered: string, listed: string, forms: GivenNameForms): boolean {
  if (entered === listed || entered.length === 0) return false;
  if (entered.length === 1) return listed.startsWith(entered);
  if (entered.length >= MIN_TRUNCATION && entered.length < listed.length && listed.startsWith(entered)) return true;
  return forms.get(listed)?.has(entered) ?? false;
}
