/**
 * The lender-outcome job where the data is (docs/scaling.md#jobs-where-the-data-is): an
 * organization's object tests its decisions on its own alarm at 05:00, reading the decisions,
 * their deals' funding days and the open episodes in the object.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deals, lenderDecisions } from "../../src/db/org-schema";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { DAY_MS, isoDay } from "../../src/engines/dates";
import { newId } from "../../src/lib/ids";
import { createDeskOrg, post } from "../helpers/deal-desk";
import { listOutboxEvents } from "../helpers/events";
import { insertInObject } from "../helpers/factories";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";
import { runCron } from "../helpers/queue-driver";

const PROGRAM = "lp_harbor_point_bank";
const DEAL = { beacon: 720, down_payment: 4000, vehicle_price: 24000, vehicle_type: "car", vehicle_year: 2023, mileage: 30000 };

/**
 * 39 of 50 approved over the baseline, then 7 of 17 over the last 30 days (p = 0.0067: a
 * tightening), each decision on a deal of its own: the baseline's funded 3 days after submission,
 * the recent ones 9 days after, so the days to fund rise from 3 to 9.
 */
async function tighteningHistory(orgId: string, storeId: string, at: number) {
  const rows = [
    ...Array.from({ length: 50 }, (_, i) => ({ daysBack: 31 + i * 3, decision: i < 39 ? "approved" : "declined", fundingDays: 3 }) as const),
    ...Array.from({ length: 17 }, (_, i) => ({ daysBack: i, decision: i < 7 ? "approved" : "countered", fundingDays: 9 }) as const),
  ].map((r) => {
    const submittedOn = isoDay(at - r.daysBack * DAY_MS);
    return { ...r, submittedOn, dealId: newId("deal"), fundedOn: isoDay(at - r.daysBack * DAY_MS + r.fundingDays * DAY_MS) };
  });
  const dealRows = rows.map((r) => ({
    id: r.dealId,
    orgId,
    storeId,
    dealNumber: r.dealId,
    soldOn: r.submittedOn,
    submittedOn: r.submittedOn,
    fundedOn: r.fundedOn,
    status: "funded" as const,
    vin: "1HGCM82633A004352",
    year: 2023,
    make: "Honda",
    model: "Accord",
    condition: "used" as const,
    vehicleType: "car" as const,
    sellingPrice: 24000,
    frontGross: 1500,
    backGross: 900,
  }));
  const decisionRows = rows.map((r) => ({
    id: newId("ld"),
    orgId,
    storeId,
    programId: PROGRAM,
    dealId: r.dealId,
    submittedOn: r.submittedOn,
    scoreBand: "prime" as const,
    decision: r.decision,
    stipsAsked: r.daysBack < 30 ? ["Proof of income", "Proof of residence"] : ["Proof of income"],
    turnaroundHours: null,
  }));
  await insertInObject(orgId, deals, dealRows);
  await insertInObject(orgId, lenderDecisions, decisionRows);
}

describe("an organization's lender outcomes run on its object's alarm", () => {
  it("finds the tightening in the object's decisions and funding days once", async () => {
    const { order, outcomesAt, briefedAt } = nightlyRuns();
    // Born in its object: D1 holds none of its deals and decisions, so only the object can answer.
    const inObject = await createDeskOrg({ programIds: [PROGRAM, "lp_union_rail_credit_union"] });
    await tighteningHistory(inObject.orgId, inObject.storeId, outcomesAt);

    // The object's three runs (aged alerts, lender outcomes, briefings), in the order they come.
    for (const _ of order) expect(await runDurableObjectAlarm(orgStore(env, inObject.orgId))).toBe(true);
    const events = await listOutboxEvents(inObject.orgId, "lender.environment_change");
    expect(events).toHaveLength(1);
    // Recorded in the object's outbox with its episode (one transaction), and relayed under that id by the same firing.
    const outbox = "SELECT id, relayed_at IS NOT NULL AS relayed FROM event_outbox WHERE event = 'lender.environment_change'";
    expect(await rowsInObject(inObject.orgId, outbox)).toEqual([{ id: events[0].id, relayed: 1 }]);
    expect(events[0].store_id).toBe(inObject.storeId);
    // The funding days are the deals' in the object, counted forward from the submission.
    expect(events[0].data).toMatchObject({
      trend: "tightening",
      program_id: PROGRAM,
      source: "own_outcomes",
      lender: "Harbor Point Bank",
      before: { decisions: 50, approved: 39, avg_funding_days: 3 },
      after: { decisions: 17, approved: 7, avg_funding_days: 9, avg_stips_asked: 2 },
      test: "fisher_exact_one_sided",
    });
    expect(events[0].data.summary).toBe(
      "Approvals at Harbor Point Bank fell from 78% to 41% over the last 30 days, 17 decisions (against 50 before); counter-offers 0% → 59%, stips asked 1 → 2 a deal, days to fund 3 → 9",
    );
    // The episode is the object's: one, open, the event's.
    const episodes = await rowsInObject<{ id: string; closed_at: string | null }>(
      inObject.orgId,
      "SELECT id, closed_at FROM lender_outcome_episodes WHERE org_id = ?",
      inObject.orgId,
    );
    expect(episodes).toEqual([{ id: events[0].data.episode_id, closed_at: null }]);

    // The same night's cron (the market refresh), through the queue, adds nothing.
    await runCron("0 5 * * *", outcomesAt);
    expect(await listOutboxEvents(inObject.orgId, "lender.environment_change")).toHaveLength(1);

    // Its readers find the object's episode: the lender route names it, and a briefing built after it (06:00) does too.
    const routed = await (await post("/api/v1/lender-route", inObject.key, DEAL)).json<{
      outcome_changes: { lender_id: string; summary: string }[];
    }>();
    expect(routed.outcome_changes).toEqual([expect.objectContaining({ lender_id: PROGRAM, summary: events[0].data.summary })]);
    if (briefedAt > outcomesAt) {
      const [stored] = await rowsInObject<{ body: string }>(
        inObject.orgId,
        "SELECT body FROM morning_briefings WHERE org_id = ? AND role = 'fi_director' AND day = ?",
        inObject.orgId,
        isoDay(briefedAt),
      );
      const sections = (JSON.parse(stored.body) as { sections: { id: string; figures: { label: string }[] }[] }).sections;
      expect(sections.find((s) => s.id === "lender_tightening")?.figures[0].label).toContain(events[0].data.summary as string);
    }
  });
});
