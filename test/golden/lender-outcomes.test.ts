/**
 * Golden cases for a lender tightening seen in the store's own decisions, as a desk manager states
 * them (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions): generated
 * decision histories through the detector, then the nightly job, lender-route and the briefings
 * through the Worker.
 */
import { describe, expect, it } from "vitest";
import { lenderDecisions } from "../../src/db/org-schema";
import { DAY_MS, isoDay } from "../../src/engines/dates";
import {
  detectOutcomeShifts,
  fisherLowerTail,
  type OutcomeDecision,
  type OutcomeDecisionKind,
  type OutcomeSettings,
} from "../../src/engines/lender-routing/outcome-shift";
import { newId } from "../../src/lib/ids";
import { createDeskOrg, post } from "../helpers/deal-desk";
import { listOutboxEvents } from "../helpers/events";
import { call, insertInObject } from "../helpers/factories";
import { rerunNight, runAlarmsThrough } from "../helpers/object-sql";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";

const NOW = new Date("2026-11-29T05:00:00Z");
const SETTINGS: OutcomeSettings = { recentDays: 30, baselineDays: 180, alpha: 0.01, recoveryP: 0.2, minRecentDecisions: 5 };

/** Seeded so each run draws the same histories (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const decision = (daysBack: number, kind: OutcomeDecisionKind): OutcomeDecision => ({
  storeId: "sto_1",
  programId: "lp_1",
  submittedOn: isoDay(NOW.getTime() - daysBack * DAY_MS),
  decision: kind,
  stipsAsked: 2,
  turnaroundHours: null,
  fundingDays: null,
});
/** A history: `base` decisions at `baseRate` over the baseline, `recent` at `recentRate` over the last 30 days. */
function drawn(next: () => number, base: number, baseRate: number, recent: number, recentRate: number) {
  return [
    ...Array.from({ length: base }, (_, i) => decision(31 + (i % 179), next() < baseRate ? "approved" : "declined")),
    ...Array.from({ length: recent }, (_, i) => decision(i % 30, next() < recentRate ? "approved" : "declined")),
  ];
}
const found = (history: OutcomeDecision[]) => detectOutcomeShifts(history, [], SETTINGS, NOW).opened.length === 1;

describe("what is evidence (docs/domain/lender-routing.md#a-lender-tightening-in-the-stores-own-decisions)", () => {
  it("3 of 4 approved, then 1 of 3, is not evidence: p = 0.37", () => {
    expect(fisherLowerTail(1, 3, 3, 4)).toBeCloseTo(13 / 35, 6);
    const history = [
      ...[0, 0, 0, 1].map((k, i) => decision(40 + i, k ? "declined" : "approved")),
      ...[0, 1, 1].map((k, i) => decision(i, k ? "declined" : "approved")),
    ];
    expect(found(history)).toBe(false);
  });

  it("78% of 50 approved, then 41% of 17 (7 approved), is: p = 0.0067, found", () => {
    const history = [
      ...Array.from({ length: 50 }, (_, i) => decision(31 + i * 3, i < 39 ? "approved" : "declined")),
      ...Array.from({ length: 17 }, (_, i) => decision(i, i < 7 ? "approved" : "declined")),
    ];
    const [shift] = detectOutcomeShifts(history, [], SETTINGS, NOW).opened;
    expect(shift).toMatchObject({
      before: { decisions: 50, approved: 39, approval_rate: 0.78 },
      after: { decisions: 17, approved: 7, approval_rate: 0.4118 },
    });
    expect(shift.p_value).toBeCloseTo(0.00671, 4);
  });

  it("the same drop is found once the test has the decisions it needs: 5 of 13, not 5 of 12", () => {
    expect(fisherLowerTail(5, 12, 39, 50)).toBeGreaterThan(SETTINGS.alpha);
    expect(fisherLowerTail(5, 13, 39, 50)).toBeLessThanOrEqual(SETTINGS.alpha);
  });

  it("noise of the same size is not found: 1,000 stores at a steady 78% (50 then 17 decisions) raise at most 1%", () => {
    const next = random(38);
    let alarms = 0;
    for (let i = 0; i < 1000; i++) if (found(drawn(next, 50, 0.78, 17, 0.78))) alarms++;
    expect(alarms).toBeLessThanOrEqual(10);
  });

  it("a real tightening of the same size is: 1,000 stores falling from 78% to 41% over 17 decisions are found in most", () => {
    const next = random(41);
    let hits = 0;
    for (let i = 0; i < 1000; i++) if (found(drawn(next, 50, 0.78, 17, 0.41))) hits++;
    expect(hits).toBeGreaterThanOrEqual(500);
  });
});

/** Decisions at the store for the program, `daysBack` days before `at`. */
async function addHistory(
  orgId: string,
  storeId: string,
  programId: string,
  at: number,
  rows: { daysBack: number; decision: OutcomeDecisionKind }[],
) {
  const values = rows.map((r) => ({
    id: newId("ld"),
    orgId,
    storeId,
    programId,
    submittedOn: isoDay(at - r.daysBack * DAY_MS),
    scoreBand: "prime" as const,
    decision: r.decision,
    stipsAsked: r.daysBack < 30 ? ["Proof of income", "Proof of residence", "References"] : ["Proof of income"],
    turnaroundHours: null,
  }));
  await insertInObject(orgId, lenderDecisions, values);
}
const tightening = (approvedBefore: number, before: number, approvedAfter: number, after: number) => [
  ...Array.from({ length: before }, (_, i) => ({
    daysBack: 31 + i * 3,
    decision: (i < approvedBefore ? "approved" : "declined") as OutcomeDecisionKind,
  })),
  ...Array.from({ length: after }, (_, i) => ({ daysBack: i, decision: (i < approvedAfter ? "approved" : "countered") as OutcomeDecisionKind })),
];

describe("through the Worker", () => {
  const PROGRAM = "lp_harbor_point_bank";
  const DEAL = {
    beacon: 720,
    down_payment: 4000,
    vehicle_price: 24000,
    vehicle_type: "car",
    condition: "used",
    known_issues: [],
    vehicle_year: 2023,
    mileage: 30000,
  };

  it("the nightly job raises one own_outcomes change per episode; lender-route ranks and names it; the F&I director and sales manager are told; it recovers", async () => {
    const desk = await createDeskOrg({ programIds: [PROGRAM, "lp_union_rail_credit_union", "lp_keystone_auto_finance"] });
    const bystander = await createDeskOrg({ programIds: [PROGRAM] });
    // The organization's object runs the job on its alarm at 05:00 UTC (docs/scaling.md#jobs-where-the-data-is).
    const { outcomesAt: now } = nightlyRuns();
    await addHistory(desk.orgId, desk.storeId, PROGRAM, now, tightening(39, 50, 7, 17));
    const before = await (await post("/api/v1/lender-route", desk.key, DEAL)).json<{
      primary: { lender_id: string; confidence: number } | null;
      backup: { lender_id: string; confidence: number } | null;
    }>();
    const pickedBefore = [before.primary, before.backup].find((p) => p?.lender_id === PROGRAM);

    await runAlarmsThrough(desk.orgId, now);
    const events = await listOutboxEvents(desk.orgId, "lender.environment_change");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      store_id: desk.storeId,
      data: {
        source: "own_outcomes",
        trend: "tightening",
        program_id: PROGRAM,
        lender: "Harbor Point Bank",
        window_days: 30,
        baseline_days: 180,
        before: { decisions: 50, approved: 39, approval_rate: 0.78 },
        after: { decisions: 17, approved: 7, approval_rate: 0.4118, counter_rate: 0.5882, avg_stips_asked: 3 },
        test: "fisher_exact_one_sided",
      },
    });
    const summary = events[0].data.summary as string;
    expect(summary).toMatch(
      /^Approvals at Harbor Point Bank fell from 78% to 41% over the last 30 days, 17 decisions \(against 50 before\); counter-offers 0% → 59%, stips asked 1 → 3 a deal$/,
    );

    // The desk is cached a minute per (organization, store id): naming the store reads it afresh.
    const after = await (await post("/api/v1/lender-route", desk.key, { ...DEAL, store_id: desk.storeId })).json<{
      routing_note: string;
      outcome_changes: { lender_id: string; summary: string }[];
      primary: { lender_id: string; confidence: number; reasons: string[] } | null;
      backup: { lender_id: string; confidence: number; reasons: string[] } | null;
      avoid_details: { lender: string; reason: string }[];
    }>();
    expect(after.outcome_changes).toEqual([expect.objectContaining({ lender_id: PROGRAM, summary })]);
    // 0.77 on the store's history, scaled by 41/78: still the backup, named with why.
    expect(pickedBefore).toMatchObject({ confidence: 0.77 });
    expect(after.primary?.lender_id).toBe("lp_union_rail_credit_union");
    expect(after.backup).toMatchObject({ lender_id: PROGRAM, confidence: 0.41, approval_bucket: "low" });
    expect(after.backup?.reasons.at(-1)).toBe(`${summary} (since ${isoDay(now)}): approval likelihood scaled by 0.53`);
    expect(after.routing_note).toContain("Backup: Harbor Point Bank (0.41, 9.06%).");
    expect(after.routing_note).toContain("Approvals at Harbor Point Bank fell from 78% to 41% over the last 30 days, 17 decisions");

    for (const role of ["fi_director", "sales_manager"]) {
      const briefing = await (
        await call("/api/v1/morning-briefing", {
          method: "POST",
          key: desk.key,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ role }),
        })
      ).json<{ sections: { id: string; figures: { label: string; value: number }[] }[] }>();
      const section = briefing.sections.find((s) => s.id === "lender_tightening");
      expect(section?.figures[0], role).toMatchObject({ label: expect.stringContaining(summary), value: 41.2 });
    }
    const gm = await (
      await call("/api/v1/morning-briefing", {
        method: "POST",
        key: desk.key,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ role: "gm" }),
      })
    ).json<{ sections: { id: string }[] }>();
    expect(gm.sections.map((s) => s.id)).not.toContain("lender_tightening");

    // Another organization with the same program sees neither the event nor the change.
    expect(await listOutboxEvents(bystander.orgId, "lender.environment_change")).toEqual([]);
    const theirs = await (await post("/api/v1/lender-route", bystander.key, DEAL)).json<{ outcome_changes: unknown[]; routing_note: string }>();
    expect(theirs.outcome_changes).toEqual([]);
    expect(theirs.routing_note).not.toContain("fell from");

    // A month of approvals at the old rate: the program recovers, said once.
    await rowsInObject(desk.orgId, "DELETE FROM lender_decisions WHERE org_id = ? AND submitted_on >= ?", desk.orgId, isoDay(now - 29 * DAY_MS));
    await addHistory(
      desk.orgId,
      desk.storeId,
      PROGRAM,
      now,
      Array.from({ length: 12 }, (_, i) => ({ daysBack: i, decision: (i < 9 ? "approved" : "declined") as OutcomeDecisionKind })),
    );
    // The next night's run, and the same run again (as its retry would run it): one recovery.
    await runAlarmsThrough(desk.orgId, now + DAY_MS);
    await rerunNight(desk.orgId, now + DAY_MS);
    const all = await listOutboxEvents(desk.orgId, "lender.environment_change");
    expect(all.map((e) => e.data.trend).sort()).toEqual(["recovered", "tightening"]);
    const recovered = all.find((e) => e.data.trend === "recovered");
    expect(recovered?.data).toMatchObject({ episode_id: events[0].data.episode_id, after: { decisions: 12, approved: 9 } });
    expect(recovered?.data.summary).toBe(
      "Approvals at Harbor Point Bank recovered: 75% over the last 30 days, 12 decisions, against 78% before the tightening",
    );
  });
});
