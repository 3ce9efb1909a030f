/**
 * The result of a compliance check from its parts (docs/domain/screening.md#pass-flag-hold): a
 * listed name whose rule holds holds the deal; otherwise a missing or stale list
 * (docs/domain/screening.md#stale-list-fails-closed), a listed name whose rule flags, or a red flag
 * flags it; only a fresh list, no flagged name and no red flag pass. It surfaces; people decide
 * (docs/compliance.md).
 */
import { daysElapsed } from "../dates";
import type { ScreeningFlag } from "./red-flags";
import type { SanctionsMatch } from "./sanctions-index";

export interface ListAgeLimit {
  /** A list older than this many days is stale; exactly this old is still current. */
  maxListAgeDays: number;
}

export type ListState = { loaded: false } | { loaded: true; loadedAt: string };

export const TRIGGERED_RULES = ["ofac_sdn_match", "ofac_list_unavailable", "ofac_list_stale", "ofac_potential_match", "identity_red_flag"] as const;
export type TriggeredRule = (typeof TRIGGERED_RULES)[number];

export interface ScreeningDecision {
  result: "pass" | "flag" | "hold";
  triggeredRule: TriggeredRule | null;
  ofacMatch: boolean;
  listAgeDays: number | null;
}

export function decideScreening(input: {
  list: ListState;
  match: SanctionsMatch | null;
  redFlags: readonly ScreeningFlag[];
  limit: ListAgeLimit;
  now: Date;
}): ScreeningDecision {
  const { list, match, redFlags, limit, now } = input;
  const listAgeDays = list.loaded ? Math.max(0, daysElapsed(Date.parse(list.loadedAt), now.getTime())) : null;
  const decided = (result: ScreeningDecision["result"], triggeredRule: TriggeredRule | null): ScreeningDecision => ({
    result,
    triggeredRule,
    ofacMatch: result === "hold",
    listAgeDays: listAgeDays === null ? null : Math.round(listAgeDays * 10) / 10,
  });
  if (match?.outcome === "hold") return decided("hold", "ofac_sdn_match");
  // Fails closed: without a current list a clean screening proves nothing.
  if (listAgeDays === null) return decided("flag", "ofac_list_unavailable");
  if (listAgeDays > limit.maxListAgeDays) return decided("flag", "ofac_list_stale");
  if (match?.outcome === "flag") return decided("flag", "ofac_potential_match");
  if (redFlags.length > 0) return decided("flag", "identity_red_flag");
  return decided("pass", null);
}
