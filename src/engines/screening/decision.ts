/**
 * The result of a compliance check from its parts (docs/domain/screening.md#pass-flag-hold): a
 * listed name whose rule holds holds the deal; otherwise a missing list, a listed name whose rule
 * flags, or a red flag flags it; only a current list, no flagged name and no red flag pass. A list
 * past its age limit (docs/domain/screening.md#list-age) is refused in production and screened
 * with a warning in development. It surfaces; people decide (docs/compliance.md).
 */
import { daysSince } from "../dates";
import type { ScreeningFlag } from "./red-flags";
import type { SanctionsMatch } from "./sanctions-index";

export interface ListAgeLimit {
  /** A list whose publisher's date is more than this many days ago is stale; exactly this old is still current. */
  maxListAgeDays: number;
}

/** `published`: OFAC's own date; `upper_bound`: the copy kept none, and its data shows it is no newer. */
export type VersionBasis = "published" | "upper_bound";

export type ListState = { loaded: false } | { loaded: true; version: string; versionBasis: VersionBasis };

/**
 * `production` fails closed on a stale list: nothing is screened as clear. `development` (the demo
 * list, which is years old) screens and says how old the list is and why that would be refused.
 */
export type StaleListMode = "production" | "development";

/** `ofac_list_stale` is kept for the audit rows written before stale lists were refused (docs/compliance.md). */
export const TRIGGERED_RULES = ["ofac_sdn_match", "ofac_list_unavailable", "ofac_list_stale", "ofac_potential_match", "identity_red_flag"] as const;
export type TriggeredRule = (typeof TRIGGERED_RULES)[number];

export interface ListAge {
  /** Whole days from the publisher's date to today (UTC). */
  ageDays: number;
  stale: boolean;
  /** Development only, on a stale list: how old it is and why production refuses it. */
  warning: string | null;
}

export interface ScreeningDecision {
  refused: false;
  result: "pass" | "flag" | "hold";
  triggeredRule: TriggeredRule | null;
  ofacMatch: boolean;
  list: ListAge | null;
}

/** Production, stale list, nothing held: no answer may be given (docs/domain/screening.md#list-age). */
export interface StaleListRefusal {
  refused: true;
  ageDays: number;
  message: string;
}

const dated = (version: string, basis: VersionBasis) =>
  basis === "published"
    ? `published by OFAC on ${version}`
    : `no newer than ${version} (the copy kept no publication date; ${version} is the latest its data allows)`;

/** Age of a list from its publisher's date: the same figure the answer, the refusal and the warning give. */
export function listAge(list: { version: string; versionBasis: VersionBasis }, limit: ListAgeLimit, now: Date, mode: StaleListMode): ListAge {
  const ageDays = daysSince(list.version, now);
  const stale = ageDays > limit.maxListAgeDays;
  const warning =
    stale && mode === "development"
      ? `The sanctions list is ${ageDays} days old, ${dated(list.version, list.versionBasis)}: past the ${limit.maxListAgeDays}-day limit, so a production service refuses to screen against it. Development only: this answer is for trying the API, not for a deal.`
      : null;
  return { ageDays, stale, warning };
}

export function decideScreening(input: {
  list: ListState;
  match: SanctionsMatch | null;
  redFlags: readonly ScreeningFlag[];
  limit: ListAgeLimit;
  now: Date;
  mode: StaleListMode;
}): ScreeningDecision | StaleListRefusal {
  const { list, match, redFlags, limit, now, mode } = input;
  const age = list.loaded ? listAge(list, limit, now, mode) : null;
  const decided = (result: ScreeningDecision["result"], triggeredRule: TriggeredRule | null): ScreeningDecision => ({
    refused: false,
    result,
    triggeredRule,
    ofacMatch: result === "hold",
    list: age,
  });
  // A listed name holds on any list: the match is real.
  if (match?.outcome === "hold") return decided("hold", "ofac_sdn_match");
  // Fails closed: without a list, or in production with a stale one, a clean screening proves nothing.
  if (!list.loaded || age === null) return decided("flag", "ofac_list_unavailable");
  if (age.stale && mode === "production") {
    return {
      refused: true,
      ageDays: age.ageDays,
      message: `The sanctions list in force is ${age.ageDays} days old, ${dated(list.version, list.versionBasis)}; screening needs a list at most ${limit.maxListAgeDays} days old. No customer can be screened until a current list is loaded.`,
    };
  }
  if (match?.outcome === "flag") return decided("flag", "ofac_potential_match");
  if (redFlags.length > 0) return decided("flag", "identity_red_flag");
  return decided("pass", null);
}
