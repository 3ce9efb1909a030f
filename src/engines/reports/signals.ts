/**
 * The briefing sections of the store's own signals (docs/domain/reports.md#signals-from-the-stores-own-data):
 * a stale feed leads every role's briefing; an open lender tightening is named in the F&I
 * director's and the sales manager's.
 */
import { type DataAsOf, dataAsOf, type FeedReceipt, type FeedStore } from "../freshness";

/** A program's open tightening at the store, as the briefing names it. */
export interface BriefingTightening {
  lender: string;
  since: string;
  summary: string;
  /** Approval rates of the baseline and the recent window, 0 to 1. */
  before: number;
  after: number;
}

interface SignalFigure {
  id: string;
  label: string;
  value: number;
  unit: "days" | "percent";
  benchmark: string | null;
  action: string;
}

const ACTIONS: Record<string, string> = {
  fi_director:
    "Route around it: lender-route ranks it on its recent approvals; send its deals with the stips ready and more cash down, or to the backup.",
  sales_manager: "Expect fewer approvals there: desk deals it used to take with more cash down, or plan them for the backup lender.",
};

/** The first section when a feed the briefing used is stale: each stale feed, its age and what to do. */
export function staleDataSection(dataAsOf: readonly DataAsOf[]) {
  const stale = dataAsOf.filter((d) => d.stale);
  if (stale.length === 0) return [];
  const figures: SignalFigure[] = stale.map((d) => ({
    id: `stale_${d.feed}`,
    label: d.warning ?? "",
    value: Number(((d.age_hours ?? 0) / 24).toFixed(1)),
    unit: "days",
    benchmark: `${d.stale_after_hours} hours (the store's ${d.feed}_stale_hours)`,
    action: "Check the DMS export or its credential; figures below are as of the last delivery.",
  }));
  return [{ id: "stale_data", title: "Data is stale", figures }];
}

/** The F&I director's and the sales manager's section naming each open tightening; nothing for other roles or none open. */
export function lenderTighteningSection(role: string, tightenings: readonly BriefingTightening[]) {
  const action = ACTIONS[role];
  if (action === undefined || tightenings.length === 0) return [];
  const figures: SignalFigure[] = tightenings.map((t) => ({
    id: `tightening_${t.lender}`,
    label: `${t.summary} (since ${t.since})`,
    value: Math.round(t.after * 1000) / 10,
    unit: "percent",
    benchmark: `${Math.round(t.before * 1000) / 10}% before (the program's own baseline at this store)`,
    action,
  }));
  return [{ id: "lender_tightening", title: "Lenders tightening at this store", figures }];
}

/** The briefing's inputs from the loaded signals, with the feeds' ages at `now`. */
export function briefingSignals(
  loaded: { feeds: { stores: readonly FeedStore[]; receipts: readonly FeedReceipt[] }; tightenings: readonly BriefingTightening[] },
  now: Date,
) {
  return { dataAsOf: dataAsOf(loaded.feeds.stores, loaded.feeds.receipts, ["inventory", "deals"], now), tightenings: loaded.tightenings };
}
