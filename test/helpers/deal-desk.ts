import { env } from "cloudflare:workers";
import { DEMO_DEAL_DESK_REFERENCE } from "../../scripts/deal-desk-reference";
import { buildDemoSeed, type DemoCredentials, demoOrgSeeds } from "../../src/demo/demo-data";
import { newId } from "../../src/lib/ids";
import { COACH_REFERENCE } from "./deal-desk-reference";
import { call, createApiKey, createOrg, createStore } from "./factories";
import { all } from "./sql";

/** An organization with a primary store whose panel holds the named programs (default: every program), and a key. */
export async function createDeskOrg(options: { programIds?: string[] } = {}) {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  const programIds = options.programIds ?? (await env.DB.prepare("SELECT id FROM lender_programs").all<{ id: string }>()).results.map((r) => r.id);
  await addToPanel(org.id, store.id, programIds);
  const { key } = await createApiKey(org.id);
  return { orgId: org.id, storeId: store.id, key };
}

export async function addToPanel(orgId: string, storeId: string, programIds: string[]) {
  await env.DB.batch(
    programIds.map((id) => env.DB.prepare("INSERT INTO store_lender_panel (org_id, store_id, program_id) VALUES (?, ?, ?)").bind(orgId, storeId, id)),
  );
}

/** `count` submissions of one decision to a program in a score band, each with the given turnaround. */
export async function addDecisions(
  orgId: string,
  storeId: string,
  programId: string,
  scoreBand: string,
  decision: "approved" | "countered" | "declined",
  count: number,
  turnaroundHours: number | null = null,
) {
  const statements = Array.from({ length: count }, () =>
    env.DB.prepare(
      `INSERT INTO lender_decisions (id, org_id, store_id, program_id, submitted_on, score_band, decision, stips_asked, turnaround_hours)
       VALUES (?, ?, ?, ?, '2026-06-01', ?, ?, '[]', ?)`,
    ).bind(newId("ld"), orgId, storeId, programId, scoreBand, decision, turnaroundHours),
  );
  for (let i = 0; i < statements.length; i += 50) await env.DB.batch(statements.slice(i, i + 50));
}

export function post(path: string, key: string, body: unknown) {
  return call(path, { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

/** The demo seed (both demo organizations, their stores, panels and two years of lender decisions) as of a day. */
export async function loadDemoSeed(referenceDate = "2026-11-20") {
  const org = { apiKeyHash: "0".repeat(64), apiKeyPrefix: "lak_demo", brokerTokenHash: "1".repeat(64), staffPasswordHash: "x" };
  const credentials: DemoCredentials = {
    summit: { ...org, staffEmail: "desk@summit.test", legacyTokenHash: "2".repeat(64) },
    lakeside: { ...org, apiKeyHash: "3".repeat(64), brokerTokenHash: "4".repeat(64), staffEmail: "gm@lakeside.test" },
  };
  const { statements } = buildDemoSeed({ referenceDate, organizations: demoOrgSeeds(credentials), dealDeskReference: DEMO_DEAL_DESK_REFERENCE });
  await env.DB.batch(statements.map((s) => env.DB.prepare(s)));
}

/** COACH_REFERENCE with the shipped default depreciation curve (the appraisal's rows without an organization). */
export async function coachReferenceWithCurve() {
  const retentionCurve = await all<{ ageYears: number; residualPct: number }>(
    "SELECT age_years AS ageYears, residual_pct AS residualPct FROM appraisal_retention_curve WHERE org_id IS NULL ORDER BY age_years",
  );
  return { ...COACH_REFERENCE, retentionCurve };
}
