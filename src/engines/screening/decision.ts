/**
 * The result of a compliance check from its parts (DOMAIN.md §7.3): a sanctions match at or above
 * the hold line holds the deal; otherwise a missing or stale list, a potential match or a red flag
 * flags it; only a fresh list, no match and no red flag pass. It surfaces; people decide (SPEC §3).
 */
import type { ScreeningFlag } from "./red-flags";
import type { SanctionsMatch } from "./sanctions-index";

export interface ScreeningThresholds {
  holdScore: number;
  flagScore: number;
  maxListAgeDays: number;
}

export type ListState = { loaded: false } | { loaded: true; loadedAt: string };

export type TriggeredRule = "ofac_sdn_match" | "ofac_list_unavailable" | "ofac_list_stale" | "ofac_potential_match" | "identity_red_flag";

export interface ScreeningDecision {
  result: "pass" | "flag" | "hold";
  triggeredRule: TriggeredRule | null;
  ofacMatch: boolean;
  listAgeDays: number | null;
}

const DAY_MS = 86_400_000;

export function decideScreening(input: {
  list: ListState;
  match: SanctionsMatch | null;
  redFlags: readonly ScreeningFlag[];
  thresholds: ScreeningThresholds;
  now: Date;
}): ScreeningDecision {
  const { list, match, redFlags, thresholds, now } = input;
  const listAgeDays = list.loaded ? Math.max(0, (now.getTime() - Date.parse(list.loadedAt)) / DAY_MS) : null;
  const score = match?.score ?? 0;
  const decided = (result: ScreeningDecision["result"], triggeredRule: TriggeredRule | null): ScreeningDecision => ({
    result,
    triggeredRule,
    ofacMatch: result === "hold",
    listAgeDays: listAgeDays === null ? null : Math.round(listAgeDays * 10) / 10,
  });
  if (score >= thresholds.holdScore) return decided("hold", "ofac_sdn_match");
  // Fails closed: without a current list a clean screening proves nothing.
  if (listAgeDays === null) return decided("flag", "ofac_list_unavailable");
  if (listAgeDays > thresholds.maxListAgeDays) return decided("flag", "ofac_list_stale");
  if (score >= thresholds.flagScore) return decided("flag", "ofac_potential_match");
  if (redFlags.length > 0) return decided("flag", "identity_red_flag");
  return decided("pass", null);
}
